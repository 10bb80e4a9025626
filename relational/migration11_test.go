package relational_test

import (
	"context"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

// TestMigration11OverOldAccepts applies 00011 to a registry the code before
// it wrote: an accept that raised an imported record to confirmed (the old
// code linked the record of the same name), an investigator record linked
// by two accepted submissions of the same name and country, and two
// investigator records of one name key and country. The migration must
// succeed, mark one investigator record per name and country, and leave no
// accepted submission's confirmation to be lowered by the next import: the
// imported record an old accept raised becomes the investigator's.
func TestMigration11OverOldAccepts(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	m, k := memberWithKey(t, db, "member-a")
	if err := db.MigrateDownTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	rec := func(slug, name, sev, country, source string, at time.Time) string {
		id := graph.NewID()
		if _, err := db.Pool.Exec(ctx, `INSERT INTO cluster_records (id, slug, entity_name, name_key, severity, country, added_at, updated_at, source)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`, id, slug, name, cluster.Normalize(name), sev, country, at, source); err != nil {
			t.Fatal(err)
		}
		return id
	}
	accepted := func(entity, country, linked string) {
		id := submit(t, db, m.ID, k.ID, entity, country)
		if _, err := db.Pool.Exec(ctx, `UPDATE cluster_submissions SET triage_status = 'accepted', triaged_at = $2, triaged_by = 'X',
			linked_blocklist_id = $3 WHERE id = $1`, id, now, linked); err != nil {
			t.Fatal(err)
		}
	}
	const src = "Registry import 2026-10"
	acme := rec("acme-trading", "Acme Trading", "confirmed", "", src, now) // imported as likely, raised by the old accept
	accepted("Acme Trading", "", acme)
	beta := rec("beta-holdings", "Beta Holdings", "confirmed", "DE", "Accepted cluster submission; attributed to X", now)
	accepted("Beta Holdings", "DE", beta)
	accepted("beta holdings", "Germany", beta)
	g1 := rec("gamma-co", "Gamma Co", "confirmed", "", "Accepted cluster submission; attributed to X", now)
	g2 := rec("gamma-co-2", "GAMMA CO", "confirmed", "", "Accepted cluster submission; attributed to Y", now.Add(time.Hour))
	accepted("Gamma Co", "", g1)
	accepted("GAMMA CO", "", g2)

	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate over old accepts: %v", err)
	}
	origin := func(id string) string {
		var o string
		if err := db.Pool.QueryRow(ctx, `SELECT origin FROM cluster_records WHERE id = $1`, id).Scan(&o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	if origin(beta) != "triage" || origin(g1) != "triage" || origin(g2) != "import" || origin(acme) != "triage" {
		t.Errorf("origins beta %s gamma %s %s acme %s, want triage, triage, import, triage", origin(beta), origin(g1), origin(g2), origin(acme))
	}
	// The source is imported again as it stood: Acme Trading is likely.
	if _, err := db.ImportRecords(ctx, []cluster.Record{{Slug: "acme-trading", EntityName: "Acme Trading", Severity: cluster.Likely, Source: src,
		AddedAt: now}}, now.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if res := check(t, db, "Acme Trading", ""); !res.Matched || res.HighestSeverity != cluster.Confirmed {
		t.Errorf("check Acme Trading after a re-import = %s: the investigator's accepted confirmation (made before 00011) was lowered by the import", res.HighestSeverity)
	}
}

// TestAcceptConcurrent: accepts of one name and country at once, with an
// import claiming the name's slug at the same time, yield one investigator
// record, one cluster.entity_added for it, and no error (the registry lock
// serialises them).
func TestAcceptConcurrent(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	m, k := memberWithKey(t, db, "member-a")
	sub := subscribe(t, db, m.ID, "https://a.example/hook", graph.EventClusterEntityAdded, graph.EventClusterEntitySeverityChanged)
	const n = 6
	ids := make([]string, n)
	for i := range ids {
		ids[i] = submit(t, db, m.ID, k.ID, "Race Trading FZE", "AE")
	}
	now := time.Now().UTC()
	errs := make(chan error, n+1)
	linked := make(chan string, n)
	for _, id := range ids {
		go func() {
			s, err := db.TriageSubmission(ctx, id, cluster.Triage{Status: cluster.StatusAccepted, By: "X"}, now)
			if err == nil {
				linked <- *s.LinkedBlocklistID
			}
			errs <- err
		}()
	}
	go func() {
		_, err := db.ImportRecords(ctx, []cluster.Record{{Slug: "race-trading-fze", EntityName: "Race Trading FZE", Severity: cluster.Suspected,
			Country: "AE", Source: "S"}}, now)
		errs <- err
	}()
	for range n + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(linked)
	first := ""
	for id := range linked {
		if first == "" {
			first = id
		} else if id != first {
			t.Errorf("accepts linked %s and %s, want one investigator record", first, id)
		}
	}
	added := 0
	for _, e := range clusterEvents(t, db, sub.ID) {
		if e[0] == graph.EventClusterEntityAdded {
			added++
		}
	}
	if added != 2 { // the investigator's record and the import's
		t.Errorf("%d cluster.entity_added, want 2", added)
	}
	if res := check(t, db, "Race Trading FZE", "AE"); res.HighestSeverity != cluster.Confirmed || len(res.Matches) != 2 {
		t.Errorf("check = %+v, want the confirmed investigator record and the suspected import", res)
	}
}

// TestImportGroupClaimsInvestigatorSlug: an import whose group takes the
// slug of an investigator record (an accepted submission's, which no file
// can rename) moves that record aside as a record's slug would, instead of
// refusing the source's whole file.
func TestImportGroupClaimsInvestigatorSlug(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	m, k := memberWithKey(t, db, "member-a")
	now := time.Now().UTC()
	s, err := db.TriageSubmission(ctx, submit(t, db, m.ID, k.ID, "Acme Ring", ""), cluster.Triage{Status: cluster.StatusAccepted, By: "X"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportRecords(ctx, []cluster.Record{{Slug: "acme-one", EntityName: "Acme One", Severity: cluster.Likely, Group: "acme-ring", Source: "S"},
		{Slug: "acme-two", EntityName: "Acme Two", Severity: cluster.Likely, Group: "acme-ring", Source: "S"}}, now); err != nil {
		t.Fatalf("import of a group on an investigator record's slug: %v", err)
	}
	recs, groupID, isGroup, err := db.RecordsBySlug(ctx, "acme-ring")
	if err != nil || !isGroup || groupID == "" || len(recs) != 2 {
		t.Errorf("RecordsBySlug(acme-ring) = %d records, group %v, %v; want the group of 2", len(recs), isGroup, err)
	}
	rec := recordsByID(t, db)[*s.LinkedBlocklistID]
	if rec.Severity != cluster.Confirmed || rec.Slug == "acme-ring" || rec.EntityName != "Acme Ring" {
		t.Errorf("investigator record = %+v, want confirmed, moved off acme-ring", rec)
	}
}
