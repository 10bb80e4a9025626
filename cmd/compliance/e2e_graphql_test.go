package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// wsDial opens a websocket to /graphql speaking protocol.
func wsDial(t *testing.T, in *instance, protocol string, header http.Header) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{protocol}, HandshakeTimeout: 5 * time.Second}
	c, resp, err := d.Dial("ws"+strings.TrimPrefix(in.base, "http")+"/graphql", header)
	if err != nil {
		t.Fatalf("dial %s: %v", protocol, err)
	}
	if resp.Header.Get("Sec-Websocket-Protocol") != protocol {
		t.Fatalf("negotiated %q, want %q", resp.Header.Get("Sec-Websocket-Protocol"), protocol)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

type wsMsg struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// wsRead returns the next message that is not a keep-alive.
func wsRead(t *testing.T, c *websocket.Conn) wsMsg {
	t.Helper()
	for {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m wsMsg
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("read: %v", err)
		}
		if m.Type == "ka" || m.Type == "ping" || m.Type == "pong" {
			continue
		}
		return m
	}
}

func wsSend(t *testing.T, c *websocket.Conn, m any) {
	t.Helper()
	if err := c.WriteJSON(m); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func TestE2EWebsocketProtocols(t *testing.T) {
	in := start(t, testEnv(t))
	k := in.key("acme")
	tests := []struct {
		name, protocol, start, next, stop string
		payload                           map[string]any
	}{
		{"graphql-transport-ws, Bearer in payload", "graphql-transport-ws", "subscribe", "next", "complete", map[string]any{"Authorization": "Bearer " + k.Key}},
		{"graphql-ws (legacy), X-Api-Key in payload", "graphql-ws", "start", "data", "stop", map[string]any{"X-Api-Key": k.Key}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := wsDial(t, in, tt.protocol, nil)
			wsSend(t, c, map[string]any{"type": "connection_init", "payload": tt.payload})
			if m := wsRead(t, c); m.Type != "connection_ack" {
				t.Fatalf("after connection_init got %s %s, want connection_ack", m.Type, m.Payload)
			} else if strings.Contains(string(m.Payload), k.Key) {
				t.Errorf("connection_ack payload %s echoes the API key", m.Payload)
			}

			// A query over the socket runs as the key from the payload.
			wsSend(t, c, map[string]any{"id": "q", "type": tt.start, "payload": map[string]any{"query": "{ me { memberName key { id } } }"}})
			m := wsRead(t, c)
			if m.Type != tt.next || !strings.Contains(string(m.Payload), `"memberName":"acme"`) || !strings.Contains(string(m.Payload), k.KeyID) {
				t.Fatalf("query over %s = %s %s, want the caller acme", tt.protocol, m.Type, m.Payload)
			}
			if m := wsRead(t, c); m.Type != "complete" {
				t.Fatalf("after the query result got %s, want complete", m.Type)
			}

			// A subscription streams its first event, then stops on request.
			wsSend(t, c, map[string]any{"id": "s", "type": tt.start, "payload": map[string]any{"query": "subscription { serviceStatusChanged(pollSeconds: 1) { ready checks { name ok } } }"}})
			m = wsRead(t, c)
			if m.Type != tt.next || m.ID != "s" || !strings.Contains(string(m.Payload), `"ready":true`) {
				t.Fatalf("subscription event = %s %s %s, want ready:true", m.ID, m.Type, m.Payload)
			}
			wsSend(t, c, map[string]any{"id": "s", "type": tt.stop})
		})
	}
}

func TestE2EWebsocketRejectsBadKey(t *testing.T) {
	in := start(t, testEnv(t))
	c := wsDial(t, in, "graphql-transport-ws", nil)
	wsSend(t, c, map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer ctc_live_not-a-real-key"}})
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m wsMsg
	err := c.ReadJSON(&m)
	if err == nil && m.Type == "connection_ack" {
		t.Fatal("connection_ack for an unknown key")
	}
	if ce, ok := err.(*websocket.CloseError); ok && ce.Code != 4403 {
		t.Errorf("close code = %d (%s), want 4403 Forbidden", ce.Code, ce.Text)
	}
}

func TestE2EFederation(t *testing.T) {
	in := start(t, testEnv(t))
	k := in.key("acme")

	// The subgraph SDL declares federation v2 and the ApiKey entity.
	r := in.gql(k.Key, "{ _service { sdl } }", nil)
	sdl := string(r.body)
	for _, want := range []string{`@link(url: \"https://specs.apollo.dev/federation/v2`, `type ApiKey @key(fields: \"id\")`} {
		if !strings.Contains(sdl, want) {
			t.Errorf("_service.sdl lacks %s", want)
		}
	}

	// _entities resolves the caller's own key, and null for an unknown one.
	q := `query($r: [_Any!]!) { _entities(representations: $r) { ... on ApiKey { id name } } }`
	r = in.gql(k.Key, q, map[string]any{"r": []any{
		map[string]any{"__typename": "ApiKey", "id": k.KeyID},
		map[string]any{"__typename": "ApiKey", "id": "00000000-0000-4000-8000-000000000000"},
	}})
	var ent struct {
		Data struct {
			Entities []*struct{ ID, Name string } `json:"_entities"`
		}
	}
	json.Unmarshal(r.body, &ent)
	if len(ent.Data.Entities) != 2 || ent.Data.Entities[0] == nil || ent.Data.Entities[0].ID != k.KeyID || ent.Data.Entities[1] != nil {
		t.Errorf("_entities = %s", r.body)
	}

	// Apollo's own composition and gateway accept the subgraph and serve it.
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("COMPLIANCE_REQUIRE_SERVICES") == "1" {
			t.Fatal("node is required for the federation check (COMPLIANCE_REQUIRE_SERVICES=1)")
		}
		t.Skip("node not installed")
	}
	script, _ := filepath.Abs("../../scripts/e2e/federation/run.sh")
	cmd := exec.Command(script, in.base+"/graphql", k.Key, "{ serviceStatus { ready } apiKeys { id name } }")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("federation check: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"ready": true`) || !strings.Contains(string(out), k.KeyID) {
		t.Errorf("gateway answer lacks the subgraph's data:\n%s", out)
	}
}

func TestE2EQueryLimits(t *testing.T) {
	in := start(t, testEnv(t, "GRAPHQL_MAX_DEPTH=2", "GRAPHQL_MAX_COMPLEXITY=10"))
	k := in.key("acme")
	tests := []struct {
		name, query, reason string
	}{
		{"too deep", "{ me { key { id } } }", "depth_limit"},
		{"too complex", "{ a: serviceStatus { ready version } b: serviceStatus { ready version } c: serviceStatus { ready version } d: serviceStatus { ready version } }", "complexity_limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.gql(k.Key, tt.query, nil)
			if r.status != 400 {
				t.Fatalf("status = %d, want 400: %s", r.status, r.body)
			}
			msg, ext := gqlError(t, r)
			if ext["reason"] != tt.reason || !strings.Contains(msg, "exceeds the limit") {
				t.Errorf("error = %q %v, want reason %s", msg, ext, tt.reason)
			}
		})
	}
	// Introspection is not counted towards depth: the IDE can load the schema.
	r := in.gql(k.Key, "{ __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }", nil)
	if r.status != 200 || strings.Contains(string(r.body), `"errors"`) {
		t.Errorf("introspection = %d %.200s", r.status, r.body)
	}
}

func TestE2EIDE(t *testing.T) {
	in := start(t, testEnv(t))
	r := in.do("GET", "/graphiql/", "", nil)
	if r.status != 200 || !strings.Contains(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /graphiql/ = %d %s", r.status, r.header.Get("Content-Type"))
	}
	if strings.Contains(string(r.body), "https://") || strings.Contains(string(r.body), "http://") {
		t.Errorf("IDE page references an outside URL (no CDN allowed)")
	}
	if !strings.Contains(r.header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("CSP = %q", r.header.Get("Content-Security-Policy"))
	}
}
