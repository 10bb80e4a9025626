package relational_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

const investigator = "Example Investigations"

// submit stores a pending submission of entity in country by a new
// submitter email and returns its id.
func submit(t *testing.T, db *relational.DB, member, key, entity, country string) string {
	t.Helper()
	id := graph.NewID()
	req := cluster.SubmissionRequest{SubmitterEmail: "tip-" + id + "@example.com", EntityName: entity, EntityCountry: country,
		PitchSummary: strings.Repeat("p", 40)}
	if err := db.CreateSubmission(context.Background(), cluster.Submission{ID: id, MemberID: member, KeyID: key, EntityName: entity,
		Status: cluster.StatusPending, SubmittedAt: time.Now().UTC()}, req); err != nil {
		t.Fatal(err)
	}
	return id
}

// check answers a check of entity in country (ISO code or "") from the
// registry as stored.
func check(t *testing.T, db *relational.DB, entity, country string) cluster.CheckResult {
	t.Helper()
	recs, v, err := db.AllRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := cluster.NewIndex(v, recs).Check(context.Background(), entity, country)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func recordsByID(t *testing.T, db *relational.DB) map[string]cluster.Record {
	t.Helper()
	recs, _, err := db.AllRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cluster.Record{}
	for _, r := range recs {
		out[r.ID] = r
	}
	return out
}

// TestAcceptSubmissionInvestigatorRecord checks that accepting a submission
// always yields a confirmed record attributed to the investigator for the
// submitted name and country (never an imported record of the same name or
// alias, which stays as its source says), reused for the same name and
// country, and that re-importing the source afterwards, even a line that
// claims the investigator record's slug, changes neither the investigator's
// record nor the check's answer.
func TestAcceptSubmissionInvestigatorRecord(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	m, k := memberWithKey(t, db, "member-a")
	sub := subscribe(t, db, m.ID, "https://a.example/hook", graph.EventClusterEntityAdded, graph.EventClusterEntitySeverityChanged)
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	if _, err := db.ImportRecords(ctx, demoRecords(), now); err != nil {
		t.Fatal(err)
	}
	imported := recordsByID(t, db)

	tests := []struct {
		name, entity, country string
		lower                 string   // "" or the severity the linked record is set to before the accept
		wantCountry           string   // the linked record's country
		sameAs                string   // "" for a new record, or the case whose record is reused
		events                []string // cluster events of this accept
	}{
		{"name of an imported record, other country", "Demo Alpha Petroleum", "SG", "", "SG", "", []string{"cluster.entity_added Demo Alpha Petroleum:>confirmed"}},
		{"alias of an imported record, its country", "DEMO-ALPHA", "AE", "", "AE", "", []string{"cluster.entity_added DEMO-ALPHA:>confirmed"}},
		{"same name and country, other spelling", "demo alpha petroleum", "Singapore", "", "SG", "name of an imported record, other country", nil},
		{"imported confirmed record's name, no country", "Demo Gamma", "", "", "", "", []string{"cluster.entity_added Demo Gamma:>confirmed"}},
		{"free-text country naming none", "Brand New Trading", "Atlantis", "", "", "", []string{"cluster.entity_added Brand New Trading:>confirmed"}},
		{"investigator record below confirmed is raised", "Demo Alpha Petroleum", "SG", "likely", "SG", "name of an imported record, other country",
			[]string{"cluster.entity_severity_changed Demo Alpha Petroleum:likely>confirmed"}},
	}
	linked := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.lower != "" {
				if _, err := db.Pool.Exec(ctx, `UPDATE cluster_records SET severity = $2 WHERE id = $1`, linked[tt.sameAs], tt.lower); err != nil {
					t.Fatal(err)
				}
			}
			before := len(clusterEvents(t, db, sub.ID))
			v0, _ := db.RegistryVersion(ctx)
			s, err := db.TriageSubmission(ctx, submit(t, db, m.ID, k.ID, tt.entity, tt.country), cluster.Triage{Status: cluster.StatusAccepted, By: investigator}, now)
			if err != nil || s.LinkedBlocklistID == nil || s.Status != cluster.StatusAccepted || *s.TriagedBy != investigator {
				t.Fatalf("accept = %+v, %v", s, err)
			}
			id := *s.LinkedBlocklistID
			linked[tt.name] = id
			if _, ok := imported[id]; ok {
				t.Errorf("accept linked the imported record %s", imported[id].Slug)
			}
			if tt.sameAs != "" && id != linked[tt.sameAs] {
				t.Errorf("linked %s, want the record of %q (%s)", id, tt.sameAs, linked[tt.sameAs])
			}
			for name, earlier := range linked {
				if tt.sameAs == "" && name != tt.name && earlier == id {
					t.Errorf("linked the record of %q, want a new one", name)
				}
			}
			rec := recordsByID(t, db)[id]
			if rec.Severity != cluster.Confirmed || rec.Country != tt.wantCountry || rec.Source != "Accepted cluster submission; attributed to "+investigator {
				t.Errorf("linked record = %+v", rec)
			}
			var got []string
			for _, e := range clusterEvents(t, db, sub.ID)[before:] {
				got = append(got, e[0]+" "+e[1])
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.events) {
				t.Errorf("events = %v, want %v", got, tt.events)
			}
			if v, _ := db.RegistryVersion(ctx); (v > v0) != (len(tt.events) > 0) {
				t.Errorf("version %d -> %d", v0, v)
			}
			if res := check(t, db, tt.entity, tt.wantCountry); !res.Matched || res.HighestSeverity != cluster.Confirmed {
				t.Errorf("check %q in %q = %+v, want confirmed", tt.entity, tt.wantCountry, res)
			}
		})
	}
	// The imported records are as their source says.
	for id, want := range imported {
		if got := recordsByID(t, db)[id]; got.Severity != want.Severity || got.Source != want.Source || got.Country != want.Country {
			t.Errorf("imported %s = %+v, want %+v", want.Slug, got, want)
		}
	}

	// Re-importing the source, and a source claiming the investigator
	// records' slugs with a lower severity, leaves them confirmed.
	ours := recordsByID(t, db)
	var claim []cluster.Record
	for id, r := range ours {
		if _, ok := imported[id]; !ok {
			claim = append(claim, cluster.Record{Slug: r.Slug, EntityName: r.EntityName, Country: r.Country, Severity: cluster.Suspected,
				Source: "another source", Aliases: []string{}})
		}
	}
	imports := []struct {
		name  string
		recs  []cluster.Record
		added int
	}{
		{"re-import of the source", demoRecords(), 0},
		{"a source claiming the investigator records' slugs", claim, len(claim)},
		{"that source again", claim, 0},
	}
	for _, im := range imports {
		t.Run(im.name, func(t *testing.T) {
			res, err := db.ImportRecords(ctx, im.recs, now.Add(time.Hour))
			if err != nil || res.Added != im.added || res.Updated != 0 {
				t.Fatalf("import = %+v, %v", res, err)
			}
			after := recordsByID(t, db)
			for id, want := range ours {
				if _, ok := imported[id]; ok {
					continue
				}
				got := after[id]
				if got.Severity != cluster.Confirmed || got.Source != want.Source || got.Country != want.Country || got.EntityName != want.EntityName {
					t.Errorf("investigator record %s = %+v", want.Slug, got)
				}
			}
			for _, tt := range tests {
				if res := check(t, db, tt.entity, tt.wantCountry); !res.Matched || res.HighestSeverity != cluster.Confirmed {
					t.Errorf("check %q in %q = %+v, want confirmed", tt.entity, tt.wantCountry, res)
				}
			}
		})
	}
	var subs []string
	rows, _ := db.Pool.Query(ctx, `SELECT triage_status FROM cluster_submissions s JOIN cluster_records r ON r.id = s.linked_blocklist_id
		WHERE r.severity <> 'confirmed'`)
	for rows.Next() {
		var st string
		rows.Scan(&st)
		subs = append(subs, st)
	}
	rows.Close()
	if len(subs) != 0 {
		t.Errorf("submissions linked to a record that is not confirmed: %v", subs)
	}
}

// TestDuplicateSubmissionLookup checks how a duplicate without a link
// finds its record: by entity name or alias as an acceptance names it,
// within the submitted country when records of it match, name matches
// before alias matches, and an error listing the candidates when the best
// matches are more than one.
func TestDuplicateSubmissionLookup(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	m, k := memberWithKey(t, db, "member-a")
	recs := append(demoRecords(),
		cluster.Record{Slug: "demo-delta", EntityName: "Demo Delta", Aliases: []string{"Demo Alpha Petroleum"}, Severity: cluster.Likely, Country: "GB"},
		cluster.Record{Slug: "demo-epsilon", EntityName: "Demo Epsilon", Aliases: []string{"Only Alias Co"}, Severity: cluster.Likely})
	if _, err := db.ImportRecords(ctx, recs, time.Now()); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	stored, _, _ := db.AllRecords(ctx)
	for _, r := range stored {
		ids[r.Slug] = r.ID
	}
	tests := []struct {
		name, entity, country string
		want                  string // slug of the linked record; "" for invalid
		msg                   string // in the error
	}{
		{"by alias", "Only Alias Co", "", "demo-epsilon", ""},
		{"alias of one record, other spelling", "demo alpha", "", "demo-alpha", ""},
		{"name before alias", "Demo Alpha Petroleum", "", "demo-alpha", ""},
		{"submitted country first", "Demo Alpha Petroleum", "GB", "demo-delta", ""},
		{"country matching none ignored", "Demo Alpha Petroleum", "SG", "demo-alpha", ""},
		{"alias of two records", "DAP FZE", "", "", "2 blocklist records have this alias: demo-beta (" + ids["demo-beta"] + "), demo-alpha (" + ids["demo-alpha"] + ")"},
		{"no record", "Nobody Trading", "", "", "no blocklist record has this entity name or alias"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := db.TriageSubmission(ctx, submit(t, db, m.ID, k.ID, tt.entity, tt.country), cluster.Triage{Status: cluster.StatusDuplicate, By: investigator}, time.Now())
			if tt.want == "" {
				var ge *graph.Error
				if graph.ErrorCode(err) != graph.CodeInvalid || !strings.Contains(err.Error(), tt.msg) || !errors.As(err, &ge) || ge.Field != "link" {
					t.Errorf("duplicate = %+v, %v; want invalid link containing %q", s, err, tt.msg)
				}
				return
			}
			if err != nil || s.LinkedBlocklistID == nil || *s.LinkedBlocklistID != ids[tt.want] {
				t.Errorf("duplicate = %+v, %v; want linked to %s (%s)", s, err, tt.want, ids[tt.want])
			}
		})
	}
}
