package main

// End-to-end tests of issue 7: webhook subscriptions, signed deliveries on
// the job queue, retries, dead letters and replay, over the real binary and
// a receiver on the loopback address.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var secretRE = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

// privateTargets lets subscriptions point at the loopback receiver.
const privateTargets = "WEBHOOK_ALLOW_PRIVATE_TARGETS=true"

func TestE2EWebhookSubscriptions(t *testing.T) {
	in := start(t, testEnv(t, privateTargets))
	k := in.key("acme")
	noScope := in.key("acme", "audit")
	other := in.key("globex")
	rcv := newReceiver(t)

	// The catalog: the spec's seven and the service's own events.
	r := in.do("GET", "/api/v1/webhooks", k.Key, nil)
	var list struct {
		OK   bool `json:"ok"`
		Data struct {
			Subscriptions []subOut          `json:"subscriptions"`
			ValidEvents   []string          `json:"valid_events"`
			Catalog       []json.RawMessage `json:"event_catalog"`
		} `json:"data"`
	}
	json.Unmarshal(r.body, &list)
	if r.status != 200 || !list.OK || list.Data.Subscriptions == nil || len(list.Data.Subscriptions) != 0 {
		t.Fatalf("GET /api/v1/webhooks = %d %s", r.status, r.body)
	}
	for _, e := range []string{"kyc.rescreen_completed", "kyc.match_detected", "cluster.entity_added", "cluster.entity_severity_changed",
		"watchlist.match_detected", "adverse_media.match_detected", "report.ready", "api_key.created", "api_key.revoked", "webhook.test"} {
		if !slices.Contains(list.Data.ValidEvents, e) {
			t.Errorf("valid_events lacks %s", e)
		}
	}
	if len(list.Data.Catalog) != len(list.Data.ValidEvents) {
		t.Errorf("event_catalog has %d entries for %d valid events", len(list.Data.Catalog), len(list.Data.ValidEvents))
	}

	// Creation: 201, the secret once under both names, the wh_ id.
	r = in.do("POST", "/api/v1/webhooks", k.Key, map[string]any{
		"url": rcv.url("/a"), "events": []string{"api_key.created"}, "description": "ops channel", "extra": "ignored"})
	if r.status != 201 || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("POST /api/v1/webhooks = %d %s", r.status, r.body)
	}
	var created struct {
		Data subOut `json:"data"`
	}
	json.Unmarshal(r.body, &created)
	s := created.Data
	if !strings.HasPrefix(s.ID, "wh_") || !secretRE.MatchString(s.Secret) || s.SecretPreview != s.Secret ||
		s.DeliveryFormat != "raw" || s.Status != "active" || !s.IsActive {
		t.Errorf("created = %s", r.body)
	}
	r = in.do("GET", "/api/v1/webhooks", k.Key, nil)
	if strings.Contains(string(r.body), s.Secret) || strings.Contains(string(r.body), `"secret"`) {
		t.Errorf("the listing shows the secret: %s", r.body)
	}
	json.Unmarshal(r.body, &list)
	if len(list.Data.Subscriptions) != 1 || list.Data.Subscriptions[0].ID != s.ID {
		t.Errorf("listing = %s", r.body)
	}

	// Bad input: 400 with the field named, nothing stored.
	bad := []struct {
		name  string
		body  any
		field string
	}{
		{"no url", map[string]any{"events": []string{"api_key.created"}}, "url"},
		{"no events", map[string]any{"url": rcv.url("/x")}, "events"},
		{"empty events", map[string]any{"url": rcv.url("/x"), "events": []string{}}, "events"},
		{"unknown event", map[string]any{"url": rcv.url("/x"), "events": []string{"kyc.nope"}}, "events"},
		{"bad format", map[string]any{"url": rcv.url("/x"), "events": []string{"report.ready"}, "delivery_format": "xml"}, "delivery_format"},
		{"events not an array", map[string]any{"url": rcv.url("/x"), "events": "report.ready"}, "events"},
		{"url not a string", map[string]any{"url": 5, "events": []string{"report.ready"}}, "url"},
		{"ftp url", map[string]any{"url": "ftp://example.com/x", "events": []string{"report.ready"}}, "url"},
		{"credentials in url", map[string]any{"url": "https://u:p@example.com/x", "events": []string{"report.ready"}}, "url"},
		{"malformed JSON", `{"url":`, "body"},
	}
	for _, tt := range bad {
		r := in.do("POST", "/api/v1/webhooks", k.Key, tt.body)
		if e := r.errorOf(t); r.status != 400 || e["field"] != tt.field {
			t.Errorf("%s: POST /api/v1/webhooks = %d %s, want 400 naming %s", tt.name, r.status, r.body, tt.field)
		}
	}

	// Scope and environment: a production key with the webhooks scope.
	sb := in.sandboxKey("dev@acme.example")
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/v1/webhooks"}, {"POST", "/api/v1/webhooks"}, {"DELETE", "/api/v1/webhooks/" + s.ID},
		{"POST", "/api/v1/webhooks/" + s.ID + "/test"}, {"GET", "/api/v1/webhooks/events"},
		{"POST", "/api/v1/webhooks/events/00000000-0000-4000-8000-000000000000/replay"},
	} {
		if r := in.do(rt.method, rt.path, noScope.Key, nil); r.status != 403 {
			t.Errorf("%s %s without the webhooks scope = %d, want 403", rt.method, rt.path, r.status)
		}
		if r := in.do(rt.method, rt.path, sb.Key, nil); r.status != 403 {
			t.Errorf("%s %s with a sandbox key = %d, want 403", rt.method, rt.path, r.status)
		}
		if r := in.do(rt.method, rt.path, "", nil); r.status != 401 {
			t.Errorf("%s %s without a key = %d, want 401", rt.method, rt.path, r.status)
		}
	}

	// Another member sees, deletes, tests and replays nothing of acme's.
	d := in.testDelivery(k.Key, s.ID)
	waitFor(t, 20*time.Second, "the test delivery", func() bool { return in.delivery(k.Key, d).Status == "delivered" })
	json.Unmarshal(in.do("GET", "/api/v1/webhooks", other.Key, nil).body, &list)
	if len(list.Data.Subscriptions) != 0 {
		t.Errorf("globex lists acme's subscriptions")
	}
	if ds := in.deliveries(other.Key, ""); len(ds) != 0 {
		t.Errorf("globex lists %d of acme's deliveries", len(ds))
	}
	if ds := in.deliveries(other.Key, "?sub="+s.ID); len(ds) != 0 {
		t.Errorf("globex lists acme's deliveries by sub")
	}
	for _, rt := range []struct{ method, path string }{
		{"DELETE", "/api/v1/webhooks/" + s.ID}, {"POST", "/api/v1/webhooks/" + s.ID + "/test"},
		{"POST", "/api/v1/webhooks/events/" + d + "/replay"},
	} {
		if r := in.do(rt.method, rt.path, other.Key, nil); r.status != 404 {
			t.Errorf("globex %s %s = %d %s, want 404", rt.method, rt.path, r.status, r.body)
		}
	}

	// The log's parameters.
	for _, q := range []string{"?limit=0", "?limit=201", "?limit=ten", "?status=lost", "?sub=wh_nope", "?sub=42"} {
		r := in.do("GET", "/api/v1/webhooks/events"+q, k.Key, nil)
		if r.status != 400 {
			t.Errorf("GET /api/v1/webhooks/events%s = %d, want 400", q, r.status)
		}
	}
	for _, q := range []string{"", "?limit=1", "?limit=200", "?status=delivered", "?sub=" + s.ID, "?sub=" + strings.TrimPrefix(s.ID, "wh_")} {
		if ds := in.deliveries(k.Key, q); len(ds) != 1 || ds[0].ID != d {
			t.Errorf("GET /api/v1/webhooks/events%s = %v, want the one delivery", q, ds)
		}
	}
	if ds := in.deliveries(k.Key, "?status=dlq"); len(ds) != 0 {
		t.Errorf("status=dlq lists %v", ds)
	}
	if r := in.do("POST", "/api/v1/webhooks/events/not-a-uuid/replay", k.Key, nil); r.status != 400 {
		t.Errorf("replay of a bad id = %d, want 400", r.status)
	}
	if r := in.do("POST", "/api/v1/webhooks/events/00000000-0000-4000-8000-000000000000/replay", k.Key, nil); r.status != 404 {
		t.Errorf("replay of an unknown id = %d, want 404", r.status)
	}
	if r := in.do("POST", "/api/v1/webhooks/events/"+d+"/replay", k.Key, nil); r.status != 409 {
		t.Errorf("replay of a delivered row = %d %s, want 409", r.status, r.body)
	}

	// DELETE is soft; the id works with or without wh_.
	if r := in.do("DELETE", "/api/v1/webhooks/nope", k.Key, nil); r.status != 400 {
		t.Errorf("DELETE bad id = %d, want 400", r.status)
	}
	r = in.do("DELETE", "/api/v1/webhooks/"+strings.TrimPrefix(s.ID, "wh_"), k.Key, nil)
	if r.status != 200 || !strings.Contains(string(r.body), `"deleted":true`) {
		t.Errorf("DELETE = %d %s", r.status, r.body)
	}
	if r := in.do("DELETE", "/api/v1/webhooks/"+s.ID, k.Key, nil); r.status != 404 {
		t.Errorf("second DELETE = %d, want 404", r.status)
	}
	json.Unmarshal(in.do("GET", "/api/v1/webhooks", k.Key, nil).body, &list)
	if len(list.Data.Subscriptions) != 0 {
		t.Errorf("a deleted subscription is listed")
	}
	if ds := in.deliveries(k.Key, ""); len(ds) != 1 {
		t.Errorf("after DELETE the log has %d rows, want the delivery kept", len(ds))
	}
	in.key("acme") // an event after the delete
	time.Sleep(500 * time.Millisecond)
	if n := len(rcv.received("/a")); n != 1 {
		t.Errorf("the receiver got %d requests, want only the test delivery before the delete", n)
	}
}

// Targets must be public HTTPS: refused at creation, and refused again at
// delivery time when the policy no longer allows them.
func TestE2EWebhookSSRFPolicy(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	k := in.key("acme")
	for _, url := range []string{
		"http://hooks.example.com/x", // not https
		"https://127.0.0.1/x", "https://127.0.0.2:8443/x", "https://[::1]/x", "https://localhost/x", "https://api.localhost/x",
		"https://10.0.0.1/x", "https://172.16.5.4/x", "https://192.168.1.1/x", "https://100.64.0.1/x",
		"https://169.254.169.254/latest/meta-data/", "https://[fd00:ec2::254]/", "https://[fe80::1]/", "https://224.0.0.1/",
		"https://metadata.google.internal/computeMetadata/v1/", "https://0.0.0.0/", "https://[::ffff:127.0.0.1]/",
	} {
		r := in.do("POST", "/api/v1/webhooks", k.Key, map[string]any{"url": url, "events": []string{"webhook.test"}})
		if e := r.errorOf(t); r.status != 400 || e["field"] != "url" {
			t.Errorf("POST %s = %d %s, want 400 naming url", url, r.status, r.body)
		}
	}

	// A subscription made while private targets were allowed is refused
	// at delivery time once they are not.
	rcv := newReceiver(t)
	in.stop()
	lax := serveOnly(t, append(slices.Clone(env), privateTargets))
	s := lax.subscribe(k.Key, rcv.url("/hook"), "", "webhook.test")
	lax.stop()
	strict := serveOnly(t, append(slices.Clone(env), "WEBHOOK_RETRY_SCHEDULE=1h"))
	d := strict.testDelivery(k.Key, s.ID)
	waitFor(t, 20*time.Second, "the attempt", func() bool { return strict.delivery(k.Key, d).Status == "failed" })
	got := strict.delivery(k.Key, d)
	if got.LastError == nil || !strings.Contains(*got.LastError, "not allowed") || got.ResponseCode != nil {
		t.Errorf("delivery to a loopback target = %+v (last_error %q), want failed as not allowed", got, deref(got.LastError))
	}
	if n := len(rcv.received("")); n != 0 {
		t.Errorf("the loopback receiver got %d requests", n)
	}
}

// Events from key changes on every surface (REST, GraphQL, CLI) and test
// deliveries reach the member's subscriptions in all three formats, signed
// so that the Standard Webhooks reference library verifies them.
func TestE2EWebhookDeliveriesVerifyWithStandardWebhooks(t *testing.T) {
	in := start(t, testEnv(t, privateTargets))
	k := in.key("acme")
	rcv := newReceiver(t)
	raw := in.subscribe(k.Key, rcv.url("/raw"), "raw", "api_key.created", "api_key.revoked", "webhook.test")
	slack := in.subscribe(k.Key, rcv.url("/slack"), "slack", "api_key.created")
	teams := in.subscribe(k.Key, rcv.url("/teams"), "teams", "api_key.created")
	secrets := map[string]string{"/raw": raw.Secret, "/slack": slack.Secret, "/teams": teams.Secret}

	// Member globex's events never reach acme's receiver.
	other := in.key("globex")
	in.do("POST", "/api/v1/keys", other.Key, map[string]any{"name": "globex's"})

	// Created on each surface...
	var created []string
	r := in.do("POST", "/api/v1/keys", k.Key, map[string]any{"name": "rest"})
	var ko keyOut
	json.Unmarshal(r.body, &ko)
	created = append(created, ko.KeyID)
	r = in.gql(k.Key, `mutation { createApiKey(input: {name: "graphql"}) { apiKey { id } } }`, nil)
	var gq struct {
		Data struct {
			CreateAPIKey struct{ APIKey struct{ ID string } } `json:"createApiKey"`
		}
	}
	json.Unmarshal(r.body, &gq)
	created = append(created, gq.Data.CreateAPIKey.APIKey.ID)
	created = append(created, in.key("acme").KeyID) // the CLI
	// ...and revoked on each.
	in.do("DELETE", "/api/v1/keys?id="+created[0], k.Key, nil)
	in.gql(k.Key, `mutation($id: UUID!) { revokeApiKey(id: $id) { revoked } }`, map[string]any{"id": created[1]})
	runCLI(t, in.env, "keys", "revoke", "--member", "acme", "--id", created[2])
	test := in.testDelivery(k.Key, raw.ID)

	waitFor(t, 30*time.Second, "13 deliveries", func() bool {
		return len(rcv.received("/raw")) == 7 && len(rcv.received("/slack")) == 3 && len(rcv.received("/teams")) == 3
	})
	time.Sleep(300 * time.Millisecond)
	if n := len(rcv.received("")); n != 13 {
		t.Errorf("the receiver got %d requests, want 13 (globex's event must not arrive)", n)
	}

	log := in.deliveries(k.Key, "?limit=200")
	byID := map[string]deliveryOut{}
	for _, d := range log {
		byID[d.ID] = d
	}
	var msgs []nodeMsg
	types := map[string]int{}
	for _, m := range rcv.received("") {
		d, ok := byID[m.ID]
		if !ok {
			t.Errorf("webhook-id %s is not a delivery in the log", m.ID)
			continue
		}
		if d.Status != "delivered" || d.AttemptCount != 1 || d.ResponseCode == nil || *d.ResponseCode != 200 {
			t.Errorf("delivery %s = %+v, want delivered at the first attempt with 200", d.ID, d)
		}
		if m.Type != "application/json" || !strings.HasPrefix(m.UserAgent, "compliance-webhooks/") {
			t.Errorf("headers: Content-Type %q, User-Agent %q", m.Type, m.UserAgent)
		}
		if err := verifyGo(secrets[m.Path], m); err != nil {
			t.Errorf("%s %s: %v", m.Path, m.ID, err)
		}
		msgs = append(msgs, toNode(m.Path+" "+m.ID, secrets[m.Path], m))
		var body map[string]any
		json.Unmarshal(m.Body, &body)
		switch m.Path {
		case "/raw":
			types[body["type"].(string)]++
			data := body["data"].(map[string]any)
			if body["id"] != d.EventID || body["type"] != d.EventType {
				t.Errorf("raw body %s does not match its log row %+v", m.Body, d)
			}
			if body["type"] != "webhook.test" && !slices.Contains(created, data["key_id"].(string)) {
				t.Errorf("raw body names key %v, not one acme changed", data["key_id"])
			}
			if body["type"] == "webhook.test" && (m.ID != test || data["subscription_id"] != raw.ID) {
				t.Errorf("test delivery = %s (id %s), want delivery %s to %s", m.Body, m.ID, test, raw.ID)
			}
		case "/slack":
			if _, ok := body["blocks"].([]any); !ok || !strings.HasPrefix(body["text"].(string), "API key created") {
				t.Errorf("slack body = %s", m.Body)
			}
		case "/teams":
			att, _ := body["attachments"].([]any)
			if body["type"] != "message" || len(att) != 1 || att[0].(map[string]any)["contentType"] != "application/vnd.microsoft.card.adaptive" {
				t.Errorf("teams body = %s", m.Body)
			}
		}
	}
	if types["api_key.created"] != 3 || types["api_key.revoked"] != 3 || types["webhook.test"] != 1 {
		t.Errorf("raw event types = %v, want 3 created, 3 revoked, 1 test", types)
	}

	// The reference library accepts every delivery, and rejects a tampered
	// body and a wrong secret (so that its verdicts mean something).
	first := rcv.received("/raw")[0]
	tampered := first
	tampered.Body = []byte(strings.Replace(string(first.Body), `"type"`, `"typ\u0065"`, 1))
	msgs = append(msgs, toNode("tampered", raw.Secret, tampered), toNode("wrong secret", slack.Secret, first))
	failed := verifyNode(t, msgs)
	if _, ok := failed["tampered"]; !ok {
		t.Errorf("the library accepted a tampered body")
	}
	if _, ok := failed["wrong secret"]; !ok {
		t.Errorf("the library accepted a wrong secret")
	}
	delete(failed, "tampered")
	delete(failed, "wrong secret")
	for name, e := range failed {
		t.Errorf("standardwebhooks rejects %s: %s", name, e)
	}

	// Metrics: outcomes and queue depth.
	metrics := string(in.do("GET", "/metrics", "", nil).body)
	for _, want := range []string{`compliance_webhook_attempts_total{class="2xx",outcome="delivered"} 13`,
		`compliance_webhook_deliveries_total{status="delivered"} 13`, `compliance_job_queue_depth{queue="webhooks",state="available"}`,
		`compliance_webhook_deliveries_undelivered{status="dlq"} 0`, "compliance_webhook_first_attempt_delay_seconds_count 13"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// 429, 5xx and timeouts retry on the schedule with the same webhook-id; the
// last failure dead-letters; replay re-queues a dlq row only; 410 disables.
func TestE2EWebhookRetriesDeadLettersAndReplay(t *testing.T) {
	in := start(t, testEnv(t, privateTargets, "WEBHOOK_RETRY_SCHEDULE=300ms,300ms", "WEBHOOK_TIMEOUT=700ms"))
	k := in.key("acme")
	rcv := newReceiver(t)
	rcv.setStatus(func(path string, nth int) int {
		switch path {
		case "/fail":
			return 500
		case "/gone":
			return 410
		case "/busy":
			if nth == 1 {
				return 429
			}
		case "/slow":
			if nth == 1 {
				time.Sleep(1500 * time.Millisecond) // past WEBHOOK_TIMEOUT
			}
		}
		return 200
	})
	subs := map[string]subOut{}
	ids := map[string]string{}
	for _, p := range []string{"/fail", "/gone", "/busy", "/slow"} {
		subs[p] = in.subscribe(k.Key, rcv.url(p), "", "webhook.test")
		ids[p] = in.testDelivery(k.Key, subs[p].ID)
	}
	final := func(id string) func() bool {
		return func() bool { s := in.delivery(k.Key, id).Status; return s == "delivered" || s == "dlq" }
	}
	for p, id := range ids {
		waitFor(t, 30*time.Second, p+" to reach a final state", final(id))
	}
	tests := []struct {
		path     string
		status   string
		attempts int
		code     int
	}{
		{"/fail", "dlq", 3, 500},
		{"/gone", "dlq", 1, 410},
		{"/busy", "delivered", 2, 200},
		{"/slow", "delivered", 2, 200},
	}
	for _, tt := range tests {
		d := in.delivery(k.Key, ids[tt.path])
		if d.Status != tt.status || d.AttemptCount != tt.attempts || d.ResponseCode == nil || *d.ResponseCode != tt.code {
			t.Errorf("%s: %+v, want %s after %d attempts with %d", tt.path, d, tt.status, tt.attempts, tt.code)
		}
		got := rcv.received(tt.path)
		if len(got) != tt.attempts {
			t.Errorf("%s: the receiver got %d attempts, want %d", tt.path, len(got), tt.attempts)
		}
		for _, m := range got {
			if m.ID != ids[tt.path] {
				t.Errorf("%s: webhook-id %s, want %s on every attempt", tt.path, m.ID, ids[tt.path])
			}
			if err := verifyGo(subs[tt.path].Secret, m); err != nil {
				t.Errorf("%s: %v", tt.path, err)
			}
		}
	}
	// The retries follow the schedule: about 300 ms apart (±20%).
	if got := rcv.received("/fail"); len(got) == 3 {
		for i := 1; i < 3; i++ {
			if gap := got[i].At.Sub(got[i-1].At); gap < 200*time.Millisecond || gap > 3*time.Second {
				t.Errorf("attempt %d came %s after the previous one, want about 300ms", i+1, gap)
			}
		}
	}

	// Replay: 409 unless dlq, then {queued_at} and a fresh start.
	if r := in.do("POST", "/api/v1/webhooks/events/"+ids["/busy"]+"/replay", k.Key, nil); r.status != 409 {
		t.Errorf("replay of a delivered row = %d, want 409", r.status)
	}
	rcv.setStatus(nil) // the receiver recovers
	r := in.do("POST", "/api/v1/webhooks/events/"+ids["/fail"]+"/replay", k.Key, nil)
	var rep struct {
		Data struct {
			QueuedAt time.Time `json:"queued_at"`
		} `json:"data"`
	}
	json.Unmarshal(r.body, &rep)
	if r.status != 200 || rep.Data.QueuedAt.IsZero() || time.Since(rep.Data.QueuedAt) > time.Minute {
		t.Fatalf("replay = %d %s", r.status, r.body)
	}
	waitFor(t, 20*time.Second, "the replayed delivery", func() bool { return in.delivery(k.Key, ids["/fail"]).Status == "delivered" })
	if d := in.delivery(k.Key, ids["/fail"]); d.AttemptCount != 1 || d.LastError != nil {
		t.Errorf("replayed delivery = %+v, want delivered at its first attempt after the reset", d)
	}
	if n := len(rcv.received("/fail")); n != 4 {
		t.Errorf("/fail got %d requests, want 3 + 1 after the replay", n)
	}

	// 410 disabled the subscription: listed as such; no more deliveries.
	var list struct {
		Data struct {
			Subscriptions []struct {
				ID, Status     string
				IsActive       bool    `json:"is_active"`
				DisabledReason *string `json:"disabled_reason"`
			} `json:"subscriptions"`
		} `json:"data"`
	}
	json.Unmarshal(in.do("GET", "/api/v1/webhooks", k.Key, nil).body, &list)
	for _, s := range list.Data.Subscriptions {
		if s.ID == subs["/gone"].ID && (s.Status != "disabled" || s.IsActive || s.DisabledReason == nil) {
			t.Errorf("subscription answered 410 = %+v, want disabled", s)
		}
	}
	if r := in.do("POST", "/api/v1/webhooks/"+subs["/gone"].ID+"/test", k.Key, nil); r.status != 409 {
		t.Errorf("test to a disabled subscription = %d, want 409", r.status)
	}
	if r := in.do("POST", "/api/v1/webhooks/events/"+ids["/gone"]+"/replay", k.Key, nil); r.status != 409 {
		t.Errorf("replay to a disabled subscription = %d, want 409", r.status)
	}
	if ds := in.deliveries(k.Key, "?status=dlq"); len(ds) != 1 || ds[0].ID != ids["/gone"] {
		t.Errorf("status=dlq = %+v, want the 410 row", ds)
	}
	metrics := string(in.do("GET", "/metrics", "", nil).body)
	for _, want := range []string{`compliance_webhook_attempts_total{class="5xx",outcome="retry"} 3`, `compliance_webhook_attempts_total{class="410",outcome="gone"} 1`,
		`compliance_webhook_attempts_total{class="429",outcome="retry"} 1`, `compliance_webhook_attempts_total{class="timeout",outcome="retry"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// A receiver that is down for a while gets every event once it is back.
func TestE2EWebhookReceiverDownThenBack(t *testing.T) {
	in := start(t, testEnv(t, privateTargets, "WEBHOOK_RETRY_SCHEDULE=500ms,1s,1s,2s,2s,2s,2s,2s,2s,2s"))
	k := in.key("acme")
	rcv := newReceiver(t)
	s := in.subscribe(k.Key, rcv.url("/hook"), "", "api_key.created", "webhook.test")
	rcv.down()
	var want []string
	for i := range 20 {
		r := in.do("POST", "/api/v1/keys", k.Key, map[string]any{"name": fmt.Sprintf("while down %d", i)})
		var ko keyOut
		json.Unmarshal(r.body, &ko)
		want = append(want, ko.KeyID)
	}
	waitFor(t, 20*time.Second, "every delivery to fail at least once", func() bool {
		ds := in.deliveries(k.Key, "?status=failed&limit=200")
		return len(ds) == 20
	})
	time.Sleep(2 * time.Second) // down "for a while": several attempts each
	rcv.up()
	waitFor(t, 60*time.Second, "every delivery after the receiver is back", func() bool {
		return len(in.deliveries(k.Key, "?status=delivered&limit=200")) == 20
	})
	got := map[string]bool{}
	for _, m := range rcv.received("/hook") {
		if err := verifyGo(s.Secret, m); err != nil {
			t.Errorf("%s: %v", m.ID, err)
		}
		var body struct {
			Data struct {
				KeyID string `json:"key_id"`
			} `json:"data"`
		}
		json.Unmarshal(m.Body, &body)
		got[body.Data.KeyID] = true
	}
	for _, id := range want {
		if !got[id] {
			t.Errorf("the event of key %s never arrived", id)
		}
	}
	for _, d := range in.deliveries(k.Key, "?limit=200") {
		if d.AttemptCount < 2 {
			t.Errorf("delivery %s succeeded at attempt %d, though the receiver was down at first", d.ID, d.AttemptCount)
		}
	}
}

func TestE2EWebhookGraphQL(t *testing.T) {
	in := start(t, testEnv(t, privateTargets))
	k := in.key("acme")
	other := in.key("globex")
	noScope := in.key("acme", "audit")
	rcv := newReceiver(t)

	r := in.gql(k.Key, `mutation($in: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $in) {
		secret subscription { id url events deliveryFormat status isActive description } } }`,
		map[string]any{"in": map[string]any{"url": rcv.url("/g"), "events": []string{"webhook.test", "api_key.revoked"}, "deliveryFormat": "teams", "description": "gql"}})
	var created struct {
		Data struct {
			Create struct {
				Secret       string
				Subscription struct {
					ID, URL, DeliveryFormat, Status, Description string
					Events                                       []string
					IsActive                                     bool
				}
			} `json:"createWebhookSubscription"`
		}
	}
	json.Unmarshal(r.body, &created)
	sub := created.Data.Create.Subscription
	if !secretRE.MatchString(created.Data.Create.Secret) || !strings.HasPrefix(sub.ID, "wh_") || sub.DeliveryFormat != "teams" ||
		sub.Status != "active" || !sub.IsActive || len(sub.Events) != 2 {
		t.Fatalf("createWebhookSubscription = %s", r.body)
	}
	r = in.gql(k.Key, `mutation($id: ID!) { testWebhookSubscription(id: $id) { id status subscriptionId eventType attemptCount } }`, map[string]any{"id": sub.ID})
	var tested struct {
		Data struct {
			Test struct{ ID, Status, SubscriptionID, EventType string } `json:"testWebhookSubscription"`
		}
	}
	json.Unmarshal(r.body, &tested)
	if tested.Data.Test.Status != "pending" || tested.Data.Test.SubscriptionID != sub.ID || tested.Data.Test.EventType != "webhook.test" {
		t.Fatalf("testWebhookSubscription = %s", r.body)
	}
	waitFor(t, 20*time.Second, "the delivery", func() bool { return len(rcv.received("/g")) == 1 })
	waitFor(t, 10*time.Second, "the log", func() bool { return in.delivery(k.Key, tested.Data.Test.ID).Status == "delivered" })
	if err := verifyGo(created.Data.Create.Secret, rcv.received("/g")[0]); err != nil {
		t.Error(err)
	}

	r = in.gql(k.Key, `query($sub: ID) { webhookSubscriptions { id } webhookEventTypes { name live example }
		webhookDeliveries(status: delivered, subscriptionId: $sub, limit: 10) { id status attemptCount responseCode eventType subscriptionId lastError } }`,
		map[string]any{"sub": strings.TrimPrefix(sub.ID, "wh_")})
	var q struct {
		Data struct {
			Subs       []struct{ ID string } `json:"webhookSubscriptions"`
			EventTypes []struct {
				Name    string
				Live    bool
				Example string
			} `json:"webhookEventTypes"`
			Deliveries []struct {
				ID, Status   string
				AttemptCount int
				ResponseCode *int
			} `json:"webhookDeliveries"`
		}
	}
	json.Unmarshal(r.body, &q)
	if len(q.Data.Subs) != 1 || len(q.Data.EventTypes) < 10 || len(q.Data.Deliveries) != 1 || q.Data.Deliveries[0].AttemptCount != 1 ||
		q.Data.Deliveries[0].ResponseCode == nil || *q.Data.Deliveries[0].ResponseCode != 200 {
		t.Errorf("queries = %s", r.body)
	}
	for _, e := range q.Data.EventTypes {
		if !json.Valid([]byte(e.Example)) {
			t.Errorf("%s example is not JSON: %s", e.Name, e.Example)
		}
	}

	// Errors: a replay not in dlq is a conflict; another member's is
	// not found; bad input names the argument; the scope is checked.
	codes := func(r response) []string { return gqlErrorCodes(t, r) }
	const replay = `mutation($id: UUID!) { replayWebhookDelivery(id: $id) { queuedAt } }`
	if c := codes(in.gql(k.Key, replay, map[string]any{"id": tested.Data.Test.ID})); !slices.Equal(c, []string{"conflict"}) {
		t.Errorf("replay of a delivered row: codes %v, want conflict", c)
	}
	if c := codes(in.gql(other.Key, replay, map[string]any{"id": tested.Data.Test.ID})); !slices.Equal(c, []string{"not_found"}) {
		t.Errorf("replay of another member's row: codes %v, want not_found", c)
	}
	r = in.gql(k.Key, `mutation { createWebhookSubscription(input: {url: "ftp://x.example", events: ["webhook.test"]}) { secret } }`, nil)
	if msg, ext := gqlError(t, r); ext["code"] != "invalid" || ext["field"] != "input.url" {
		t.Errorf("bad url: %s %v, want invalid naming input.url", msg, ext)
	}
	if c := codes(in.gql(noScope.Key, `{ webhookSubscriptions { id } }`, nil)); !slices.Equal(c, []string{"forbidden"}) {
		t.Errorf("without the webhooks scope: codes %v, want forbidden", c)
	}
	r = in.gql(other.Key, `{ webhookSubscriptions { id } webhookDeliveries { id } }`, nil)
	if strings.Contains(string(r.body), sub.ID) || strings.Contains(string(r.body), tested.Data.Test.ID) {
		t.Errorf("globex sees acme's webhooks: %s", r.body)
	}
	if c := codes(in.gql(other.Key, `mutation($id: ID!) { deleteWebhookSubscription(id: $id) { id } }`, map[string]any{"id": sub.ID})); !slices.Equal(c, []string{"not_found"}) {
		t.Errorf("globex deletes acme's subscription: codes %v, want not_found", c)
	}
	r = in.gql(k.Key, `mutation($id: ID!) { deleteWebhookSubscription(id: $id) { id status isActive } }`, map[string]any{"id": sub.ID})
	if !strings.Contains(string(r.body), `"status":"deleted"`) {
		t.Errorf("deleteWebhookSubscription = %s", r.body)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
