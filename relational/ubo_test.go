package relational_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graph/webhooks"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

func uboRequest(t *testing.T, db *relational.DB, member, name, jur string, hops int) (ubo.Graph, bool) {
	t.Helper()
	req, key, err := ubo.Normalize(name, jur, &hops)
	if err != nil {
		t.Fatal(err)
	}
	g, cached, err := db.RequestGraph(context.Background(), member, graph.NewID(), req, key, time.Now().Add(-ubo.CacheTTL))
	if err != nil {
		t.Fatal(err)
	}
	return g, cached
}

// A ready graph answers the same member's same request (normalized name,
// jurisdiction, hops) while built within 90 days; anything else queues a
// new graph with its build job in the same transaction.
func TestUBOGraphCache(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	b, _ := db.EnsureMember(ctx, "member-b", graph.ProductionScopes)
	jobs := func() int {
		return count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'ubo_build' AND queue = 'ubo'`)
	}

	first, cached := uboRequest(t, db, a.ID, "BP p.l.c.", "GB", 3)
	if cached || first.Status != ubo.StatusQueued || first.Result != nil || first.RootEntityName != "BP p.l.c." || first.RootJurisdiction != "GB" || first.MaxHops != 3 {
		t.Fatalf("first request = %+v (cached %v), want queued BP p.l.c./GB/3", first, cached)
	}
	if n := jobs(); n != 1 {
		t.Fatalf("build jobs = %d, want 1", n)
	}
	again, cached := uboRequest(t, db, a.ID, "bp plc", "gbr", 3)
	if cached || again.GraphID != first.GraphID {
		t.Fatalf("repeat while queued = %s (cached %v), want the queued %s", again.GraphID, cached, first.GraphID)
	}
	if n := jobs(); n != 1 {
		t.Errorf("build jobs after a repeat while queued = %d, want 1", n)
	}

	setBuilt := func(id string, age time.Duration) {
		t.Helper()
		_, err := db.Pool.Exec(ctx, `UPDATE ubo_graphs SET status = 'ready', built_at = $2, result = '{"aggregate_risk":"medium","root_found":true}', cacheable = true WHERE id = $1`,
			id, time.Now().Add(-age))
		if err != nil {
			t.Fatal(err)
		}
	}
	setBuilt(first.GraphID, 89*24*time.Hour)

	tests := []struct {
		name      string
		member    string
		root, jur string
		hops      int
		reused    bool
	}{
		{"same request within 90 days", a.ID, "BP p.l.c.", "GB", 3, true},
		{"name differing in case and punctuation", a.ID, "bp PLC", "United Kingdom", 3, true},
		{"same letters split into other words", a.ID, "B P p.l.c.", "GB", 3, false},
		{"other hops", a.ID, "BP p.l.c.", "GB", 4, false},
		{"other jurisdiction", a.ID, "BP p.l.c.", "US", 3, false},
		{"no jurisdiction", a.ID, "BP p.l.c.", "", 3, false},
		{"other member", b.ID, "BP p.l.c.", "GB", 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := jobs()
			g, cached := uboRequest(t, db, tt.member, tt.root, tt.jur, tt.hops)
			if tt.reused {
				if !cached || g.GraphID != first.GraphID || g.Status != ubo.StatusReady || g.Result == nil || g.Result.AggregateRisk != "medium" {
					t.Errorf("got %s %s (cached %v), want the cached ready graph %s", g.GraphID, g.Status, cached, first.GraphID)
				}
				if n := jobs(); n != before {
					t.Errorf("a cached answer queued %d jobs", n-before)
				}
				return
			}
			if cached || g.GraphID == first.GraphID || g.Status != ubo.StatusQueued {
				t.Errorf("got %s %s (cached %v), want a new queued graph", g.GraphID, g.Status, cached)
			}
			if n := jobs(); n != before+1 {
				t.Errorf("jobs %d -> %d, want one more", before, n)
			}
		})
	}

	// Built 91 days ago: expired, a new graph is queued.
	setBuilt(first.GraphID, 91*24*time.Hour)
	g, cached := uboRequest(t, db, a.ID, "BP p.l.c.", "GB", 3)
	if cached || g.GraphID == first.GraphID || g.Status != ubo.StatusQueued {
		t.Errorf("after 91 days: got %s %s (cached %v), want a new queued graph", g.GraphID, g.Status, cached)
	}

	// Graphs are read only through their member.
	if _, err := db.Graph(ctx, b.ID, first.GraphID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("member b reading a's graph: err = %v, want not_found", err)
	}
	got, err := db.Graph(ctx, a.ID, first.GraphID)
	if err != nil || got.Status != ubo.StatusReady || got.BuiltAt == nil {
		t.Errorf("Graph(a, first) = %+v, %v; want ready with built_at", got, err)
	}
}

// Concurrent identical requests queue one build.
func TestUBOGraphConcurrentRequests(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, _ := uboRequest(t, db, a.ID, "Shell plc", "", 2)
			ids[i] = g.GraphID
		}()
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("concurrent requests got graphs %v, want one", ids)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'ubo_build'`); n != 1 {
		t.Errorf("build jobs = %d, want 1", n)
	}
}

// flakyBuilder fails its first build, then answers.
type flakyBuilder struct {
	mu    sync.Mutex
	calls []ubo.Request
}

func (b *flakyBuilder) Build(ctx context.Context, req ubo.Request) (*ubo.Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, req)
	if len(b.calls) == 1 {
		return nil, graph.Unavailable("the ownership graph", errors.New("connection refused"))
	}
	return &ubo.Result{RootFound: false, AggregateRisk: ubo.RiskUnknown, RiskReasons: []string{"the root entity is not in the ownership data"}}, nil
}

// The worker builds a queued graph on the "ubo" queue, retrying a failed
// build, and writes it ready.
func TestUBOWorker(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	b := &flakyBuilder{}
	built := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	w, err := db.StartWebhookWorkers(ctx, relational.WebhookWorkerConfig{
		Deliverer: &webhooks.Deliverer{}, Workers: 1, SendTimeout: time.Second, StopTimeout: 5 * time.Second,
		Jobs: []relational.JobSet{db.UBOJobs(b, func() time.Time { return built }, nil)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Stop(context.Background()) })
	g, _ := uboRequest(t, db, a.ID, "Acme Oil Ltd", "NG", 2)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := db.Graph(ctx, a.ID, g.GraphID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == ubo.StatusReady {
			if got.BuiltAt == nil || !got.BuiltAt.Equal(built) || got.Result == nil || got.Result.AggregateRisk != ubo.RiskUnknown {
				t.Errorf("ready graph = %+v, want built at %s with risk unknown", got, built)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the build")
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	want := ubo.Request{RootEntityName: "Acme Oil Ltd", RootJurisdiction: "NG", MaxHops: 2}
	if len(b.calls) != 2 || b.calls[0] != want || b.calls[1] != want {
		t.Errorf("builds = %+v, want two of %+v (one failed, one retried)", b.calls, want)
	}
}

// okBuilder answers every build.
type okBuilder struct{}

func (okBuilder) Build(ctx context.Context, req ubo.Request) (*ubo.Result, error) {
	return &ubo.Result{RootFound: false, AggregateRisk: ubo.RiskUnknown, RiskReasons: []string{"not in data"}}, nil
}

// A graph queued while no worker runs (the serving process died after the
// request committed) is built by the next worker to start: the job is in
// Postgres with the row.
func TestUBOQueuedGraphOutlivesItsProcess(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	g, _ := uboRequest(t, db, a.ID, "Orphan Holdings", "", 3)
	if g.Status != ubo.StatusQueued {
		t.Fatalf("status %s, want queued", g.Status)
	}
	w, err := db.StartWebhookWorkers(ctx, relational.WebhookWorkerConfig{
		Deliverer: &webhooks.Deliverer{}, Workers: 1, SendTimeout: time.Second, StopTimeout: 5 * time.Second,
		Jobs: []relational.JobSet{db.UBOJobs(okBuilder{}, nil, nil)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Stop(context.Background()) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := db.Graph(ctx, a.ID, g.GraphID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == ubo.StatusReady {
			if got.Result == nil || got.Result.AggregateRisk != ubo.RiskUnknown {
				t.Errorf("ready graph result = %+v", got.Result)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the queued graph was not built by a worker started later")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Only a successful build that found the root answers later requests: a
// build failed on its last attempt or a root not in the ownership data is
// rebuilt on the next request.
func TestUBOGraphCacheableResults(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	tests := []struct {
		name   string
		res    *ubo.Result
		reused bool
	}{
		{"root found", &ubo.Result{RootFound: true, RootEntityID: "e1", AggregateRisk: ubo.RiskMedium}, true},
		{"root not found", &ubo.Result{RootFound: false, AggregateRisk: ubo.RiskUnknown}, false},
		{"build failed on its last attempt", ubo.Failed(graph.Unavailable("the ownership graph", errors.New("connection refused"))), false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := "Cacheable Case " + string(rune('A'+i))
			first, _ := uboRequest(t, db, a.ID, root, "", 3)
			if err := relational.FinishUBOGraph(db, ctx, first.GraphID, tt.res, time.Now()); err != nil {
				t.Fatal(err)
			}
			again, cached := uboRequest(t, db, a.ID, root, "", 3)
			if tt.reused {
				if !cached || again.GraphID != first.GraphID || again.Status != ubo.StatusReady {
					t.Errorf("got %s %s (cached %v), want the cached graph %s", again.GraphID, again.Status, cached, first.GraphID)
				}
				return
			}
			if cached || again.GraphID == first.GraphID || again.Status != ubo.StatusQueued {
				t.Errorf("got %s %s (cached %v), want a new queued graph", again.GraphID, again.Status, cached)
			}
		})
	}
}
