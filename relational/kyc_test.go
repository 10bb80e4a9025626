package relational_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/webhooks"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

func kycService(t *testing.T, db *relational.DB) *kyc.Service {
	t.Helper()
	m, err := regulatory.Default()
	if err != nil {
		t.Fatal(err)
	}
	hub := db.NewProgressHub(nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go hub.Run(ctx)
	return &kyc.Service{Engine: kyc.Engine{Matrix: m}, Store: db, Progress: hub}
}

func seqs(evs []kyc.StepResult) []int {
	out := []int{}
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A screen stores the dossier, the run, its first two events and its job in
// one transaction; Execute appends steps 3 to 7 once, even when run twice
// (a retried job), completes the run, and the dossier records the time.
func TestKYCRunLogAndCompletion(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	svc := kycService(t, db)
	a, _ := db.EnsureMember(ctx, "kyc-a", graph.ProductionScopes)
	b, _ := db.EnsureMember(ctx, "kyc-b", graph.ProductionScopes)
	subscribe(t, db, a.ID, "https://a.example/hook", graph.EventKYCRescreenCompleted, graph.EventKYCMatchDetected)

	run, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Acme Oil Trading Ltd", Country: "Norway", Product: "crude", Directors: []string{"Jane Doe"}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Verdict != kyc.VerdictReview { // the cluster registry is not configured: unavailable calls for review
		t.Errorf("initial verdict = %s, want review: %s", run.Verdict, run.VerdictReasoning)
	}
	if got := seqs(run.Steps); !equalInts(got, []int{1, 2}) {
		t.Errorf("screen steps = %v, want [1 2]", got)
	}
	if n := count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'kyc_run' AND queue = 'kyc' AND args->>'run_id' = $1`, run.ID); n != 1 {
		t.Errorf("jobs = %d, want 1", n)
	}
	// The same company screened again reuses the dossier.
	run2, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "ACME oil trading, ltd.", Country: "NO"})
	if err != nil {
		t.Fatal(err)
	}
	if run2.EntityID != run.EntityID {
		t.Errorf("second screen entity = %s, want %s", run2.EntityID, run.EntityID)
	}

	for range 2 {
		if err := svc.Execute(ctx, run.ID); err != nil {
			t.Fatal(err)
		}
	}
	got, err := svc.GetRun(ctx, a.ID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != kyc.RunCompleted || got.CompletedAt == nil {
		t.Fatalf("status = %s, want completed", got.Status)
	}
	if s := seqs(got.Steps); !equalInts(s, []int{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("steps = %v, want 1..7", s)
	}
	want := map[kyc.Step]kyc.Status{
		kyc.StepClusterBlocklist: kyc.StatusUnavailable, kyc.StepRegulatoryTradability: kyc.StatusPass,
		kyc.StepSanctions: kyc.StatusUnavailable, kyc.StepDirectors: kyc.StatusUnavailable,
		kyc.StepOwnership: kyc.StatusUnavailable, kyc.StepAdverseMedia: kyc.StatusUnmeasured, kyc.StepVerdict: kyc.StatusReview,
	}
	for _, s := range got.Steps {
		if s.Status != want[s.Step] {
			t.Errorf("step %s = %s, want %s (%s)", s.Step, s.Status, want[s.Step], s.Summary)
		}
	}
	if got.Verdict != kyc.VerdictReview || got.InitialVerdict != kyc.VerdictReview {
		t.Errorf("verdict = %s (initial %s), want review", got.Verdict, got.InitialVerdict)
	}
	if n := count(t, db, `SELECT count(*) FROM kyc_run_events WHERE run_id = $1`, run.ID); n != 7 {
		t.Errorf("events = %d, want 7", n)
	}
	d, err := svc.GetDossier(ctx, a.ID, run.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	if d.LastScreenedAt == nil || !d.LastScreenedAt.Equal(*got.CompletedAt) || len(d.Runs) != 2 {
		t.Errorf("dossier = %+v, want last screened at %v and 2 runs", d, got.CompletedAt)
	}
	// Other members see nothing; a re-screen of another member's dossier is forbidden.
	if _, err := svc.GetRun(ctx, b.ID, run.ID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("GetRun(other member) = %v, want not_found", err)
	}
	if _, err := svc.GetDossier(ctx, b.ID, run.EntityID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("GetDossier(other member) = %v, want not_found", err)
	}
	if _, err := svc.Rescreen(ctx, b.ID, run.EntityID); graph.ErrorCode(err) != graph.CodeForbidden {
		t.Errorf("Rescreen(other member) = %v, want forbidden", err)
	}
	if _, err := svc.Rescreen(ctx, a.ID, graph.NewID()); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("Rescreen(unknown) = %v, want not_found", err)
	}
	// A re-screen runs all seven steps in its job and emits kyc.rescreen_completed.
	re, err := svc.Rescreen(ctx, a.ID, run.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	if re.Status != kyc.RunQueued || re.Verdict != kyc.VerdictPending {
		t.Errorf("rescreen = %s %s, want queued pending", re.Status, re.Verdict)
	}
	if err := svc.Execute(ctx, re.ID); err != nil {
		t.Fatal(err)
	}
	var payload []byte
	if err := db.Pool.QueryRow(ctx, `SELECT payload::text FROM webhook_events WHERE type = $1`, graph.EventKYCRescreenCompleted).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	json.Unmarshal(payload, &ev)
	if ev["screening_run_id"] != re.ID || ev["entity_id"] != run.EntityID || ev["status"] != "degraded" || ev["verdict"] != "review" {
		t.Errorf("rescreen_completed = %s", payload)
	}
}

// Dossiers last screened more than 90 days ago get one scheduled re-screen
// each, however often the schedule runs; recent dossiers get none.
func TestKYCQueueDueRescreens(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	svc := kycService(t, db)
	a, _ := db.EnsureMember(ctx, "kyc-due", graph.ProductionScopes)
	old, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Old Trading Co"})
	if err != nil {
		t.Fatal(err)
	}
	recent, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Recent Trading Co"})
	if err != nil {
		t.Fatal(err)
	}
	never, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Never Completed Co"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []kyc.Run{old, recent} {
		if err := svc.Execute(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().UTC()
	if _, err := db.Pool.Exec(ctx, `UPDATE kyc_dossiers SET last_screened_at = $2 WHERE entity_id = $1`, old.EntityID, now.Add(-91*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE kyc_dossiers SET last_screened_at = $2 WHERE entity_id = $1`, recent.EntityID, now.Add(-89*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 0} {
		n, err := db.QueueDueRescreens(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("run %d: queued %d, want %d", i, n, want)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM kyc_runs WHERE kind = 'scheduled' AND entity_id = $1 AND status = 'queued'`, old.EntityID); n != 1 {
		t.Errorf("scheduled runs of the old dossier = %d, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM kyc_runs WHERE kind = 'scheduled' AND entity_id IN ($1, $2)`, recent.EntityID, never.EntityID); n != 0 {
		t.Errorf("scheduled runs of recent or never-completed dossiers = %d, want 0", n)
	}
	if n := count(t, db, `SELECT count(*) FROM river_job r JOIN kyc_runs k ON k.id::text = r.args->>'run_id' WHERE k.kind = 'scheduled'`); n != 1 {
		t.Errorf("scheduled jobs = %d, want 1", n)
	}
}

// The schedule's edge cases, with backdated rows: a dossier never
// screened is due once it is 90 days old, and an unfinished scheduled run
// older than 24 h is closed (review, unavailable) instead of blocking the
// next one.
func TestKYCDueRescreenCases(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name         string
		lastScreened time.Duration // before now; 0 = never (NULL)
		created      time.Duration // dossier age
		pendingAge   time.Duration // age of an unfinished scheduled run; 0 = none
		want         int           // scheduled runs queued now
		wantClosed   int           // stale scheduled runs closed
	}{
		{"screened 91 days ago", 91 * day, 100 * day, 0, 1, 0},
		{"never screened, created 91 days ago", 0, 91 * day, 0, 1, 0},
		{"never screened, created 10 days ago", 0, 10 * day, 0, 0, 0},
		{"unfinished scheduled run 2 h old blocks", 92 * day, 100 * day, 2 * time.Hour, 0, 0},
		{"unfinished scheduled run 25 h old is stale", 92 * day, 100 * day, 25 * time.Hour, 1, 1},
		{"never screened and a stale scheduled run", 0, 95 * day, 30 * time.Hour, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db := relationaltest.New(t)
			svc := kycService(t, db)
			a, _ := db.EnsureMember(ctx, "kyc-due-cases", graph.ProductionScopes)
			run, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Backdated Trading Co"})
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			var last any
			if tt.lastScreened > 0 {
				last = now.Add(-tt.lastScreened)
			}
			if _, err := db.Pool.Exec(ctx, `UPDATE kyc_dossiers SET last_screened_at = $2, created_at = $3 WHERE entity_id = $1`,
				run.EntityID, last, now.Add(-tt.created)); err != nil {
				t.Fatal(err)
			}
			if tt.pendingAge > 0 { // the schedule queued a run then, which never finished
				if n, err := db.QueueDueRescreens(ctx, now.Add(-tt.pendingAge)); err != nil || n != 1 {
					t.Fatalf("QueueDueRescreens(then) = %d, %v; want 1", n, err)
				}
			}
			n, err := db.QueueDueRescreens(ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.want {
				t.Errorf("queued %d, want %d", n, tt.want)
			}
			if c := count(t, db, `SELECT count(*) FROM kyc_runs WHERE entity_id = $1 AND kind = 'scheduled' AND status = 'completed'
				AND verdict = 'review' AND verdict_reasoning LIKE 'unavailable:%'`, run.EntityID); c != tt.wantClosed {
				t.Errorf("stale runs closed = %d, want %d", c, tt.wantClosed)
			}
			if c := count(t, db, `SELECT count(*) FROM kyc_runs WHERE entity_id = $1 AND kind = 'scheduled' AND status <> 'completed'`, run.EntityID); c > 1 {
				t.Errorf("unfinished scheduled runs = %d, want at most 1", c)
			}
		})
	}
}

// collect reads a follow channel to its end.
func collect(t *testing.T, ch <-chan kyc.StepResult, timeout time.Duration) []kyc.StepResult {
	t.Helper()
	var out []kyc.StepResult
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-deadline:
			t.Fatalf("stream did not end within %s; got %v", timeout, seqs(out))
			return out
		}
	}
}

// Followers get every event exactly once and in order: one joined before
// the run's job, one after it completed (replay only), and one on a second
// hub (another instance) with a buffer of one that reads nothing until the
// run completes (its buffer overflows; it re-reads the log).
func TestKYCProgressHub(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	svc := kycService(t, db)
	other := db.NewProgressHub(nil)
	other.Buffer = 1
	octx, cancel := context.WithCancel(ctx)
	defer cancel()
	go other.Run(octx)
	a, _ := db.EnsureMember(ctx, "kyc-hub", graph.ProductionScopes)
	run, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Hub Trading Co", Directors: []string{"A Person", "B Person"}})
	if err != nil {
		t.Fatal(err)
	}
	early, err := svc.Follow(ctx, a.ID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := other.Follow(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*relational.ProgressHub{svc.Progress.(*relational.ProgressHub), other} {
		deadline := time.Now().Add(10 * time.Second)
		for !h.Listening() {
			if time.Now().After(deadline) {
				t.Fatal("a hub's listener did not connect")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	done := make(chan error, 1)
	go func() { done <- svc.Execute(ctx, run.ID) }()
	select {
	case err := <-done: // the slow follower, reading nothing, does not hold the run up
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not complete while a follower read nothing")
	}
	// Nobody reads the slow follower yet: once the other hub has the
	// run's notifications, its buffer of one overflows.
	deadline := time.Now().Add(10 * time.Second)
	for other.Overflows() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow follower's buffer never overflowed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	all := []int{1, 2, 3, 4, 5, 6, 7}
	for name, ch := range map[string]<-chan kyc.StepResult{"early": early, "slow": slow} {
		evs := collect(t, ch, 10*time.Second)
		if got := seqs(evs); !equalInts(got, all) {
			t.Errorf("%s follower got %v, want %v", name, got, all)
		}
		if len(evs) == 7 && (!evs[6].Final || evs[6].Step != kyc.StepVerdict || evs[6].EmittedAt.IsZero()) {
			t.Errorf("%s follower's last event = %+v, want the final verdict", name, evs[6])
		}
	}
	late, err := svc.Follow(ctx, a.ID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := seqs(collect(t, late, 5*time.Second)); !equalInts(got, all) {
		t.Errorf("late follower got %v, want %v", got, all)
	}
	if _, err := svc.Follow(ctx, graph.NewID(), run.ID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("Follow(other member) = %v, want not_found", err)
	}
}

// When the hub's listening connection is cut, events committed meanwhile
// are not lost: on reconnecting, the hub makes every follower re-read the
// log.
func TestKYCProgressHubReconnects(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	svc := kycService(t, db)
	hub := svc.Progress.(*relational.ProgressHub)
	a, _ := db.EnsureMember(ctx, "kyc-reconnect", graph.ProductionScopes)
	run, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Reconnect Trading Co"})
	if err != nil {
		t.Fatal(err)
	}
	waitListening := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !hub.Listening() {
			if time.Now().After(deadline) {
				t.Fatal("the hub's listener did not connect")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitListening()
	ch, err := svc.Follow(ctx, a.ID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN `+relational.ProgressChannel+`' AND pid <> pg_backend_pid()) x`); n != 1 {
		t.Fatalf("terminated %d listening connections, want 1", n)
	}
	for deadline := time.Now().Add(10 * time.Second); hub.Listening(); time.Sleep(5 * time.Millisecond) { // the hub notices
		if time.Now().After(deadline) {
			t.Fatal("the hub did not notice its connection was cut")
		}
	}
	if err := svc.Execute(ctx, run.ID); err != nil { // while no one listens
		t.Fatal(err)
	}
	waitListening()
	if got := seqs(collect(t, ch, 10*time.Second)); !equalInts(got, []int{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("follower across a reconnection got %v, want 1..7", got)
	}
}

// A scheduled re-screen the schedule closes as stale (completed, no verdict
// event) ends its followers: one that joins afterwards at once, one that was
// waiting at its next poll. Before, both waited for a final event forever,
// so an SSE stream or GraphQL subscription of such a run never ended.
func TestKYCProgressEndsForStaleClosedRun(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	svc := kycService(t, db)
	hub := svc.Progress.(*relational.ProgressHub)
	hub.PollEvery = 100 * time.Millisecond
	a, _ := db.EnsureMember(ctx, "kyc-stale-follow", graph.ProductionScopes)
	run, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Stale Follow Trading Co"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if _, err := db.Pool.Exec(ctx, `UPDATE kyc_dossiers SET last_screened_at = $2 WHERE entity_id = $1`, run.EntityID, now.Add(-120*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, err := db.QueueDueRescreens(ctx, now.Add(-25*time.Hour)); err != nil || n != 1 {
		t.Fatalf("QueueDueRescreens(then) = %d, %v; want 1", n, err)
	}
	var stale string
	if err := db.Pool.QueryRow(ctx, `SELECT id::text FROM kyc_runs WHERE entity_id = $1 AND kind = 'scheduled'`, run.EntityID).Scan(&stale); err != nil {
		t.Fatal(err)
	}
	waiting, err := svc.Follow(ctx, a.ID, stale)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.QueueDueRescreens(ctx, now); err != nil { // closes the stale run
		t.Fatal(err)
	}
	if got := collect(t, waiting, 5*time.Second); len(got) != 0 {
		t.Errorf("waiting follower got %v, want nothing", seqs(got))
	}
	late, err := svc.Follow(ctx, a.ID, stale)
	if err != nil {
		t.Fatal(err)
	}
	if got := collect(t, late, 5*time.Second); len(got) != 0 {
		t.Errorf("late follower got %v, want nothing", seqs(got))
	}
}

// An instance that works no runs (KYC_WORKERS=0, an idle job set) may
// still be River's leader: it must queue the 90-day re-screen check and
// rescue a stuck run's job back to the queue for the other instances, not
// discard it as an unknown kind (which left the run running forever, its
// subscribers waiting), and it must not work the run itself.
func TestKYCIdleJobSetStillLeads(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	svc := kycService(t, db)
	a, _ := db.EnsureMember(ctx, "kyc-idle-leader", graph.ProductionScopes)
	run, err := svc.Screen(ctx, a.ID, kyc.Input{CompanyName: "Idle Leader Trading Co"})
	if err != nil {
		t.Fatal(err)
	}
	// The run's job was taken by an instance that died an hour ago.
	if _, err := db.Pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '1 hour',
		attempted_by = '{dead-instance}' WHERE kind = 'kyc_run' AND args->>'run_id' = $1`, run.ID); err != nil {
		t.Fatal(err)
	}
	w, err := db.StartWebhookWorkers(ctx, relational.WebhookWorkerConfig{
		Deliverer: &webhooks.Deliverer{}, Workers: 1, SendTimeout: time.Second, StopTimeout: 5 * time.Second,
		Jobs: []relational.JobSet{db.KYCJobs(relational.KYCJobConfig{
			Execute: func(context.Context, string) error { t.Error("an idle instance worked a run"); return nil },
			Idle:    true, DueEvery: time.Hour, Timeout: 2 * time.Second,
		})},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Stop(context.Background()) })
	deadline := time.Now().Add(60 * time.Second)
	for {
		var state string
		if err := db.Pool.QueryRow(ctx, `SELECT state::text FROM river_job WHERE kind = 'kyc_run' AND args->>'run_id' = $1`, run.ID).Scan(&state); err != nil {
			t.Fatal(err)
		}
		due := count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'kyc_rescreen_due'`)
		if state == "discarded" {
			t.Fatalf("the leader discarded the stuck run's job")
		}
		if (state == "retryable" || state == "available") && due > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: run job %s, %d re-screen checks queued; want it rescued and a check queued", state, due)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
