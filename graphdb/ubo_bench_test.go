package graphdb

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/sanctionstest"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

// TestUBOBench is the "ubo" section of scripts/bench (it runs only with
// COMPLIANCE_BENCH=1): the background build of a UBO graph whose root has
// a 3-hop upstream of 186 nodes with diamonds, screened against all 8 real
// lists, against its graph read alone; and the analyst fields' batched walk
// of 30 roots against the same walk one root at a time.
func TestUBOBench(t *testing.T) {
	if os.Getenv("COMPLIANCE_BENCH") != "1" {
		t.Skip("benchmark: run through scripts/bench ubo")
	}
	db := openTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	run := graphdbtest.Unique(t)
	t.Cleanup(func() {
		mustRun(context.Background(), t, db, `MATCH (e:Entity) WHERE e.id STARTS WITH $run DETACH DELETE e`, map[string]any{"run": run + "_"})
	})
	id := func(f string, a ...any) string { return run + "_" + fmt.Sprintf(f, a...) }
	pct := func(v float64) *float64 { return &v }
	var b ownership.Batch
	node := func(nid string, k ownership.Kind, name string) {
		b.Nodes = append(b.Nodes, ownership.Node{ID: nid, Kind: k, Name: name, Jurisdiction: "GB"})
	}
	owns := func(from, to string, p float64) {
		b.Edges = append(b.Edges, ownership.Edge{Key: ownership.EdgeKey(ownership.Owns, from, to, ""), Relation: ownership.Owns, From: from, To: to, Pct: pct(p)})
	}
	// R <- 5 holdings (20% each) <- 6 sub-holdings each (1/6) <- 5 owners
	// each (persons and companies, 20% each); every third owner also holds
	// 10% of the next sub-holding (diamonds). 1 + 5 + 30 + 150 = 186 nodes.
	root := id("R")
	node(root, ownership.Company, run+" Bench Root Holdings Ltd")
	for i := range 5 {
		h := id("h%d", i)
		node(h, ownership.Company, fmt.Sprintf("Bench Holding %d %s", i, run))
		owns(h, root, 20)
		for j := range 6 {
			s := id("s%d_%d", i, j)
			node(s, ownership.Company, fmt.Sprintf("Bench Sub %d %d %s", i, j, run))
			owns(s, h, 100.0/6)
			for k := range 5 {
				o := id("o%d_%d_%d", i, j, k)
				kind := ownership.Person
				if k%2 == 1 {
					kind = ownership.Company
				}
				node(o, kind, fmt.Sprintf("Bench Owner %d %d %d %s", i, j, k, run))
				owns(o, s, 20)
				if k%3 == 0 && j < 5 {
					owns(o, id("s%d_%d", i, j+1), 10)
				}
			}
		}
	}
	st := time.Now()
	if _, err := db.UpsertOwnership(ctx, b); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ubo: loaded %d nodes and %d edges in %s\n", len(b.Nodes), len(b.Edges), time.Since(st).Round(time.Millisecond))

	dir, err := sanctionstest.Dir()
	if err != nil {
		t.Fatal(err)
	}
	lists, err := sanctionstest.LoadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	var states []sanctions.ListState
	for l, es := range lists {
		states = append(states, sanctions.ListState{ID: l, Rows: len(es), IngestedAt: time.Now()})
	}
	scr := &sanctions.Screener{}
	scr.Replace(states, lists.All())
	builder := &ubo.Builder{Ownership: db, Screener: scr, Checker: uboRegistry{}}

	pcts := func(ds []time.Duration) string {
		slices.Sort(ds)
		at := func(p float64) time.Duration {
			return ds[min(len(ds)-1, int(p*float64(len(ds))))].Round(10 * time.Microsecond)
		}
		return fmt.Sprintf("p50 %s, p95 %s, p99 %s (n=%d)", at(0.50), at(0.95), at(0.99), len(ds))
	}
	const n = 20
	var build, read []time.Duration
	var res *ubo.Result
	for i := range n + 1 {
		st := time.Now()
		subs, err := ubo.WalkMany(ctx, db, map[string]ownership.Node{root: b.Nodes[0]}, 3, true)
		if err != nil {
			t.Fatal(err)
		}
		sub := subs[root]
		r := time.Since(st)
		st = time.Now()
		res, err = builder.Build(ctx, ubo.Request{RootEntityName: run + " Bench Root Holdings Ltd", MaxHops: 3})
		if err != nil {
			t.Fatal(err)
		}
		if i >= 1 { // warm-up
			read, build = append(read, r), append(build, time.Since(st))
		}
		if len(sub.Nodes) != 186 {
			t.Fatalf("upstream has %d nodes, want 186", len(sub.Nodes))
		}
	}
	if len(res.Nodes) != 186 || res.SanctionsCoverage != "complete" {
		t.Fatalf("build: %d nodes, coverage %s", len(res.Nodes), res.SanctionsCoverage)
	}
	fmt.Printf("ubo: build of a 186-node, 3-hop upstream screened on all 8 lists (risk %s): %s\n", res.AggregateRisk, pcts(build))
	fmt.Printf("ubo: baseline, the graph read alone (batched walk, 4 queries): %s\n", pcts(read))

	roots, err := db.EntitiesIn(ctx, func() []string {
		var ids []string
		for i := range 5 {
			for j := range 6 {
				ids = append(ids, id("s%d_%d", i, j))
			}
		}
		return ids
	}())
	if err != nil {
		t.Fatal(err)
	}
	var batched, separate []time.Duration
	for range n {
		st := time.Now()
		if _, err := ubo.WalkMany(ctx, db, roots, 1, true); err != nil {
			t.Fatal(err)
		}
		batched = append(batched, time.Since(st))
		st = time.Now()
		for rid, rn := range roots {
			if _, err := ubo.WalkMany(ctx, db, map[string]ownership.Node{rid: rn}, 1, true); err != nil {
				t.Fatal(err)
			}
		}
		separate = append(separate, time.Since(st))
	}
	fmt.Printf("ubo: owners(maxHops: 1) of 30 entities, batched (2 queries): %s\n", pcts(batched))
	fmt.Printf("ubo: baseline, the same walk one entity at a time, as without dataloaders (60 queries): %s\n", pcts(separate))
}
