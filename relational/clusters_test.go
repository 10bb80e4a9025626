package relational_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/webhooks"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

func demoRecords() []cluster.Record {
	return []cluster.Record{
		{Slug: "demo-alpha", EntityName: "Demo Alpha Petroleum", Aliases: []string{"Demo Alpha", "DAP FZE"}, Severity: cluster.Suspected,
			Country: "AE", Group: "demo-ring", Source: "DEMO DATA"},
		{Slug: "demo-beta", EntityName: "Demo Beta Oil", Aliases: []string{"DAP FZE"}, Severity: cluster.Likely, Group: "demo-ring",
			AddedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
		{Slug: "demo-gamma", EntityName: "Demo Gamma", Severity: cluster.Confirmed, SanctionsSource: "us_sdn", Protected: true},
	}
}

// clusterEvents returns the (type, entity name) of the cluster events
// delivered to subscription sub, in order.
func clusterEvents(t *testing.T, db *relational.DB, sub string) [][2]string {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT e.type, e.payload::text FROM webhook_deliveries d
		JOIN webhook_events e ON e.id = d.event_id WHERE d.subscription_id = $1 ORDER BY e.created_at, e.payload::text`, sub)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var typ, payload string
		if err := rows.Scan(&typ, &payload); err != nil {
			t.Fatal(err)
		}
		var d webhooks.ClusterEntityData
		if err := json.Unmarshal([]byte(payload), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{typ, d.EntityName + ":" + d.PreviousSeverity + ">" + d.Severity})
	}
	return out
}

// An import adds records with their aliases and groups, emits
// cluster.entity_added to every subscribed member, bumps the version; a
// re-import of identical data changes nothing and emits nothing; a severity
// change emits cluster.entity_severity_changed.
func TestImportRecordsIdempotentWithEvents(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	b, _ := db.EnsureMember(ctx, "member-b", graph.ProductionScopes)
	c, _ := db.EnsureMember(ctx, "member-c", graph.ProductionScopes)
	subA := subscribe(t, db, a.ID, "https://a.example/hook", graph.EventClusterEntityAdded, graph.EventClusterEntitySeverityChanged)
	subB := subscribe(t, db, b.ID, "https://b.example/hook", graph.EventClusterEntitySeverityChanged)
	subC := subscribe(t, db, c.ID, "https://c.example/hook", graph.EventAPIKeyCreated)
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

	v0, err := db.RegistryVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.ImportRecords(ctx, demoRecords(), now)
	if err != nil {
		t.Fatal(err)
	}
	if want := (cluster.ImportResult{Records: 3, Added: 3, Version: v0 + 1}); res != want {
		t.Errorf("first import = %+v, want %+v", res, want)
	}
	recs, v, err := db.AllRecords(ctx)
	if err != nil || v != v0+1 || len(recs) != 3 {
		t.Fatalf("AllRecords = %d records, version %d, %v", len(recs), v, err)
	}
	alpha := recs[0]
	if alpha.Slug != "demo-alpha" || !slices.Equal(alpha.Aliases, []string{"Demo Alpha", "DAP FZE"}) || alpha.Group != "demo-ring" ||
		alpha.GroupID == "" || !alpha.AddedAt.Equal(now) || alpha.Country != "AE" || alpha.Source != "DEMO DATA" {
		t.Errorf("demo-alpha stored as %+v", alpha)
	}
	if beta := recs[1]; !beta.AddedAt.Equal(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)) || beta.GroupID != alpha.GroupID {
		t.Errorf("demo-beta stored as %+v", beta)
	}
	if g := recs[2]; !g.Protected || g.SanctionsSource != "us_sdn" || g.Group != "" {
		t.Errorf("demo-gamma stored as %+v", g)
	}
	added := [][2]string{
		{graph.EventClusterEntityAdded, "Demo Alpha Petroleum:>suspected"},
		{graph.EventClusterEntityAdded, "Demo Beta Oil:>likely"},
		{graph.EventClusterEntityAdded, "Demo Gamma:>confirmed"},
	}
	if got := clusterEvents(t, db, subA.ID); !sameSet(got, added) {
		t.Errorf("member a's events = %v, want %v", got, added)
	}
	if got := clusterEvents(t, db, subB.ID); len(got) != 0 {
		t.Errorf("member b (severity changes only) got %v", got)
	}

	res, err = db.ImportRecords(ctx, demoRecords(), now.Add(time.Hour))
	if want := (cluster.ImportResult{Records: 3, Unchanged: 3, Version: v0 + 1}); err != nil || res != want {
		t.Errorf("identical re-import = %+v, %v, want %+v", res, err, want)
	}
	if got := clusterEvents(t, db, subA.ID); len(got) != 3 {
		t.Errorf("identical re-import emitted events: %v", got)
	}

	changed := demoRecords()
	changed[0].Severity = cluster.Confirmed
	changed[1].Aliases = []string{"Demo Beta"}
	res, err = db.ImportRecords(ctx, changed, now.Add(2*time.Hour))
	if want := (cluster.ImportResult{Records: 3, Updated: 2, Unchanged: 1, SeverityChanged: 1, Version: v0 + 2}); err != nil || res != want {
		t.Errorf("changed import = %+v, %v, want %+v", res, err, want)
	}
	sev := [2]string{graph.EventClusterEntitySeverityChanged, "Demo Alpha Petroleum:suspected>confirmed"}
	if got := clusterEvents(t, db, subB.ID); !slices.Equal(got, [][2]string{sev}) {
		t.Errorf("member b's events = %v, want %v", got, sev)
	}
	if got := clusterEvents(t, db, subA.ID); len(got) != 4 || got[3] != sev {
		t.Errorf("member a's events = %v, want the three additions and %v", got, sev)
	}
	if got := clusterEvents(t, db, subC.ID); len(got) != 0 {
		t.Errorf("member c (no cluster events) got %v", got)
	}
	recs, _, _ = db.AllRecords(ctx)
	if !slices.Equal(recs[1].Aliases, []string{"Demo Beta"}) || !recs[0].AddedAt.Equal(now) {
		t.Errorf("after update: %+v", recs[:2])
	}
	if n := count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery'`); n != 5 {
		t.Errorf("delivery jobs = %d, want 5 (3 added + 2 severity changes)", n)
	}
}

func sameSet(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// The list filters and the slug lookup.
func TestListRecordsAndSlugs(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	if _, err := db.ImportRecords(ctx, demoRecords(), now); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    cluster.Filter
		want []string
	}{
		{"all newest first", cluster.Filter{}, []string{"demo-alpha", "demo-gamma", "demo-beta"}},
		{"severity", cluster.Filter{Severity: cluster.Likely}, []string{"demo-beta"}},
		{"country", cluster.Filter{Country: "AE"}, []string{"demo-alpha"}},
		{"since excludes older", cluster.Filter{Since: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}, []string{"demo-alpha", "demo-gamma"}},
		{"since is exclusive", cluster.Filter{Since: now}, nil},
		{"no match", cluster.Filter{Severity: cluster.Confirmed, Country: "AE"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := db.ListRecords(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var slugs []string
			for _, r := range recs {
				slugs = append(slugs, r.Slug)
			}
			if !slices.Equal(slugs, tt.want) {
				t.Errorf("ListRecords(%+v) = %v, want %v", tt.f, slugs, tt.want)
			}
		})
	}
	for _, c := range []struct {
		slug    string
		n       int
		isGroup bool
	}{{"demo-alpha", 1, false}, {"demo-ring", 2, true}, {"demo-none", 0, false}} {
		recs, gid, isGroup, err := db.RecordsBySlug(ctx, c.slug)
		if err != nil || len(recs) != c.n || isGroup != c.isGroup || (c.n > 0 && c.slug != "demo-gamma" && gid == "") {
			t.Errorf("RecordsBySlug(%q) = %d records, group %q %v, %v", c.slug, len(recs), gid, isGroup, err)
		}
	}
	// Records by id, with their aliases (the graph mirror holds none).
	alpha, _, _, _ := db.RecordsBySlug(ctx, "demo-alpha")
	gamma, _, _, _ := db.RecordsBySlug(ctx, "demo-gamma")
	byID, err := db.RecordsByID(ctx, []string{gamma[0].ID, alpha[0].ID, "00000000-0000-0000-0000-000000000000"})
	if err != nil || len(byID) != 2 || byID[0].Slug != "demo-alpha" || !slices.Equal(byID[0].Aliases, []string{"Demo Alpha", "DAP FZE"}) ||
		byID[1].Slug != "demo-gamma" || len(byID[1].Aliases) != 0 {
		t.Errorf("RecordsByID = %+v, %v, want demo-alpha with its aliases and demo-gamma", byID, err)
	}
	// The protected records, whichever network they are in.
	prot, err := db.ProtectedEntities(ctx)
	if err != nil || len(prot) != 1 || prot[0].Slug != "demo-gamma" || !prot[0].Protected || prot[0].SanctionsSource != "us_sdn" {
		t.Errorf("ProtectedEntities = %+v, %v", prot, err)
	}
}

// Nothing of an import is written when one record fails.
func TestImportRecordsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	recs := demoRecords()
	recs[2].Country = "XX1" // violates the table's check
	if _, err := db.ImportRecords(ctx, recs, time.Now()); err == nil {
		t.Fatal("import with a bad record succeeded")
	}
	if n := count(t, db, `SELECT count(*) FROM cluster_records`); n != 0 {
		t.Errorf("%d records written by a failed import", n)
	}
	if v, _ := db.RegistryVersion(ctx); v != 0 {
		t.Errorf("version %d after a failed import", v)
	}
}

// The per-email daily limit is exact under concurrent submissions; triage
// moves only pending submissions and links the blocklist record.
func TestSubmissionsLimitAndTriage(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	m, k := memberWithKey(t, db, "member-a")
	now := time.Now().UTC()
	req := cluster.SubmissionRequest{SubmitterEmail: "busy@example.com", EntityName: "Demo Submitted", PitchSummary: strings.Repeat("p", 40)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[graph.Code]int{}
	for i := 0; i < cluster.EmailLimit+10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := db.CreateSubmission(ctx, cluster.Submission{ID: graph.NewID(), MemberID: m.ID, KeyID: k.ID, EntityName: req.EntityName,
				Status: cluster.StatusPending, SubmittedAt: now}, req)
			mu.Lock()
			codes[graph.ErrorCode(err)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[""] != cluster.EmailLimit || codes[graph.CodeRateLimited] != 10 {
		t.Errorf("outcomes = %v, want %d stored and 10 rate_limited", codes, cluster.EmailLimit)
	}

	subs, err := db.ListSubmissions(ctx, cluster.StatusPending)
	if err != nil || len(subs) != cluster.EmailLimit {
		t.Fatalf("pending = %d, %v", len(subs), err)
	}
	by := "Example Investigations"
	tests := []struct {
		name   string
		id     string
		tr     cluster.Triage
		code   graph.Code
		status string
		linked bool
	}{
		{"accept", subs[0].ID, cluster.Triage{Status: cluster.StatusAccepted, By: by}, "", cluster.StatusAccepted, true},
		{"accept again", subs[0].ID, cluster.Triage{Status: cluster.StatusRejected, By: by}, graph.CodeConflict, "", false},
		{"duplicate by name", subs[1].ID, cluster.Triage{Status: cluster.StatusDuplicate, By: by}, "", cluster.StatusDuplicate, true},
		{"duplicate of unknown link", subs[2].ID, cluster.Triage{Status: cluster.StatusDuplicate, Link: graph.NewID(), By: by}, graph.CodeInvalid, "", false},
		{"reject", subs[2].ID, cluster.Triage{Status: cluster.StatusRejected, Note: "no evidence", By: by}, "", cluster.StatusRejected, false},
		{"bad status", subs[3].ID, cluster.Triage{Status: "pending", By: by}, graph.CodeInvalid, "", false},
		{"unknown", graph.NewID(), cluster.Triage{Status: cluster.StatusRejected, By: by}, graph.CodeNotFound, "", false},
	}
	var accepted string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := db.TriageSubmission(ctx, tt.id, tt.tr, now)
			if graph.ErrorCode(err) != tt.code {
				t.Fatalf("TriageSubmission = %v, want code %q", err, tt.code)
			}
			if err != nil {
				return
			}
			if s.Status != tt.status || (s.LinkedBlocklistID != nil) != tt.linked || s.TriagedBy == nil || *s.TriagedBy != by || s.TriagedAt == nil {
				t.Errorf("triaged = %+v", s)
			}
			if tt.status == cluster.StatusAccepted {
				accepted = *s.LinkedBlocklistID
			}
			if tt.status == cluster.StatusDuplicate && *s.LinkedBlocklistID != accepted {
				t.Errorf("duplicate links %s, want the accepted record %s", *s.LinkedBlocklistID, accepted)
			}
		})
	}
	recs, _, _ := db.AllRecords(ctx)
	if len(recs) != 1 || recs[0].ID != accepted || recs[0].Severity != cluster.Confirmed || recs[0].Source != "Accepted cluster submission; attributed to "+by {
		t.Errorf("records after triage = %+v", recs)
	}
}

// Without the submissions table, storing or reading a submission is
// unavailable (the spec's 503), never an internal error.
func TestSubmissionStorageAbsent(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	m, _ := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	if _, err := db.Pool.Exec(ctx, `DROP TABLE cluster_submissions`); err != nil {
		t.Fatal(err)
	}
	req := cluster.SubmissionRequest{SubmitterEmail: "a@example.com", EntityName: "Demo", PitchSummary: strings.Repeat("p", 40)}
	err := db.CreateSubmission(ctx, cluster.Submission{ID: graph.NewID(), MemberID: m.ID, KeyID: graph.NewID(), EntityName: "Demo",
		Status: cluster.StatusPending, SubmittedAt: time.Now()}, req)
	if graph.ErrorCode(err) != graph.CodeUnavailable {
		t.Errorf("CreateSubmission without the table = %v, want unavailable", err)
	}
	if _, err := db.Submission(ctx, graph.NewID()); graph.ErrorCode(err) != graph.CodeUnavailable {
		t.Errorf("Submission without the table = %v, want unavailable", err)
	}
}

// TestImportRecordsAliasSpellings checks that a line whose aliases differ
// only in spelling (one normalized key) re-imports unchanged.
func TestImportRecordsAliasSpellings(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	recs, err := cluster.ParseImport("x.csv", strings.NewReader("slug,entity_name,aliases,severity,source\ndemo-acme,Acme Co,Acme Ltd|ACME LTD.,likely,DEMO DATA\n"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	first, err := db.ImportRecords(ctx, recs, now)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		at   time.Time
	}{
		{"second import", now.Add(time.Hour)},
		{"third import", now.Add(2 * time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := db.ImportRecords(ctx, recs, tt.at)
			if want := (cluster.ImportResult{Records: 1, Unchanged: 1, Version: first.Version}); err != nil || res != want {
				t.Errorf("re-import = %+v, %v, want %+v", res, err, want)
			}
		})
	}
}

// TestImportRecordsSlugClash: a record may not take a group's slug, nor a
// group a record's, in the same import or a later one; the refused import
// writes nothing.
func TestImportRecordsSlugClash(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name          string
		first, second []cluster.Record
	}{
		{"record takes an existing group's slug", demoRecords(),
			[]cluster.Record{{Slug: "demo-ring", EntityName: "Demo Ring Trading", Severity: cluster.Likely}}},
		{"group takes an existing record's slug", demoRecords(),
			[]cluster.Record{{Slug: "demo-delta", EntityName: "Demo Delta", Severity: cluster.Likely, Group: "demo-alpha"}}},
		{"both in one import", nil,
			[]cluster.Record{{Slug: "demo-x", EntityName: "Demo X", Severity: cluster.Likely, Group: "demo-y"},
				{Slug: "demo-y", EntityName: "Demo Y", Severity: cluster.Likely}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := relationaltest.New(t)
			if tt.first != nil {
				if _, err := db.ImportRecords(ctx, tt.first, now); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := db.RegistryVersion(ctx)
			_, err := db.ImportRecords(ctx, tt.second, now.Add(time.Hour))
			var ge *graph.Error
			if !errors.As(err, &ge) || ge.Code != graph.CodeInvalid || ge.Field != "slug" {
				t.Fatalf("ImportRecords = %v, want invalid naming slug", err)
			}
			after, _ := db.RegistryVersion(ctx)
			var n int
			db.Pool.QueryRow(ctx, `SELECT count(*) FROM cluster_records WHERE slug = ANY($1)`, []string{"demo-delta", "demo-x", "demo-y"}).Scan(&n)
			if after != before || n != 0 || (tt.first == nil && before != 0) {
				t.Errorf("a refused import wrote: version %d -> %d, %d new records", before, after, n)
			}
		})
	}
}

// memberWithKey returns the member named name, created with the production
// scopes, and a new key of it with every scope of its plan.
func memberWithKey(t *testing.T, db *relational.DB, name string) (graph.Member, graph.NewKey) {
	t.Helper()
	ctx := context.Background()
	m, err := db.EnsureMember(ctx, name, graph.ProductionScopes)
	if err != nil {
		t.Fatal(err)
	}
	k, err := (&graph.Keys{Store: db}).Create(ctx, graph.CreateRequest{MemberID: m.ID, PlanScopes: m.PlanScopes, Name: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	return m, k
}
