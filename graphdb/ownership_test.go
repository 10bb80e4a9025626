package graphdb

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

func pct(v float64) *float64 { return &v }

// testOwnership returns a batch with every id prefixed by run:
//
//	P1 -60%-> A -50%-> R         (chain)
//	P2 -100%-> B -25..50%-> R    (band)
//	A -100%-> C -20%-> R         (diamond: P1 also reaches R via C)
//	R -10%-> A                   (cycle A -> R -> A)
//	P3 -CONTROLS board-> R
//	P4 -unknown-> D -100%-> P2?  no: D -unknown-> B
func testOwnership(run string) ownership.Batch {
	id := func(s string) string { return run + "_" + s }
	node := func(s string, k ownership.Kind, name string) ownership.Node {
		return ownership.Node{ID: id(s), Kind: k, Name: name, Jurisdiction: "GB", Source: "test"}
	}
	owns := func(from, to string, p *float64, lo, hi *float64) ownership.Edge {
		return ownership.Edge{Key: ownership.EdgeKey(ownership.Owns, id(from), id(to), ""), Relation: ownership.Owns,
			From: id(from), To: id(to), Pct: p, PctMin: lo, PctMax: hi, AsOf: "2024-01-01", Source: "test"}
	}
	b := ownership.Batch{
		Nodes: []ownership.Node{
			node("R", ownership.Company, run+" Root Holdings Ltd"),
			node("A", ownership.Company, "A Co"), node("B", ownership.Company, "B Co"),
			node("C", ownership.Company, "C Co"), node("D", ownership.Trust, "D Trust"),
			node("P1", ownership.Person, "Person One"), node("P2", ownership.Person, "Person Two"),
			node("P3", ownership.Person, "Person Three"),
		},
		Edges: []ownership.Edge{
			owns("P1", "A", pct(60), nil, nil),
			owns("A", "R", pct(50), nil, nil),
			owns("P2", "B", pct(100), nil, nil),
			owns("B", "R", nil, pct(25), pct(50)),
			owns("A", "C", pct(100), nil, nil),
			owns("C", "R", pct(20), nil, nil),
			owns("R", "A", pct(10), nil, nil),
			owns("D", "B", nil, nil, nil),
			{Key: ownership.EdgeKey(ownership.Controls, id("P3"), id("R"), ownership.BoardAppointment), Relation: ownership.Controls,
				From: id("P3"), To: id("R"), Role: ownership.BoardAppointment, Source: "test"},
		},
	}
	b.Nodes[0].Identifiers = []ownership.Identifier{{Scheme: "GB-COH", ID: "01234567"}}
	return b
}

func cleanupOwnership(t testing.TB, db *DB, run string) {
	t.Cleanup(func() {
		mustRun(context.Background(), t, db, `MATCH (e:Entity) WHERE e.id STARTS WITH $run DETACH DELETE e`, map[string]any{"run": run + "_"})
	})
}

func TestUpsertOwnershipIdempotent(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	cleanupOwnership(t, db, run)
	b := testOwnership(run)
	want := ImportStats{Nodes: 8, Owns: 8, Controls: 1}
	for i := range 2 {
		st, err := db.UpsertOwnership(ctx, b)
		if err != nil {
			t.Fatalf("UpsertOwnership #%d: %v", i+1, err)
		}
		if st != want {
			t.Errorf("UpsertOwnership #%d = %+v, want %+v", i+1, st, want)
		}
		nodes := mustRun(ctx, t, db, `MATCH (e:Entity) WHERE e.id STARTS WITH $run RETURN count(e) AS n`, map[string]any{"run": run + "_"})
		// Anchored per node: NornicDB ignores a WHERE on the start node of
		// a relationship pattern when counting.
		edges := int64(0)
		for _, n := range b.Nodes {
			edges += mustRun(ctx, t, db, `MATCH (e:Entity {id: $id})-[r]->(:Entity) RETURN count(r) AS n`, map[string]any{"id": n.ID})[0]["n"].(int64)
		}
		if nodes[0]["n"] != int64(8) || edges != 9 {
			t.Errorf("after import #%d: stored %v nodes and %v edges, want 8 and 9", i+1, nodes[0]["n"], edges)
		}
	}
	root, err := db.Entity(ctx, run+"_R")
	if err != nil {
		t.Fatal(err)
	}
	if want := b.Nodes[0]; !reflect.DeepEqual(root, want) {
		t.Errorf("Entity(R) = %+v, want %+v", root, want)
	}
}

func TestUpsertOwnershipRejectsBeforeWriting(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	cleanupOwnership(t, db, run)
	b := testOwnership(run)
	b.Edges = append(b.Edges, ownership.Edge{Key: "k", Relation: ownership.Owns, From: run + "_P1", To: run + "_nowhere"})
	_, err := db.UpsertOwnership(ctx, b)
	if graph.ErrorCode(err) != graph.CodeInvalid {
		t.Fatalf("UpsertOwnership(dangling edge) = %v, want invalid", err)
	}
	got := mustRun(ctx, t, db, `MATCH (e:Entity) WHERE e.id STARTS WITH $run RETURN count(e) AS n`, map[string]any{"run": run + "_"})
	if got[0]["n"] != int64(0) {
		t.Errorf("after a rejected import %v nodes are stored, want 0", got[0]["n"])
	}
}

func TestUpstream(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	cleanupOwnership(t, db, run)
	if _, err := db.UpsertOwnership(ctx, testOwnership(run)); err != nil {
		t.Fatal(err)
	}
	ids := func(sub ownership.Subgraph) (nodes, edges []string) {
		for _, n := range sub.Nodes {
			nodes = append(nodes, n.ID[len(run)+1:])
		}
		for _, e := range sub.Edges {
			edges = append(edges, e.From[len(run)+1:]+">"+e.To[len(run)+1:])
		}
		return nodes, edges
	}
	tests := []struct {
		name         string
		root         string
		hops         int
		down         bool
		nodes, edges []string
		truncated    bool
		frontier     []string
	}{
		{name: "one hop", root: "R", hops: 1, nodes: []string{"R", "A", "B", "C", "P3"},
			edges: []string{"A>R", "B>R", "C>R", "P3>R"}, truncated: true, frontier: []string{"A", "B", "C"}},
		{name: "three hops with cycle and diamond", root: "R", hops: 3,
			nodes: []string{"R", "A", "B", "C", "D", "P1", "P2", "P3"},
			edges: []string{"A>C", "A>R", "B>R", "C>R", "D>B", "P1>A", "P2>B", "P3>R", "R>A"}},
		{name: "downstream", root: "P1", hops: 2, down: true, nodes: []string{"P1", "A", "C", "R"},
			edges: []string{"A>C", "A>R", "P1>A"}, truncated: true, frontier: []string{"C", "R"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := db.Upstream
			if tc.down {
				f = db.Downstream
			}
			sub, err := f(ctx, run+"_"+tc.root, tc.hops)
			if err != nil {
				t.Fatal(err)
			}
			nodes, edges := ids(sub)
			if !reflect.DeepEqual(nodes, tc.nodes) || !reflect.DeepEqual(edges, tc.edges) {
				t.Errorf("nodes %v edges %v, want %v %v", nodes, edges, tc.nodes, tc.edges)
			}
			var frontier []string
			for _, id := range sub.Frontier {
				frontier = append(frontier, id[len(run)+1:])
			}
			if sub.Truncated != tc.truncated || !reflect.DeepEqual(frontier, tc.frontier) {
				t.Errorf("truncated %v frontier %v, want %v %v", sub.Truncated, frontier, tc.truncated, tc.frontier)
			}
		})
	}

	t.Run("effective ownership on the stored graph", func(t *testing.T) {
		sub, err := db.Upstream(ctx, run+"_R", 3)
		if err != nil {
			t.Fatal(err)
		}
		res := ownership.Compute(sub, run+"_R", ownership.Options{})
		got := map[string]ownership.Share{}
		for _, o := range res.Owners {
			got[o.Node.ID[len(run)+1:]] = o.Share
		}
		// P1: 60% x 50% + 60% x 100% x 20% = 30 + 12; P2: 100% x 25..50%.
		want := map[string]ownership.Share{"P1": ownership.Exact(42), "P2": ownership.Band(25, 50)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("owners %v, want %v", got, want)
		}
	})

	t.Run("errors", func(t *testing.T) {
		if _, err := db.Upstream(ctx, run+"_missing", 3); graph.ErrorCode(err) != graph.CodeNotFound {
			t.Errorf("Upstream(missing) = %v, want not_found", err)
		}
		if _, err := db.Upstream(ctx, run+"_R", 7); graph.ErrorCode(err) != graph.CodeInvalid {
			t.Errorf("Upstream(max_hops 7) = %v, want invalid", err)
		}
	})
}

func TestEntitiesByNameAndIDs(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	cleanupOwnership(t, db, run)
	if _, err := db.UpsertOwnership(ctx, testOwnership(run)); err != nil {
		t.Fatal(err)
	}
	got, err := db.EntitiesByName(ctx, run+" ROOT holdings limited", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != run+"_R" {
		t.Errorf("EntitiesByName = %+v, want %s_R", got, run)
	}
	m, err := db.EntitiesByIDs(ctx, []string{run + "_A", run + "_missing", run + "_P2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m[run+"_A"].Name != "A Co" || m[run+"_P2"].Kind != ownership.Person {
		t.Errorf("EntitiesByIDs = %+v, want A and P2", m)
	}
	if _, err := db.EntitiesByName(ctx, "x", 1000); graph.ErrorCode(err) != graph.CodeInvalid {
		t.Errorf("EntitiesByName(limit 1000) = %v, want invalid", err)
	}
}

// More entities share a name key than the limit: the lowest ids come back,
// whatever the order they were written in.
func TestEntitiesByNameLimitTakesLowestIDs(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	cleanupOwnership(t, db, run)
	var b ownership.Batch
	for _, s := range []string{"N5", "N2", "N7", "N1", "N6", "N3", "N4"} {
		b.Nodes = append(b.Nodes, ownership.Node{ID: run + "_" + s, Kind: ownership.Company, Name: run + " Same Name Ltd", Source: "test"})
	}
	if _, err := db.UpsertOwnership(ctx, b); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		limit int
		want  []string
	}{
		{"limit below the matches", 3, []string{"N1", "N2", "N3"}},
		{"limit one", 1, []string{"N1"}},
		{"limit above the matches", 20, []string{"N1", "N2", "N3", "N4", "N5", "N6", "N7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.EntitiesByName(ctx, run+" same name limited", tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, n := range got {
				ids = append(ids, strings.TrimPrefix(n.ID, run+"_"))
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("EntitiesByName(limit %d) = %q, want %q", tt.limit, ids, tt.want)
			}
		})
	}
}
