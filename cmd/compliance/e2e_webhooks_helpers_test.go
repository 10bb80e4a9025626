package main

// Helpers of the webhook end-to-end tests: a receiver on the loopback
// address, subscriptions, the delivery log, and verification of captured
// deliveries by the Standard Webhooks reference library (npm).

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph/webhooks"
)

// hookMsg is one request a receiver got.
type hookMsg struct {
	Path      string
	ID        string // webhook-id
	Timestamp string // webhook-timestamp
	Signature string // webhook-signature
	UserAgent string
	Type      string // Content-Type
	Body      []byte
	At        time.Time
}

// hookReceiver is a webhook receiver on 127.0.0.1 that records every
// request and answers with what status decides (200 when nil). It can go
// down (connections refused) and come back on the same port.
type hookReceiver struct {
	t    testing.TB
	addr string

	mu     sync.Mutex
	msgs   []hookMsg
	status func(path string, nth int) int // nth counts this path's requests from 1
	delay  time.Duration
	srv    *http.Server
}

func newReceiver(t testing.TB) *hookReceiver {
	t.Helper()
	r := &hookReceiver{t: t, addr: "127.0.0.1:0"}
	r.up()
	t.Cleanup(r.down)
	return r
}

// up starts serving on the receiver's address (the same port after a down).
func (r *hookReceiver) up() {
	r.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port may linger briefly after down
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatalf("receiver listen %s: %v", r.addr, err)
	}
	r.mu.Lock()
	r.addr = ln.Addr().String()
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 5 * time.Second}
	srv := r.srv
	r.mu.Unlock()
	go srv.Serve(ln)
}

// down stops the receiver: new connections are refused.
func (r *hookReceiver) down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	m := hookMsg{Path: req.URL.Path, ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"),
		Signature: req.Header.Get("webhook-signature"), UserAgent: req.Header.Get("User-Agent"),
		Type: req.Header.Get("Content-Type"), Body: body, At: time.Now()}
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	nth := 0
	for _, x := range r.msgs {
		if x.Path == m.Path {
			nth++
		}
	}
	status, delay := r.status, r.delay
	r.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	code := 200
	if status != nil {
		code = status(m.Path, nth)
	}
	w.WriteHeader(code)
}

func (r *hookReceiver) setStatus(f func(path string, nth int) int) {
	r.mu.Lock()
	r.status = f
	r.mu.Unlock()
}

// url returns the receiver's URL for path.
func (r *hookReceiver) url(path string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return "http://" + r.addr + path
}

// received returns the requests to path ("" for all), in arrival order.
func (r *hookReceiver) received(path string) []hookMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []hookMsg
	for _, m := range r.msgs {
		if path == "" || m.Path == path {
			out = append(out, m)
		}
	}
	return out
}

// waitFor polls cond every 50 ms until it holds, failing the test after
// timeout with what.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// subOut is a created subscription.
type subOut struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	DeliveryFormat string   `json:"delivery_format"`
	Status         string   `json:"status"`
	IsActive       bool     `json:"is_active"`
	Secret         string   `json:"secret"`
	SecretPreview  string   `json:"secret_preview"`
}

// subscribe creates a subscription through the API, failing the test
// unless it is created.
func (in *instance) subscribe(key, url, format string, events ...string) subOut {
	in.t.Helper()
	body := map[string]any{"url": url, "events": events}
	if format != "" {
		body["delivery_format"] = format
	}
	r := in.do("POST", "/api/v1/webhooks", key, body)
	if r.status != 201 {
		in.t.Fatalf("POST /api/v1/webhooks = %d %s", r.status, r.body)
	}
	var env struct {
		Data subOut `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		in.t.Fatal(err)
	}
	return env.Data
}

// deliveryOut is a row of the delivery log.
type deliveryOut struct {
	ID             string  `json:"id"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	SubscriptionID string  `json:"subscription_id"`
	Status         string  `json:"status"`
	AttemptCount   int     `json:"attempt_count"`
	ResponseCode   *int    `json:"response_code"`
	LastError      *string `json:"last_error"`
	QueuedAt       string  `json:"queued_at"`
}

// deliveries lists the caller's delivery log with the query q.
func (in *instance) deliveries(key, q string) []deliveryOut {
	in.t.Helper()
	r := in.do("GET", "/api/v1/webhooks/events"+q, key, nil)
	if r.status != 200 {
		in.t.Fatalf("GET /api/v1/webhooks/events%s = %d %s", q, r.status, r.body)
	}
	var env struct {
		Data struct {
			Events []deliveryOut `json:"events"`
		} `json:"data"`
	}
	json.Unmarshal(r.body, &env)
	return env.Data.Events
}

// delivery returns the caller's delivery id (the log is searched through
// its newest 200 rows).
func (in *instance) delivery(key, id string) deliveryOut {
	in.t.Helper()
	for _, d := range in.deliveries(key, "?limit=200") {
		if d.ID == id {
			return d
		}
	}
	in.t.Fatalf("delivery %s is not in the log", id)
	return deliveryOut{}
}

// testDelivery queues a webhook.test delivery to sub and returns its id.
func (in *instance) testDelivery(key, sub string) string {
	in.t.Helper()
	r := in.do("POST", "/api/v1/webhooks/"+sub+"/test", key, nil)
	if r.status != 202 {
		in.t.Fatalf("POST /api/v1/webhooks/%s/test = %d %s", sub, r.status, r.body)
	}
	var env struct {
		Data deliveryOut `json:"data"`
	}
	json.Unmarshal(r.body, &env)
	return env.Data.ID
}

// verifyGo checks a captured request's signature with the project's own
// verifier (the npm library checks them too, in verifyNode).
func verifyGo(secret string, m hookMsg) error {
	return webhooks.Verify(secret, m.ID, m.Timestamp, m.Signature, m.Body, time.Now(), 10*time.Minute)
}

// nodeMsg is one message for scripts/e2e/webhooks/verify.mjs.
type nodeMsg struct {
	Name    string            `json:"name"`
	Secret  string            `json:"secret"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

func toNode(name, secret string, m hookMsg) nodeMsg {
	return nodeMsg{Name: name, Secret: secret, Body: string(m.Body), Headers: map[string]string{
		"webhook-id": m.ID, "webhook-timestamp": m.Timestamp, "webhook-signature": m.Signature,
	}}
}

// verifyNode verifies messages with the standardwebhooks npm library as a
// receiver would, and returns the failures by name (error text).
func verifyNode(t *testing.T, msgs []nodeMsg) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("COMPLIANCE_REQUIRE_SERVICES") == "1" {
			t.Fatal("node is required for the Standard Webhooks check (COMPLIANCE_REQUIRE_SERVICES=1)")
		}
		t.Skip("node not installed")
	}
	f := filepath.Join(t.TempDir(), "messages.json")
	b, _ := json.Marshal(msgs)
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("../../scripts/e2e/webhooks/run.sh")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, f)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("standardwebhooks verification: %v\n%s", err, stderr.String())
	}
	var results []struct {
		Name  string `json:"name"`
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(msgs) {
		t.Fatalf("verify.mjs answered %d results for %d messages (%v): %s", len(results), len(msgs), err, out)
	}
	failed := map[string]string{}
	for _, r := range results {
		if !r.OK {
			failed[r.Name] = r.Error
		}
	}
	return failed
}

// postJSON is a goroutine-safe POST (no t.Fatal): it returns the status
// and body, or an error.
func postJSON(client *http.Client, url, key string, body any) (int, []byte, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", url, strings.NewReader(string(b)))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if resp.StatusCode == 0 {
		return 0, nil, errors.New("no status")
	}
	return resp.StatusCode, out, nil
}
