package relational_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/webhooks"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

// subscribe stores a subscription of member to events at url.
func subscribe(t *testing.T, db *relational.DB, member, url string, events ...string) webhooks.Subscription {
	t.Helper()
	s := webhooks.Subscription{ID: graph.NewID(), MemberID: member, URL: url, Events: events, Format: webhooks.FormatRaw,
		Secret: webhooks.NewSecret(), CreatedAt: time.Now().UTC()}
	if err := db.CreateSubscription(context.Background(), s, webhooks.MaxSubscriptions); err != nil {
		t.Fatal(err)
	}
	return s
}

// count returns a count(*) query's answer.
func count(t *testing.T, db *relational.DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Key changes and their events commit together: the event, one delivery
// per subscription of the member that lists it, and one River job per
// delivery; nothing for other members or other event types.
func TestKeyEventsAreOutboxedWithTheChange(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	keys := &graph.Keys{Store: db}
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	b, _ := db.EnsureMember(ctx, "member-b", graph.ProductionScopes)
	subA := subscribe(t, db, a.ID, "https://a.example/hook", graph.EventAPIKeyCreated, graph.EventAPIKeyRevoked)
	subscribe(t, db, a.ID, "https://a.example/tests", graph.EventWebhookTest) // wants no key events
	subB := subscribe(t, db, b.ID, "https://b.example/hook", graph.EventAPIKeyCreated)

	k, err := keys.Create(ctx, graph.CreateRequest{MemberID: a.ID, PlanScopes: a.PlanScopes, Name: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	deliveries := func(sub string) int {
		return count(t, db, `SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1`, sub)
	}
	jobs := func() int {
		return count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery' AND queue = 'webhooks'`)
	}
	if n := deliveries(subA.ID); n != 1 {
		t.Fatalf("after CreateKey: %d deliveries to a's subscription, want 1", n)
	}
	if n := deliveries(subB.ID); n != 0 {
		t.Errorf("member b's subscription got %d deliveries of a's event", n)
	}
	if n := jobs(); n != 1 {
		t.Errorf("river jobs = %d, want 1", n)
	}
	var typ, payload string
	db.Pool.QueryRow(ctx, `SELECT e.type, e.payload::text FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE d.subscription_id = $1`, subA.ID).Scan(&typ, &payload)
	if typ != graph.EventAPIKeyCreated || !strings.Contains(payload, k.ID) || strings.Contains(payload, k.Raw) {
		t.Errorf("event = %s %s; want api_key.created naming the key, without the raw key", typ, payload)
	}

	if was, err := db.RevokeKey(ctx, a.ID, k.ID); err != nil || !was {
		t.Fatalf("RevokeKey = %v, %v", was, err)
	}
	if was, _ := db.RevokeKey(ctx, a.ID, k.ID); was {
		t.Fatal("second RevokeKey reported the key active")
	}
	if n := deliveries(subA.ID); n != 2 {
		t.Errorf("after a revoke and a repeated revoke: %d deliveries, want 2 (no event for a key already revoked)", n)
	}
	if n := count(t, db, `SELECT count(*) FROM webhook_events WHERE type = 'api_key.revoked'`); n != 1 {
		t.Errorf("api_key.revoked events = %d, want 1", n)
	}

	// Member b's key goes to b's subscription only.
	if _, err := keys.Create(ctx, graph.CreateRequest{MemberID: b.ID, PlanScopes: b.PlanScopes, Name: "b"}); err != nil {
		t.Fatal(err)
	}
	if deliveries(subB.ID) != 1 || deliveries(subA.ID) != 2 {
		t.Errorf("member b's event: deliveries b=%d a=%d, want 1 and 2", deliveries(subB.ID), deliveries(subA.ID))
	}

	// An event no subscription wants is not recorded at all.
	c, _ := db.EnsureMember(ctx, "member-c", graph.ProductionScopes)
	before := count(t, db, `SELECT count(*) FROM webhook_events`)
	keys.Create(ctx, graph.CreateRequest{MemberID: c.ID, PlanScopes: c.PlanScopes, Name: "c"})
	if after := count(t, db, `SELECT count(*) FROM webhook_events`); after != before {
		t.Errorf("an event without subscribers was recorded (%d -> %d)", before, after)
	}

	// A deleted subscription gets no new deliveries.
	if _, err := db.DeleteSubscription(ctx, a.ID, subA.ID); err != nil {
		t.Fatal(err)
	}
	keys.Create(ctx, graph.CreateRequest{MemberID: a.ID, PlanScopes: a.PlanScopes, Name: "after delete"})
	if n := deliveries(subA.ID); n != 2 {
		t.Errorf("deleted subscription: %d deliveries, want still 2", n)
	}
}

// When the job cannot be queued, the key is not created either: the change,
// its event and its jobs are one transaction.
func TestKeyChangeRollsBackWithItsEvent(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	keys := &graph.Keys{Store: db}
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	subscribe(t, db, a.ID, "https://a.example/hook", graph.EventAPIKeyCreated, graph.EventAPIKeyRevoked)
	k, err := keys.Create(ctx, graph.CreateRequest{MemberID: a.ID, PlanScopes: a.PlanScopes, Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	// Break the job queue: enqueueing now fails.
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE river_job RENAME TO river_job_away`); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Create(ctx, graph.CreateRequest{MemberID: a.ID, PlanScopes: a.PlanScopes, Name: "lost"}); err == nil {
		t.Fatal("CreateKey succeeded though its job could not be queued")
	}
	if _, err := db.RevokeKey(ctx, a.ID, k.ID); err == nil {
		t.Fatal("RevokeKey succeeded though its job could not be queued")
	}
	db.Pool.Exec(ctx, `ALTER TABLE river_job_away RENAME TO river_job`)
	if n := count(t, db, `SELECT count(*) FROM api_keys WHERE name = 'lost'`); n != 0 {
		t.Errorf("the key whose event failed was stored")
	}
	if n := count(t, db, `SELECT count(*) FROM api_keys WHERE id = $1 AND is_active`, k.ID); n != 1 {
		t.Errorf("the revoke whose event failed took effect")
	}
	if n := count(t, db, `SELECT count(*) FROM webhook_events`); n != 1 {
		t.Errorf("webhook_events = %d, want only the first key's", n)
	}
}

func TestDeliveryLogReplayAndDelete(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	b, _ := db.EnsureMember(ctx, "member-b", graph.ProductionScopes)
	sub := subscribe(t, db, a.ID, "https://a.example/hook", graph.EventWebhookTest)
	other := subscribe(t, db, a.ID, "https://a.example/other", graph.EventWebhookTest)
	svc := &webhooks.Service{Store: db}

	var ids []string
	for range 3 {
		d, err := svc.Test(ctx, a.ID, sub.PublicID())
		if err != nil {
			t.Fatal(err)
		}
		if d.Status != webhooks.StatusPending || d.AttemptCount != 0 || d.EventType != graph.EventWebhookTest || d.SubscriptionID != sub.ID {
			t.Fatalf("Test = %+v", d)
		}
		ids = append(ids, d.ID)
	}
	if _, err := svc.Test(ctx, a.ID, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Test(ctx, b.ID, sub.ID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("Test of another member's subscription = %v, want not_found", err)
	}

	list := func(member string, req webhooks.ListRequest) []webhooks.Delivery {
		t.Helper()
		ds, err := svc.Deliveries(ctx, member, req)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	if ds := list(a.ID, webhooks.ListRequest{}); len(ds) != 4 || ds[3].ID != ids[0] {
		t.Errorf("list = %d rows (first %v), want 4, newest first", len(ds), ds)
	}
	if ds := list(a.ID, webhooks.ListRequest{Sub: sub.PublicID()}); len(ds) != 3 {
		t.Errorf("list sub = %d rows, want 3", len(ds))
	}
	two := 2
	if ds := list(a.ID, webhooks.ListRequest{Limit: &two}); len(ds) != 2 {
		t.Errorf("list limit 2 = %d rows", len(ds))
	}
	if ds := list(b.ID, webhooks.ListRequest{}); len(ds) != 0 {
		t.Errorf("member b sees %d of a's deliveries", len(ds))
	}

	// Replay: only dlq rows; not another member's; unknown is not_found.
	if _, err := svc.Replay(ctx, a.ID, ids[0]); graph.ErrorCode(err) != graph.CodeConflict {
		t.Errorf("Replay(pending) = %v, want conflict", err)
	}
	db.Pool.Exec(ctx, `UPDATE webhook_deliveries SET status = 'dlq', attempt_count = 14, response_code = 503, last_error = 'HTTP 503' WHERE id = $1`, ids[0])
	if _, err := svc.Replay(ctx, b.ID, ids[0]); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("Replay(other member's) = %v, want not_found", err)
	}
	if _, err := svc.Replay(ctx, a.ID, graph.NewID()); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("Replay(unknown) = %v, want not_found", err)
	}
	jobsBefore := count(t, db, `SELECT count(*) FROM river_job WHERE args->>'delivery_id' = $1`, ids[0])
	at, err := svc.Replay(ctx, a.ID, ids[0])
	if err != nil || at.IsZero() || time.Since(at) > time.Minute {
		t.Fatalf("Replay(dlq) = %v, %v", at, err)
	}
	ds := list(a.ID, webhooks.ListRequest{Status: "pending", Sub: sub.ID})
	var got *webhooks.Delivery
	for i := range ds {
		if ds[i].ID == ids[0] {
			got = &ds[i]
		}
	}
	if got == nil || got.AttemptCount != 0 || got.ResponseCode != nil || got.LastError != "" || !got.QueuedAt.Equal(at) {
		t.Errorf("replayed row = %+v, want pending with attempt count 0 and queued_at %s", got, at)
	}
	if n := count(t, db, `SELECT count(*) FROM river_job WHERE args->>'delivery_id' = $1 AND (args->>'generation')::int = 1`, ids[0]); n != 1 || jobsBefore != 1 {
		t.Errorf("jobs for the replayed delivery: %d before, %d of generation 1 after; want 1 and 1", jobsBefore, n)
	}
	if _, err := svc.Replay(ctx, a.ID, ids[0]); graph.ErrorCode(err) != graph.CodeConflict {
		t.Errorf("second Replay = %v, want conflict (no longer in dlq)", err)
	}

	// Delete is soft: queued deliveries are dead-lettered, rows stay.
	if _, err := svc.Delete(ctx, b.ID, sub.ID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("Delete(other member's) = %v, want not_found", err)
	}
	del, err := svc.Delete(ctx, a.ID, sub.PublicID())
	if err != nil || del.DeletedAt == nil || del.Status() != "deleted" {
		t.Fatalf("Delete = %+v, %v", del, err)
	}
	if _, err := svc.Delete(ctx, a.ID, sub.ID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("second Delete = %v, want not_found", err)
	}
	subs, _ := svc.List(ctx, a.ID)
	if len(subs) != 1 || subs[0].ID != other.ID {
		t.Errorf("List after delete = %v, want only the other subscription", subs)
	}
	ds = list(a.ID, webhooks.ListRequest{Sub: sub.ID})
	for _, d := range ds {
		if d.Status != webhooks.StatusDLQ || d.LastError != "the subscription was deleted" {
			t.Errorf("delivery of a deleted subscription = %s %q, want dlq", d.Status, d.LastError)
		}
	}
	if len(ds) != 3 {
		t.Errorf("deliveries of the deleted subscription = %d, want 3 kept", len(ds))
	}
	if _, err := svc.Replay(ctx, a.ID, ids[1]); graph.ErrorCode(err) != graph.CodeConflict {
		t.Errorf("Replay(dlq of a deleted subscription) = %v, want conflict", err)
	}
	if _, err := svc.Test(ctx, a.ID, sub.ID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("Test(deleted subscription) = %v, want not_found", err)
	}
}

func TestSubscriptionLimit(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := webhooks.Subscription{ID: graph.NewID(), MemberID: a.ID, URL: fmt.Sprintf("https://a.example/%d", i),
				Events: []string{"webhook.test"}, Format: webhooks.FormatRaw, Secret: webhooks.NewSecret(), CreatedAt: time.Now()}
			errs <- db.CreateSubscription(ctx, s, 5)
		}()
	}
	wg.Wait()
	close(errs)
	ok, conflict := 0, 0
	for err := range errs {
		switch graph.ErrorCode(err) {
		case "":
			ok++
		case graph.CodeConflict:
			conflict++
		default:
			t.Error(err)
		}
	}
	if ok != 5 || conflict != 3 {
		t.Errorf("8 concurrent creations under a limit of 5: %d ok, %d conflict", ok, conflict)
	}
}

// scriptedSender answers per URL from a script of statuses (the last one
// repeats) and records every request.
type scriptedSender struct {
	mu      sync.Mutex
	scripts map[string][]int
	reqs    map[string][]webhooks.Request
}

func (s *scriptedSender) Send(_ context.Context, r webhooks.Request) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs[r.URL] = append(s.reqs[r.URL], r)
	sc := s.scripts[r.URL]
	st := sc[0]
	if len(sc) > 1 {
		s.scripts[r.URL] = sc[1:]
	}
	if st == 0 {
		return 0, &webhooks.SendError{Kind: "connect", Message: "connection refused"}
	}
	return st, nil
}

func (s *scriptedSender) requests(url string) []webhooks.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]webhooks.Request(nil), s.reqs[url]...)
}

func (s *scriptedSender) set(url string, statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[url] = statuses
}

// The delivery workers on River: retries on the schedule, then dlq; 410
// disables the subscription; the same webhook-id on every attempt; replay
// starts over.
func TestDeliveryWorker(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	snd := &scriptedSender{scripts: map[string][]int{}, reqs: map[string][]webhooks.Request{}}
	urls := map[string][]int{
		"https://ok.example/":    {200},
		"https://flaky.example/": {500, 0, 200}, // 500, connection refused, then 200
		"https://down.example/":  {503},
		"https://gone.example/":  {410},
	}
	subs := map[string]webhooks.Subscription{}
	for u, sc := range urls {
		snd.set(u, sc...)
		subs[u] = subscribe(t, db, a.ID, u, graph.EventWebhookTest)
	}
	sched, _ := webhooks.ParseSchedule("50ms,50ms") // 3 attempts
	w, err := db.StartWebhookWorkers(ctx, relational.WebhookWorkerConfig{
		Deliverer: &webhooks.Deliverer{Sender: snd}, Schedule: sched, Workers: 4, SendTimeout: time.Second,
		StopTimeout: 5 * time.Second, Logger: nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Stop(context.Background()) })
	svc := &webhooks.Service{Store: db}
	ids := map[string]string{}
	for u, s := range subs {
		d, err := svc.Test(ctx, a.ID, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		ids[u] = d.ID
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	row := func(id string) webhooks.Delivery {
		t.Helper()
		ds, err := svc.Deliveries(ctx, a.ID, webhooks.ListRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.ID == id {
				return d
			}
		}
		t.Fatalf("delivery %s not listed", id)
		return webhooks.Delivery{}
	}
	final := func(id string) func() bool {
		return func() bool { s := row(id).Status; return s == webhooks.StatusDelivered || s == webhooks.StatusDLQ }
	}
	for u, id := range ids {
		waitFor(u+" to reach a final state", final(id))
	}
	tests := []struct {
		url      string
		status   webhooks.Status
		attempts int
		code     int
	}{
		{"https://ok.example/", webhooks.StatusDelivered, 1, 200},
		{"https://flaky.example/", webhooks.StatusDelivered, 3, 200},
		{"https://down.example/", webhooks.StatusDLQ, 3, 503},
		{"https://gone.example/", webhooks.StatusDLQ, 1, 410},
	}
	for _, tt := range tests {
		d := row(ids[tt.url])
		if d.Status != tt.status || d.AttemptCount != tt.attempts || d.ResponseCode == nil || *d.ResponseCode != tt.code {
			t.Errorf("%s: delivery = %s after %d attempts (code %v, %q); want %s after %d (code %d)",
				tt.url, d.Status, d.AttemptCount, d.ResponseCode, d.LastError, tt.status, tt.attempts, tt.code)
		}
		reqs := snd.requests(tt.url)
		if len(reqs) != tt.attempts {
			t.Errorf("%s: %d requests, want %d", tt.url, len(reqs), tt.attempts)
		}
		for _, r := range reqs {
			if r.Header[webhooks.HeaderID] != ids[tt.url] {
				t.Errorf("%s: webhook-id %s, want the delivery id %s on every attempt", tt.url, r.Header[webhooks.HeaderID], ids[tt.url])
			}
		}
	}
	if d := row(ids["https://down.example/"]); !strings.Contains(d.LastError, "dead-lettered") {
		t.Errorf("dlq row last_error = %q", d.LastError)
	}
	// 410 disabled the subscription: listed as disabled, no more deliveries.
	list, _ := svc.List(ctx, a.ID)
	for _, s := range list {
		want := "active"
		if s.URL == "https://gone.example/" {
			want = "disabled"
		}
		if s.Status() != want {
			t.Errorf("subscription %s status = %s, want %s", s.URL, s.Status(), want)
		}
	}
	if _, err := svc.Test(ctx, a.ID, subs["https://gone.example/"].ID); graph.ErrorCode(err) != graph.CodeConflict {
		t.Errorf("Test(disabled subscription) = %v, want conflict", err)
	}
	if _, err := svc.Replay(ctx, a.ID, ids["https://gone.example/"]); graph.ErrorCode(err) != graph.CodeConflict {
		t.Errorf("Replay(dlq of a disabled subscription) = %v, want conflict", err)
	}

	// The receiver recovers; a replay delivers with the attempt count reset.
	snd.set("https://down.example/", 200)
	if _, err := svc.Replay(ctx, a.ID, ids["https://down.example/"]); err != nil {
		t.Fatal(err)
	}
	waitFor("the replay to deliver", func() bool { return row(ids["https://down.example/"]).Status == webhooks.StatusDelivered })
	if d := row(ids["https://down.example/"]); d.AttemptCount != 1 || d.LastError != "" || *d.ResponseCode != 200 || d.DeliveredAt == nil {
		t.Errorf("replayed delivery = %+v, want delivered at attempt 1", d)
	}
}
