package graphdb

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/sanctionstest"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

var (
	fullScreenerOnce sync.Once
	fullScreener     *sanctions.Screener
	fullScreenerErr  error
)

// fullTestScreener returns a screener over all 8 real lists of the shared
// data set (complete coverage), or skips t.
func fullTestScreener(t *testing.T) *sanctions.Screener {
	t.Helper()
	fullScreenerOnce.Do(func() {
		dir, err := sanctionstest.Dir()
		if err != nil {
			fullScreenerErr = err
			return
		}
		lists, err := sanctionstest.LoadAll(dir)
		if err != nil {
			fullScreenerErr = err
			return
		}
		var states []sanctions.ListState
		for id, es := range lists {
			states = append(states, sanctions.ListState{ID: id, Rows: len(es), IngestedAt: time.Now()})
		}
		fullScreener = &sanctions.Screener{}
		fullScreener.Replace(states, lists.All())
	})
	if fullScreenerErr != nil {
		t.Skip("skipping: ", fullScreenerErr)
	}
	return fullScreener
}

// TestUBOKYCExposure maps real builds (real Bolt server, the 8 real lists)
// to the KYC ownership step's evidence (the step's status per rule state is
// graph/kyc's TestSteps; the whole run is cmd/compliance's e2e).
// AEROCARIBBEAN AIRLINES is OFAC SDN entry 36.
func TestUBOKYCExposure(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	run := graphdbtest.Unique(t)
	id := func(s string) string { return run + "_k_" + s }
	name := func(s string) string { return run + " " + s }
	t.Cleanup(func() {
		mustRun(context.Background(), t, db, `MATCH (e:Entity) WHERE e.id STARTS WITH $run DETACH DELETE e`, map[string]any{"run": run + "_k_"})
	})
	p := func(v float64) *float64 { return &v }
	owns := func(from, to string, pct float64) ownership.Edge {
		return ownership.Edge{Key: ownership.EdgeKey(ownership.Owns, id(from), id(to), ""), Relation: ownership.Owns,
			From: id(from), To: id(to), Pct: p(pct), Source: "test"}
	}
	company := func(s, jur string) ownership.Node {
		return ownership.Node{ID: id(s), Kind: ownership.Company, Name: name(s), Jurisdiction: jur}
	}
	person := func(s string) ownership.Node {
		return ownership.Node{ID: id(s), Kind: ownership.Person, Name: name(s)}
	}
	band := ownership.Edge{Key: ownership.EdgeKey(ownership.Owns, id("S"), id("Banded Ltd"), ""), Relation: ownership.Owns,
		From: id("S"), To: id("Banded Ltd"), PctMin: p(40), PctMax: p(60), Source: "test"}
	batch := ownership.Batch{
		Nodes: []ownership.Node{
			{ID: id("S"), Kind: ownership.Company, Name: "AEROCARIBBEAN AIRLINES", Jurisdiction: "CU"},
			company("Direct Ltd", "GB"), company("Holding Ltd", "GB"), company("Indirect Ltd", "GB"),
			company("Banded Ltd", "GB"), company("Minority Ltd", "GB"), company("Clean Ltd", "GB"),
			company("Deep Ltd", "GB"), company("Middle Ltd", "GB"),
			person("Anna Owner"), person("Bert Owner"), person("Carla Owner"),
		},
		Edges: []ownership.Edge{
			owns("S", "Direct Ltd", 60), owns("Anna Owner", "Direct Ltd", 40),
			owns("S", "Holding Ltd", 60), owns("Holding Ltd", "Indirect Ltd", 60), owns("Bert Owner", "Indirect Ltd", 40),
			band,
			owns("S", "Minority Ltd", 30), owns("Carla Owner", "Minority Ltd", 70),
			owns("Anna Owner", "Clean Ltd", 100),
			owns("Middle Ltd", "Deep Ltd", 100), owns("Bert Owner", "Middle Ltd", 100),
		},
	}
	if _, err := db.UpsertOwnership(ctx, batch); err != nil {
		t.Fatal(err)
	}
	full := &ubo.Builder{Ownership: db, Screener: fullTestScreener(t)}
	sdnOnly := &ubo.Builder{Ownership: db, Screener: uboTestScreener(t)}
	s := func(share float64, path ...string) kyc.ExposedOwner {
		return kyc.ExposedOwner{EntityID: id("S"), Name: "AEROCARIBBEAN AIRLINES", Lists: []string{"us_sdn"}, Confirmed: true, EffectiveShare: share, Path: path}
	}
	for _, tc := range []struct {
		name      string
		lookup    ubo.KYCExposure
		company   string
		country   string
		found     bool
		rule      string
		owners    []kyc.ExposedOwner
		aggregate float64
		evidence  string // a substring of the evidence lines
	}{
		{name: "not found", lookup: ubo.KYCExposure{Builder: full}, company: name("No Such Ltd"),
			rule: kyc.OFAC50NotAssessed, evidence: "holds no entity"},
		{name: "blocked via OFAC 50, direct", lookup: ubo.KYCExposure{Builder: full}, company: name("Direct Ltd"), country: "GB", found: true,
			rule: kyc.OFAC50Blocked, owners: []kyc.ExposedOwner{s(0.6, "AEROCARIBBEAN AIRLINES", name("Direct Ltd"))}, aggregate: 0.6,
			evidence: "is blocked"},
		{name: "blocked via OFAC 50, through a blocked holding (36% effective)", lookup: ubo.KYCExposure{Builder: full}, company: name("Indirect Ltd"), found: true,
			rule: kyc.OFAC50Blocked, owners: []kyc.ExposedOwner{s(0.36, "AEROCARIBBEAN AIRLINES", name("Holding Ltd"), name("Indirect Ltd"))}, aggregate: 0.36,
			evidence: name("Holding Ltd") + " is blocked"},
		{name: "possibly blocked: a 40-60% band", lookup: ubo.KYCExposure{Builder: full}, company: name("Banded Ltd"), found: true,
			rule: kyc.OFAC50PossiblyBlocked, owners: []kyc.ExposedOwner{s(0.4, "AEROCARIBBEAN AIRLINES", name("Banded Ltd"))}, aggregate: 0.4,
			evidence: "possibly blocked"},
		{name: "listed owner below 50%", lookup: ubo.KYCExposure{Builder: full}, company: name("Minority Ltd"), found: true,
			rule: kyc.OFAC50BelowThreshold, owners: []kyc.ExposedOwner{s(0.3, "AEROCARIBBEAN AIRLINES", name("Minority Ltd"))}, aggregate: 0.3,
			evidence: "AEROCARIBBEAN AIRLINES is blocked"},
		{name: "clean owners on all 8 lists", lookup: ubo.KYCExposure{Builder: full}, company: name("Clean Ltd"), found: true,
			rule: kyc.OFAC50Clear},
		{name: "degraded: 7 lists missing", lookup: ubo.KYCExposure{Builder: sdnOnly}, company: name("Clean Ltd"), found: true,
			rule: kyc.OFAC50NotAssessed, evidence: "not every node could be screened"},
		{name: "truncated: owners beyond max hops", lookup: ubo.KYCExposure{Builder: full, MaxHops: 1}, company: name("Deep Ltd"), found: true,
			rule: kyc.OFAC50NotAssessed, evidence: "stopped at max_hops"},
		{name: "no sanctions lists loaded", lookup: ubo.KYCExposure{Builder: &ubo.Builder{Ownership: db}}, company: name("Clean Ltd"), found: true,
			rule: kyc.OFAC50NotAssessed, evidence: "not every node could be screened"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := tc.lookup.Exposure(ctx, tc.company, tc.country)
			if err != nil {
				t.Fatal(err)
			}
			if x.Found != tc.found || x.OFAC50Rule != tc.rule || x.Coverage != graph.CaveatUBOPartial {
				t.Errorf("found %v rule %s coverage %q; want %v %s %q", x.Found, x.OFAC50Rule, x.Coverage, tc.found, tc.rule, graph.CaveatUBOPartial)
			}
			if tc.found && x.EntityID != id(strings.TrimPrefix(tc.company, run+" ")) {
				t.Errorf("entity %q, want %q", x.EntityID, id(strings.TrimPrefix(tc.company, run+" ")))
			}
			want := tc.owners
			if want == nil {
				want = []kyc.ExposedOwner{}
			}
			if !reflect.DeepEqual(x.BlockedOwners, want) {
				t.Errorf("owners = %+v\nwant     %+v", x.BlockedOwners, want)
			}
			if x.AggregateBlockedShare < tc.aggregate-1e-9 || x.AggregateBlockedShare > tc.aggregate+1e-9 {
				t.Errorf("aggregate = %v, want %v", x.AggregateBlockedShare, tc.aggregate)
			}
			if ev := strings.Join(x.Evidence, "\n"); !strings.Contains(ev, tc.evidence) {
				t.Errorf("evidence %q lacks %q", x.Evidence, tc.evidence)
			}
		})
	}

	t.Run("build fails: unavailable", func(t *testing.T) {
		dead, cancel := context.WithCancel(ctx)
		cancel()
		_, err := ubo.KYCExposure{Builder: full}.Exposure(dead, name("Clean Ltd"), "")
		if graph.ErrorCode(err) != graph.CodeUnavailable || !strings.Contains(err.Error(), "ownership graph is unavailable") {
			t.Errorf("err = %v (%s), want unavailable naming the ownership graph", err, graph.ErrorCode(err))
		}
	})
}
