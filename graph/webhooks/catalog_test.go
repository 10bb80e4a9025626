package webhooks

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/tradecompliance/compliance/graph"
)

func TestCatalog(t *testing.T) {
	names := ValidEvents()
	spec := []string{"kyc.rescreen_completed", "kyc.match_detected", "cluster.entity_added",
		"cluster.entity_severity_changed", "watchlist.match_detected", "adverse_media.match_detected", "report.ready"}
	for _, n := range append(spec, "api_key.created", "api_key.revoked", "webhook.test") {
		if !slices.Contains(names, n) {
			t.Errorf("valid_events lacks %s", n)
		}
	}
	if len(names) <= len(spec) {
		t.Errorf("the catalog must be longer than the spec's seven names")
	}
	seen := map[string]bool{}
	for _, e := range Catalog() {
		if seen[e.Name] {
			t.Errorf("%s is listed twice", e.Name)
		}
		seen[e.Name] = true
		if e.Title == "" || e.Description == "" || e.Example == nil {
			t.Errorf("%s lacks a title, description or example payload", e.Name)
		}
		if b, err := json.Marshal(e.Example); err != nil || len(b) < 3 {
			t.Errorf("%s example = %s, %v", e.Name, b, err)
		}
	}
	for _, n := range []string{graph.EventAPIKeyCreated, graph.EventAPIKeyRevoked, graph.EventWebhookTest} {
		if e, _ := Lookup(n); !e.Live {
			t.Errorf("%s is emitted by a built surface; want live", n)
		}
	}
}

// The key events' payloads carry the key's record, never the key itself.
func TestAPIKeyEventPayload(t *testing.T) {
	k := graph.APIKey{ID: "k1", MemberID: "m1", Name: "ci", KeyPrefix: "ctc_live_Ab12Cd", Environment: graph.Production, Scopes: []string{"audit"}}
	ev := graph.APIKeyCreatedEvent(k)
	b, _ := json.Marshal(ev.Data)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, f := range []string{"key_id", "name", "key_prefix", "environment", "scopes", "created_at", "expires_at", "revoked_at"} {
		if _, ok := m[f]; !ok {
			t.Errorf("api_key.created payload lacks %s: %s", f, b)
		}
	}
	if ev.Type != "api_key.created" || ev.MemberID != "m1" || ev.ID == "" {
		t.Errorf("event = %+v", ev)
	}
	if _, ok := m["key"]; ok {
		t.Errorf("payload carries the raw key: %s", b)
	}
}
