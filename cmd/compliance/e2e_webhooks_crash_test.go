package main

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A crash (SIGKILL) during deliveries loses no event: after a restart every
// event is delivered at least once (receivers deduplicate by webhook-id),
// none with a wrong signature, and the delivery log is consistent.
func TestE2EWebhookSIGKILLLosesNoEvent(t *testing.T) {
	env := testEnv(t, privateTargets, "WEBHOOK_TIMEOUT=1s",
		"WEBHOOK_RETRY_SCHEDULE=1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s")
	in := start(t, env)
	k := in.key("acme")
	rcv := newReceiver(t)
	rcv.mu.Lock()
	rcv.delay = 40 * time.Millisecond // so that attempts are in flight at the kill
	rcv.mu.Unlock()
	paths := []string{"/s1", "/s2", "/s3"}
	secrets := map[string]string{}
	for _, p := range paths {
		secrets[p] = in.subscribe(k.Key, rcv.url(p), "", "api_key.created").Secret
	}

	// Load: keys created as fast as 8 clients can, each event fanning out
	// to 3 subscriptions.
	var mu sync.Mutex
	var created []string // key ids whose 201 arrived: their events committed
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				status, body, err := postJSON(client, in.base+"/api/v1/keys", k.Key, map[string]any{"name": "load"})
				if err != nil || status != 201 {
					continue
				}
				var ko keyOut
				json.Unmarshal(body, &ko)
				mu.Lock()
				created = append(created, ko.KeyID)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	in.cmd.Process.Signal(syscall.SIGKILL) // mid-flight
	in.cmd.Wait()
	in.stopped = true
	cancel()
	wg.Wait()

	db := openDB(t, env)
	bg := context.Background()
	var pending, inFlight int
	db.QueryRow(bg, `SELECT count(*) FILTER (WHERE status <> 'delivered'), count(*) FILTER (WHERE status = 'delivering') FROM webhook_deliveries`).Scan(&pending, &inFlight)
	t.Logf("at the kill: %d keys created, %d deliveries not yet delivered (%d in flight), %d requests received",
		len(created), pending, inFlight, len(rcv.received("")))
	if len(created) < 20 {
		t.Fatalf("only %d events before the crash; the test needs load", len(created))
	}
	if pending == 0 {
		t.Fatalf("every delivery was done before the kill; the test needs deliveries in flight")
	}

	restarted := time.Now()
	serveOnly(t, env)
	waitFor(t, 3*time.Minute, "every delivery after the restart", func() bool {
		var n int
		db.QueryRow(bg, `SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered'`).Scan(&n)
		return n == 0
	})
	t.Logf("all delivered %s after the restart", time.Since(restarted).Round(100*time.Millisecond))

	// The log is consistent: every row delivered with a 200 after at least
	// one attempt; every acknowledged key's event has one delivery per
	// subscription.
	type row struct {
		id, path, keyID string
		attempts, code  int
		delivered       bool
	}
	rows, err := db.Query(bg, `SELECT d.id::text, s.url, e.payload->>'key_id', d.attempt_count, COALESCE(d.response_code, 0), d.delivered_at IS NOT NULL
		FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id JOIN webhook_events e ON e.id = d.event_id`)
	if err != nil {
		t.Fatal(err)
	}
	var log []row
	byKey := map[string]int{}
	for rows.Next() {
		var r row
		var url string
		rows.Scan(&r.id, &url, &r.keyID, &r.attempts, &r.code, &r.delivered)
		r.path = url[len(rcv.url("")):]
		log = append(log, r)
		byKey[r.keyID]++
	}
	rows.Close()
	for _, r := range log {
		if r.attempts < 1 || r.code != 200 || !r.delivered {
			t.Errorf("delivery %s: %d attempts, code %d, delivered %v", r.id, r.attempts, r.code, r.delivered)
		}
	}
	for _, id := range created {
		if byKey[id] != len(paths) {
			t.Errorf("key %s (acknowledged) has %d deliveries, want %d", id, byKey[id], len(paths))
		}
	}

	// Every delivery reached its receiver at least once; nothing arrived
	// that is not in the log; every request carries a valid signature.
	got := map[string]int{}
	var msgs []nodeMsg
	for _, m := range rcv.received("") {
		got[m.ID+m.Path]++
		if err := verifyGo(secrets[m.Path], m); err != nil {
			t.Errorf("%s %s: %v", m.Path, m.ID, err)
		}
		msgs = append(msgs, toNode(m.Path+" "+m.ID, secrets[m.Path], m))
	}
	dups := 0
	for _, r := range log {
		n := got[r.id+r.path]
		if n == 0 {
			t.Errorf("delivery %s never reached %s", r.id, r.path)
		}
		if n > 1 {
			dups += n - 1
		}
		delete(got, r.id+r.path)
	}
	for id := range got {
		t.Errorf("received %s, which is not a delivery of the log", id)
	}
	for name, e := range verifyNode(t, msgs) {
		t.Errorf("standardwebhooks rejects %s: %s", name, e)
	}
	t.Logf("%d deliveries, %d requests received, %d duplicates (same webhook-id, after the crash)", len(log), len(rcv.received("")), dups)

	var left int
	db.QueryRow(bg, `SELECT count(*) FROM river_job WHERE queue = 'webhooks' AND state IN ('available', 'running', 'retryable', 'scheduled')`).Scan(&left)
	if left != 0 {
		t.Errorf("%d delivery jobs left in the queue", left)
	}
}
