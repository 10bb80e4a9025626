package graphdb

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/sanctionstest"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

var (
	uboScreenerOnce sync.Once
	uboScreener     *sanctions.Screener
	uboScreenerErr  error
)

// uboTestScreener returns a screener over the real OFAC SDN list of the
// shared data set; the other seven lists are not loaded, so screening is
// partial.
func uboTestScreener(t *testing.T) *sanctions.Screener {
	t.Helper()
	uboScreenerOnce.Do(func() {
		dir, err := sanctionstest.Dir()
		if err != nil {
			uboScreenerErr = err
			return
		}
		p, err := sanctionstest.LoadList(dir, sanctions.ListUSSDN)
		if err != nil {
			uboScreenerErr = err
			return
		}
		uboScreener = &sanctions.Screener{}
		uboScreener.Replace([]sanctions.ListState{{ID: sanctions.ListUSSDN, Rows: len(p.Entries), IngestedAt: time.Now()}}, p.Entries)
	})
	if uboScreenerErr != nil {
		t.Skip("skipping: ", uboScreenerErr)
	}
	return uboScreener
}

// uboRegistry is a cluster.Checker over a fixed record set, exact normalized
// names as the contract says.
type uboRegistry []cluster.Record

func (r uboRegistry) Check(_ context.Context, entity, country string) (cluster.CheckResult, error) {
	if len(cluster.Normalize(entity)) < cluster.MinCheckChars {
		return cluster.CheckResult{}, graph.Invalid("entity", "too short")
	}
	var out cluster.CheckResult
	for _, rec := range r {
		if cluster.Normalize(rec.EntityName) == cluster.Normalize(entity) {
			out.Matched = true
			out.Matches = append(out.Matches, rec)
			if rec.Severity.Rank() > out.HighestSeverity.Rank() {
				out.HighestSeverity = rec.Severity
			}
		}
	}
	return out, nil
}

func TestUBOBuild(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	run := graphdbtest.Unique(t)
	id := func(s string) string { return run + "_" + s }
	t.Cleanup(func() {
		mustRun(context.Background(), t, db, `MATCH (e:Entity) WHERE e.id STARTS WITH $run DETACH DELETE e`, map[string]any{"run": run + "_"})
	})
	p := func(v float64) *float64 { return &v }
	owns := func(from, to string, pct float64) ownership.Edge {
		return ownership.Edge{Key: ownership.EdgeKey(ownership.Owns, id(from), id(to), ""), Relation: ownership.Owns,
			From: id(from), To: id(to), Pct: p(pct), Source: "test"}
	}
	// R (BVI, 2 months old) is owned 60% by the SDN-listed AEROCARIBBEAN
	// AIRLINES (real OFAC SDN entry 36) and 40% by a person; X holds it
	// through a nominee company; B shares nothing with the listed parties.
	batch := ownership.Batch{
		Nodes: []ownership.Node{
			{ID: id("R"), Kind: ownership.Company, Name: run + " Trading Ltd", Jurisdiction: "VG", FoundedOn: "2026-09-15"},
			{ID: id("S"), Kind: ownership.Company, Name: "AEROCARIBBEAN AIRLINES", Jurisdiction: "CU"},
			{ID: id("P"), Kind: ownership.Person, Name: run + " Anna Example"},
			{ID: id("B"), Kind: ownership.Company, Name: run + " Clean Holdings", Jurisdiction: "GB"},
			{ID: id("N"), Kind: ownership.Company, Name: run + " Nominees Limited", Jurisdiction: "GB"},
			{ID: id("Q"), Kind: ownership.Person, Name: run + " Quentin Example"},
			// Two entities share a name; T1 has the lower id.
			{ID: id("T2"), Kind: ownership.Company, Name: run + " Twin Holdings", Jurisdiction: "GB"},
			{ID: id("T1"), Kind: ownership.Company, Name: run + " Twin Holdings", Jurisdiction: "GB"},
			{ID: id("W"), Kind: ownership.Person, Name: run + " Wendy Example"},
		},
		Edges: []ownership.Edge{
			owns("S", "R", 60), owns("P", "R", 40),
			owns("N", "B", 100), owns("Q", "N", 100),
			owns("W", "T1", 100), owns("W", "T2", 100),
		},
	}
	if _, err := db.UpsertOwnership(ctx, batch); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	b := &ubo.Builder{
		Ownership: db, Screener: uboTestScreener(t),
		Checker: uboRegistry{{ID: "c1", Slug: "clean", EntityName: run + " Clean Holdings", Severity: cluster.Suspected}},
		Now:     func() time.Time { return now },
	}

	t.Run("listed owner blocks the root", func(t *testing.T) {
		res, err := b.Build(ctx, ubo.Request{RootEntityName: run + " trading LTD.", RootJurisdiction: "VG", MaxHops: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !res.RootFound || res.RootEntityID != id("R") || len(res.Nodes) != 3 || len(res.Edges) != 2 {
			t.Fatalf("root %q found %v, %d nodes, %d edges; want R with 3 nodes, 2 edges", res.RootEntityID, res.RootFound, len(res.Nodes), len(res.Edges))
		}
		var hit *ubo.SanctionsMatch
		for i, m := range res.SanctionsMatches {
			if m.EntityID == id("S") && m.List == "us_sdn" && m.SourceID == "36" {
				hit = &res.SanctionsMatches[i]
			}
			if m.EntityID != id("S") {
				t.Errorf("unexpected match of %s: %+v", m.EntityID, m)
			}
		}
		if hit == nil {
			t.Fatalf("sanctions matches = %+v, want S on us_sdn 36", res.SanctionsMatches)
		}
		if res.OFAC50.Status != ubo.OFACBlocked {
			t.Errorf("OFAC50 = %+v, want blocked", res.OFAC50)
		}
		if res.AggregateRisk != ubo.RiskHigh || !strings.Contains(res.RiskReasons[0], "blocked under the OFAC 50% rule") {
			t.Errorf("risk = %s %q, want high, OFAC 50 first", res.AggregateRisk, res.RiskReasons)
		}
		if res.SanctionsCoverage != "partial" || len(res.ListsMissing) != 7 {
			t.Errorf("coverage = %s missing %v, want partial with 7 lists missing", res.SanctionsCoverage, res.ListsMissing)
		}
		if len(res.BeneficialOwners) != 1 || res.BeneficialOwners[0].EntityID != id("P") || res.BeneficialOwners[0].PctMin != 40 {
			t.Errorf("beneficial owners = %+v, want P at 40%%", res.BeneficialOwners)
		}
		v := res.ShellCompanyVerdicts[id("R")]
		var names []string
		for _, s := range v.Signals {
			names = append(names, s.Name)
		}
		if got, want := strings.Join(names, ","), "secrecy_jurisdiction,recent_incorporation"; got != want || v.Verdict != ubo.VerdictPossibleShell {
			t.Errorf("R verdict = %s %s, want possible_shell %s", v.Verdict, got, want)
		}
		for _, n := range res.Nodes {
			if n.Blocklist.Status != ubo.BlocklistClear || !n.Sanctions.Screened {
				t.Errorf("node %s: blocklist %+v sanctions %+v, want clear and screened", n.Name, n.Blocklist, n.Sanctions)
			}
			if n.ID == id("S") && (n.EffectiveMin == nil || *n.EffectiveMin != 60 || n.Hops != 1) {
				t.Errorf("S effective = %v hops %d, want 60%% at 1 hop", n.EffectiveMin, n.Hops)
			}
		}
	})

	t.Run("nominee owner and cluster lead", func(t *testing.T) {
		res, err := b.Build(ctx, ubo.Request{RootEntityName: run + " Clean Holdings", MaxHops: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Truncated {
			t.Errorf("MaxHops 1 with owners at hop 2: Truncated = false")
		}
		if len(res.ClusterHits) != 1 || res.ClusterHits[0].Severity != "suspected" {
			t.Fatalf("cluster hits = %+v, want the suspected record", res.ClusterHits)
		}
		v := res.ShellCompanyVerdicts[id("B")]
		if v.Verdict != ubo.VerdictPossibleShell || len(v.Signals) != 1 || v.Signals[0].Name != ubo.SignalNomineeOfficers {
			t.Errorf("B verdict = %+v, want possible_shell on nominee_officers", v)
		}
		if res.AggregateRisk != ubo.RiskMedium {
			t.Errorf("risk = %s %q, want medium", res.AggregateRisk, res.RiskReasons)
		}
		want := []string{"possible shell company (nominee_officers)", "a publicly reported lead", "sanctions screening was partial", "stopped at max_hops"}
		for _, w := range want {
			if !strings.Contains(strings.Join(res.RiskReasons, "\n"), w) {
				t.Errorf("reasons %q lack %q", res.RiskReasons, w)
			}
		}
	})

	t.Run("batched walk equals Upstream and Downstream", func(t *testing.T) {
		roots, err := db.EntitiesIn(ctx, []string{id("R"), id("B"), id("S"), id("none")})
		if err != nil {
			t.Fatal(err)
		}
		if len(roots) != 3 {
			t.Fatalf("EntitiesIn = %d entities, want 3", len(roots))
		}
		for _, tc := range []struct {
			hops     int
			upstream bool
		}{{1, true}, {3, true}, {1, false}, {2, false}} {
			got, err := ubo.WalkMany(ctx, db, roots, tc.hops, tc.upstream)
			if err != nil {
				t.Fatal(err)
			}
			for rid := range roots {
				want, err := db.Upstream(ctx, rid, tc.hops)
				if !tc.upstream {
					want, err = db.Downstream(ctx, rid, tc.hops)
				}
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got[rid], want) {
					t.Errorf("WalkMany(%s, %d, up=%v) = %+v, want %+v", rid, tc.hops, tc.upstream, got[rid], want)
				}
			}
		}
	})

	t.Run("root not in the ownership data", func(t *testing.T) {
		res, err := b.Build(ctx, ubo.Request{RootEntityName: run + " No Such Company", MaxHops: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.RootFound || len(res.Nodes) != 0 || res.AggregateRisk != ubo.RiskUnknown ||
			!strings.Contains(res.RiskReasons[0], "not in the ownership data") {
			t.Errorf("got found %v, %d nodes, risk %s %q; want not found, empty, unknown", res.RootFound, len(res.Nodes), res.AggregateRisk, res.RiskReasons)
		}
	})

	t.Run("ambiguous root name is unknown, naming the entity assessed", func(t *testing.T) {
		res, err := b.Build(ctx, ubo.Request{RootEntityName: run + " Twin Holdings", RootJurisdiction: "GB", MaxHops: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("the root name is ambiguous: it matched 2 entities; %s Twin Holdings (%s) was assessed, not %s", run, id("T1"), id("T2"))
		if !res.RootFound || res.RootEntityID != id("T1") || !reflect.DeepEqual(res.Candidates, []string{id("T2")}) ||
			res.AggregateRisk != ubo.RiskUnknown || !slices.Contains(res.RiskReasons, want) {
			t.Errorf("root %s, candidates %v, risk %s %q; want T1, [T2], unknown with %q", res.RootEntityID, res.Candidates, res.AggregateRisk, res.RiskReasons, want)
		}
	})

	t.Run("jurisdiction excludes another country's entity", func(t *testing.T) {
		res, err := b.Build(ctx, ubo.Request{RootEntityName: run + " Trading Ltd", RootJurisdiction: "GB", MaxHops: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.RootFound {
			t.Errorf("root found as %s in GB; it is registered in VG", res.RootEntityID)
		}
	})
}

// uboConformanceCases exercise the batched reads on the entities
// ownershipCases(run) wrote (they run after it).
func uboConformanceCases(run string) []conformanceCase {
	id := func(s string) string { return run + "_o_" + s }
	rootRow := row{"id": id("R"), "kind": "company", "name": "Root Co", "jurisdiction": "GB",
		"identifiers": `[{"scheme":"GB-COH","id":"1"}]`, "address": "1 Main St", "founded_on": "2001-02-03",
		"nominee": false, "source": "t"}
	plain := func(s, kind, name string) row {
		return row{"id": id(s), "kind": kind, "name": name, "jurisdiction": "GB", "identifiers": nil, "address": nil,
			"founded_on": nil, "nominee": false, "source": "t"}
	}
	// The far end's has_owners/has_holdings flags (set at import): owners
	// here hold and own nothing; the root is owned and holds nothing.
	with := func(base row, near, rel, k string, p, lo, hi, role any) row {
		out := row{"near": near, "rel": rel, "key": k, "pct": p, "pct_min": lo, "pct_max": hi, "role": role, "as_of": "2024-01-01", "edge_source": "t"}
		if base["id"] == id("R") {
			out["has_owners"], out["has_holdings"] = true, nil
		} else {
			out["has_owners"], out["has_holdings"] = nil, true
		}
		for c, v := range base {
			out[c] = v
		}
		return out
	}
	pat, trust := plain("P", "person", "Pat Doe"), plain("T", "trust", "Doe Trust")
	return []conformanceCase{
		{name: "ubo entities in", query: qUBOEntitiesIn, params: map[string]any{"ids": []string{id("R"), id("P"), id("missing")}},
			anyOrder: true, want: []row{rootRow, pat}},
		{name: "ubo entities in none", query: qUBOEntitiesIn, params: map[string]any{"ids": []string{id("missing")}}},
		{name: "ubo owners of", query: qUBOOwnersOf, params: map[string]any{"ids": []string{id("R"), id("P"), id("T")}}, anyOrder: true,
			want: []row{
				with(pat, id("R"), "OWNS", "k1", 60.5, nil, nil, nil),
				with(trust, id("R"), "OWNS", "k2", nil, 25.5, 50.5, nil),
				with(pat, id("R"), "CONTROLS", "k3", nil, nil, nil, "board_appointment"),
			}},
		{name: "ubo owned by", query: qUBOOwnedBy, params: map[string]any{"ids": []string{id("P"), id("T"), id("R")}}, anyOrder: true,
			want: []row{
				with(rootRow, id("P"), "OWNS", "k1", 60.5, nil, nil, nil),
				with(rootRow, id("P"), "CONTROLS", "k3", nil, nil, nil, "board_appointment"),
				with(rootRow, id("T"), "OWNS", "k2", nil, 25.5, 50.5, nil),
			}},
	}
}
