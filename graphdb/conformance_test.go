package graphdb

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

// The conformance suite runs every registered query against the server
// NEO4J_URI names and checks its answer, so that the same suite proves the
// Cypher on NornicDB and on Neo4j 5. A new query joins the suite by adding
// at least one case to conformanceCases; TestConformanceCoversEveryQuery
// fails until it does.

// row is one expected record, keyed by column.
type row = map[string]any

// A conformanceCase runs one registered query and states its answer.
type conformanceCase struct {
	name     string // subtest name
	query    query
	params   map[string]any
	want     []row // expected records; nil for none
	anyOrder bool  // the records may come in any order
}

// conformanceCases returns the cases in the order they run; a case may rely
// on the writes of the cases before it. Every id or name a case writes
// starts with run, which keeps concurrent test runs apart, and
// cleanupConformance deletes them.
func conformanceCases(run string) []conformanceCase {
	mig := run + "_migration"
	return append([]conformanceCase{
		{name: "ping", query: qPing, want: []row{{"one": int64(1)}}},

		{name: "migration log index", query: qMigrationLogIndex},
		{name: "migration log index again", query: qMigrationLogIndex},

		{
			name:   "applied before record",
			query:  qMigrationsApplied,
			params: map[string]any{"names": []string{mig}},
		},
		{
			name:  "record new",
			query: qMigrationRecord,
			params: map[string]any{
				"name": mig, "version": int64(1), "applied_at": "2026-01-02T03:04:05Z", "run": "first",
			},
			want: []row{{"created": true}},
		},
		{
			name:  "record existing",
			query: qMigrationRecord,
			params: map[string]any{
				"name": mig, "version": int64(1), "applied_at": "2026-01-02T03:04:06Z", "run": "second",
			},
			want: []row{{"created": false}},
		},
		{
			name:   "applied one of two",
			query:  qMigrationsApplied,
			params: map[string]any{"names": []string{run + "_absent", mig}},
			want:   []row{{"name": mig}},
		},
		{
			name:   "applied none asked",
			query:  qMigrationsApplied,
			params: map[string]any{"names": []string{}},
		},
	}, slices.Concat(sanctionsCases(run), clusterCases(run), ownershipCases(run), uboConformanceCases(run))...)
}

// clusterCases exercise the cluster mirror's statements: group g holds a
// and b; a SHARES_ALIAS b; c stands alone.
func clusterCases(run string) []conformanceCase {
	a, b, c, g := run+"_ca", run+"_cb", run+"_cc", run+"_cg"
	ent := func(id, slug, name, sev string, prot bool) map[string]any {
		return map[string]any{"id": id, "slug": slug, "name": name, "severity": sev, "country": "AE", "group_id": g,
			"sanctions_source": "", "protected": prot}
	}
	node := func(id, slug, name, sev string, prot bool) row {
		return row{"id": id, "slug": slug, "name": name, "severity": sev, "country": "AE", "sanctions_source": "", "protected": prot}
	}
	return []conformanceCase{
		{name: "cluster group upsert", query: qClusterGroupUpsert,
			params: map[string]any{"rows": []map[string]any{{"id": g, "slug": "demo-ring"}}}, want: []row{{"n": int64(1)}}},
		{name: "cluster entity upsert", query: qClusterEntityUpsert,
			params: map[string]any{"rows": []map[string]any{ent(a, "demo-a", "Demo A", "confirmed", false), ent(b, "demo-b", "Demo B", "likely", true), ent(c, "demo-c", "Demo C", "suspected", false)}},
			want:   []row{{"n": int64(3)}}},
		{name: "cluster link members", query: qClusterLinkMembers,
			params: map[string]any{"rows": []map[string]any{{"entity": a, "group": g}, {"entity": b, "group": g}}}, want: []row{{"n": int64(2)}}},
		{name: "cluster link members again", query: qClusterLinkMembers,
			params: map[string]any{"rows": []map[string]any{{"entity": a, "group": g}}}, want: []row{{"n": int64(1)}}},
		{name: "cluster link aliases", query: qClusterLinkAliases,
			params: map[string]any{"rows": []map[string]any{{"from": a, "to": b, "key": "demoab", "name": "Demo AB"}}}, want: []row{{"n": int64(1)}}},
		{name: "cluster entity", query: qClusterEntity, params: map[string]any{"id": b},
			want: []row{node(b, "demo-b", "Demo B", "likely", true)}},
		{name: "cluster entity absent", query: qClusterEntity, params: map[string]any{"id": run + "_none"}},
		{name: "cluster entity groups", query: qClusterEntityGroups, params: map[string]any{"id": a},
			want: []row{{"id": g, "slug": "demo-ring"}}},
		{name: "cluster entity groups none", query: qClusterEntityGroups, params: map[string]any{"id": c}},
		{name: "cluster group members", query: qClusterGroupMembers, params: map[string]any{"id": g}, anyOrder: true,
			want: []row{node(a, "demo-a", "Demo A", "confirmed", false), node(b, "demo-b", "Demo B", "likely", true)}},
		{name: "cluster aliases out", query: qClusterAliasesOut, params: map[string]any{"id": a},
			want: []row{mergeRow(node(b, "demo-b", "Demo B", "likely", true), row{"key": "demoab", "via": "Demo AB"})}},
		{name: "cluster aliases in", query: qClusterAliasesIn, params: map[string]any{"id": b},
			want: []row{mergeRow(node(a, "demo-a", "Demo A", "confirmed", false), row{"key": "demoab", "via": "Demo AB"})}},
		{name: "cluster aliases out none", query: qClusterAliasesOut, params: map[string]any{"id": b}},
		{name: "cluster unlink members", query: qClusterUnlinkMembers, params: map[string]any{"ids": []string{a, c}}, want: []row{{"n": int64(1)}}},
		{name: "cluster unlink aliases", query: qClusterUnlinkAliases, params: map[string]any{"ids": []string{a, b}}, want: []row{{"n": int64(1)}}},
		{name: "cluster group members after unlink", query: qClusterGroupMembers, params: map[string]any{"id": g},
			want: []row{node(b, "demo-b", "Demo B", "likely", true)}},
		{name: "cluster aliases in after unlink", query: qClusterAliasesIn, params: map[string]any{"id": b}},
		{name: "cluster delete entities", query: qClusterDeleteEntities, params: map[string]any{"ids": []string{c, g}}},
		{name: "cluster delete groups", query: qClusterDeleteGroups, params: map[string]any{"ids": []string{c, g}}},
		{name: "cluster entity groups after delete", query: qClusterEntityGroups, params: map[string]any{"id": b}},
		{name: "cluster entity after delete", query: qClusterEntity, params: map[string]any{"id": c}},
		{name: "cluster group members after delete", query: qClusterGroupMembers, params: map[string]any{"id": g}},
	}
}

func mergeRow(a, b row) row {
	out := row{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// sanctionsCases exercise the sanctions statements on a list named run_l.
func sanctionsCases(run string) []conformanceCase {
	list := run + "_l"
	entry := func(n, name, key string) map[string]any {
		return map[string]any{"id": list + ":" + n, "list": list, "source_id": n, "name": name, "kind": "entity", "name_key": key}
	}
	return []conformanceCase{
		{name: "sanctions upsert old snapshot", query: qSanctionsUpsert,
			params: map[string]any{"snapshot": "s1", "rows": []map[string]any{entry("3", "Gamma Oil", "gamma oil")}},
			want:   []row{{"n": int64(1)}}},
		{name: "sanctions upsert new snapshot", query: qSanctionsUpsert,
			params: map[string]any{"snapshot": "s2", "rows": []map[string]any{entry("1", "Alpha Trading LLC", "alpha trading"), entry("2", "Beta Shipping", "beta shipping")}},
			want:   []row{{"n": int64(2)}}},
		{name: "sanctions prune", query: qSanctionsPrune,
			params: map[string]any{"list": list, "snapshot": "s2"}, want: []row{{"n": int64(1)}}},
		{name: "sanctions link", query: qSanctionsLink,
			params: map[string]any{"rows": []map[string]any{{"from": list + ":1", "to": list + ":2", "quoted": "BETA SHIPPING"}}},
			want:   []row{{"n": int64(1)}}},
		{name: "sanctions linked from", query: qSanctionsLinkedFrom, params: map[string]any{"id": list + ":1"},
			want: []row{{"id": list + ":2", "list": list, "source_id": "2", "name": "Beta Shipping", "quoted": "BETA SHIPPING"}}},
		{name: "sanctions linked to", query: qSanctionsLinkedTo, params: map[string]any{"id": list + ":2"},
			want: []row{{"id": list + ":1", "list": list, "source_id": "1", "name": "Alpha Trading LLC", "quoted": "BETA SHIPPING"}}},
		{name: "sanctions by name key", query: qSanctionsByNameKey, params: map[string]any{"key": "beta shipping"},
			want: []row{{"id": list + ":2", "list": list, "source_id": "2", "name": "Beta Shipping"}}},
		{name: "sanctions entry exists", query: qSanctionsEntryExists, params: map[string]any{"id": list + ":2"},
			want: []row{{"id": list + ":2"}}},
		{name: "sanctions entry pruned", query: qSanctionsEntryExists, params: map[string]any{"id": list + ":3"}},
		{name: "sanctions list count", query: qSanctionsListCount, params: map[string]any{"list": list}, want: []row{{"n": int64(2)}}},
		{name: "sanctions list count of a list not loaded", query: qSanctionsListCount, params: map[string]any{"list": list + "_absent"},
			want: []row{{"n": int64(0)}}},
		{name: "sanctions unlink", query: qSanctionsUnlink, params: map[string]any{"list": list}, want: []row{{"n": int64(1)}}},
		{name: "sanctions linked from after unlink", query: qSanctionsLinkedFrom, params: map[string]any{"id": list + ":1"}},
	}
}

// cleanupConformance deletes what conformanceCases(run) wrote.
func cleanupConformance(ctx context.Context, t testing.TB, db *DB, run string) {
	mustRun(ctx, t, db, `MATCH (m:SchemaMigration) WHERE m.name STARTS WITH $run DETACH DELETE m`,
		map[string]any{"run": run})
	mustRun(ctx, t, db, `MATCH (e:SanctionsEntry {list: $list}) DETACH DELETE e`, map[string]any{"list": run + "_l"})
	mustRun(ctx, t, db, `MATCH (e:Entity) WHERE e.id STARTS WITH $run DETACH DELETE e`, map[string]any{"run": run + "_o_"})
	for _, id := range []string{run + "_ca", run + "_cb", run + "_cc"} {
		mustRun(ctx, t, db, `MATCH (e:ClusterEntity {id: $id}) DETACH DELETE e`, map[string]any{"id": id})
	}
	mustRun(ctx, t, db, `MATCH (g:ClusterGroup {id: $id}) DETACH DELETE g`, map[string]any{"id": run + "_cg"})
}

func TestConformance(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	t.Cleanup(func() { cleanupConformance(context.Background(), t, db, run) })

	for _, c := range conformanceCases(run) {
		t.Run(c.name, func(t *testing.T) {
			recs, err := db.runAutocommit(ctx, c.query.cypher, c.params)
			if err != nil {
				t.Fatalf("%s(%v): %v", c.query.name, c.params, err)
			}
			got := make([]row, len(recs))
			for i, r := range recs {
				got[i] = r.AsMap()
			}
			if !sameRows(got, c.want, c.anyOrder) {
				t.Errorf("%s(%v) = %#v, want %#v", c.query.name, c.params, got, c.want)
			}
		})
	}
}

func TestConformanceCoversEveryQuery(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range conformanceCases("run") {
		covered[c.query.name] = true
		if !registered(c.query) {
			t.Errorf("case %q runs query %q, which is not registered", c.name, c.query.name)
		}
	}
	for _, q := range queries() {
		if !covered[q.name] {
			t.Errorf("query %q has no conformance case; add one to conformanceCases", q.name)
		}
	}
}

func registered(q query) bool {
	for _, r := range queries() {
		if r == q {
			return true
		}
	}
	return false
}

// sameRows reports whether got and want hold the same records, in the same
// order unless anyOrder.
func sameRows(got, want []row, anyOrder bool) bool {
	if len(got) != len(want) {
		return false
	}
	if !anyOrder {
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				return false
			}
		}
		return true
	}
	used := make([]bool, len(got))
next:
	for _, w := range want {
		for i, g := range got {
			if !used[i] && reflect.DeepEqual(g, w) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	return true
}

// openTest opens the database named by the environment, or skips t.
func openTest(t testing.TB) *DB {
	t.Helper()
	env := graphdbtest.Lookup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := Open(ctx, Config(env))
	if err != nil {
		t.Fatalf("Open(%s) = %v", env.URI, err)
	}
	t.Cleanup(func() {
		if err := db.Close(context.Background()); err != nil {
			t.Errorf("Close() = %v", err)
		}
	})
	return db
}

// testContext returns a context that ends with t or after a minute.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// mustRun runs test-only Cypher in an auto-commit transaction and returns
// its records as maps. It fails t on error.
func mustRun(ctx context.Context, t testing.TB, db *DB, cypher string, params map[string]any) []row {
	t.Helper()
	recs, err := db.runAutocommit(ctx, cypher, params)
	if err != nil {
		t.Fatalf("run %q: %v", cypher, err)
	}
	rows := make([]row, len(recs))
	for i, r := range recs {
		rows[i] = r.AsMap()
	}
	return rows
}

// Env must stay convertible to Config.
var _ = Config(graphdbtest.Env{})

// ownershipCases exercise the ownership statements on entities whose ids
// start with run_o_. Percentages are fractional because NornicDB returns
// a whole float (60.0) as an integer. Writes carry one row each: NornicDB answers count()
// after UNWIND ... SET e:Label once per row, Neo4j once in all.
func ownershipCases(run string) []conformanceCase {
	id := func(s string) string { return run + "_o_" + s }
	key := run + "_o_key"
	node := func(s, kind, name string) map[string]any {
		return map[string]any{"id": id(s), "kind": kind, "name": name, "name_key": key + "_" + s, "jurisdiction": "GB",
			"identifiers": nil, "address": nil, "founded_on": nil, "nominee": false, "source": "t",
			"has_owners": nil, "has_holdings": nil} // absent keys read as garbage on NornicDB: always send them
	}
	one := []row{{"n": int64(1)}}
	rootRow := row{"id": id("R"), "kind": "company", "name": "Root Co", "jurisdiction": "GB",
		"identifiers": `[{"scheme":"GB-COH","id":"1"}]`, "address": "1 Main St", "founded_on": "2001-02-03",
		"nominee": false, "source": "t"}
	hop := func(s, kind, name, rel, k string, p, lo, hi any, role any) row {
		return row{"id": id(s), "kind": kind, "name": name, "jurisdiction": "GB", "identifiers": nil, "address": nil,
			"founded_on": nil, "nominee": false, "source": "t", "rel": rel, "key": k, "pct": p, "pct_min": lo,
			"pct_max": hi, "role": role, "as_of": "2024-01-01", "edge_source": "t", "has_owners": nil, "has_holdings": true}
	}
	r := node("R", "company", "Root Co")
	r["identifiers"], r["address"], r["founded_on"] = `[{"scheme":"GB-COH","id":"1"}]`, "1 Main St", "2001-02-03"
	edge := func(k, from, to string, p, lo, hi any) map[string]any {
		return map[string]any{"key": k, "from": id(from), "to": id(to), "pct": p, "pct_min": lo, "pct_max": hi,
			"role": "board_appointment", "as_of": "2024-01-01", "source": "t"}
	}
	return []conformanceCase{
		{name: "ownership upsert company", query: qOwnershipUpsertNodes[ownership.Company],
			params: map[string]any{"rows": []map[string]any{r}}, want: one},
		{name: "ownership upsert person", query: qOwnershipUpsertNodes[ownership.Person],
			params: map[string]any{"rows": []map[string]any{node("P", "person", "Pat Doe")}}, want: one},
		{name: "ownership upsert trust", query: qOwnershipUpsertNodes[ownership.Trust],
			params: map[string]any{"rows": []map[string]any{node("T", "trust", "Doe Trust")}}, want: one},
		{name: "ownership upsert vessel", query: qOwnershipUpsertNodes[ownership.Vessel],
			params: map[string]any{"rows": []map[string]any{node("V", "vessel", "MV Doe")}}, want: one},
		{name: "ownership upsert company again", query: qOwnershipUpsertNodes[ownership.Company],
			params: map[string]any{"rows": []map[string]any{r}}, want: one},
		{name: "ownership upsert stub over a described node", query: qOwnershipUpsertStubs,
			params: map[string]any{"rows": []map[string]any{{"id": id("R"), "kind": "company", "name": "stub", "name_key": "stub", "source": "t", "has_owners": nil, "has_holdings": nil}}}, want: one},
		{name: "ownership upsert stub new", query: qOwnershipUpsertStubs,
			params: map[string]any{"rows": []map[string]any{{"id": id("S"), "kind": "company", "name": "Stub Co", "name_key": key + "_S", "source": "t", "has_owners": true, "has_holdings": nil}}}, want: one},
		{name: "ownership stub entity", query: qOwnershipEntity, params: map[string]any{"id": id("S")},
			want: []row{{"id": id("S"), "kind": "company", "name": "Stub Co", "jurisdiction": nil, "identifiers": nil,
				"address": nil, "founded_on": nil, "nominee": nil, "source": "t"}}},
		{name: "ownership flag owned", query: qOwnershipFlagOwned,
			params: map[string]any{"rows": []map[string]any{{"id": id("R")}}}, want: one},
		{name: "ownership flag owning", query: qOwnershipFlagOwning,
			params: map[string]any{"rows": []map[string]any{{"id": id("P")}}}, want: one},
		{name: "ownership flag owning trust", query: qOwnershipFlagOwning,
			params: map[string]any{"rows": []map[string]any{{"id": id("T")}}}, want: one},
		{name: "ownership upsert owns exact", query: qOwnershipUpsertOwns,
			params: map[string]any{"rows": []map[string]any{edge("k1", "P", "R", 60.5, nil, nil)}}, want: one},
		{name: "ownership upsert owns band", query: qOwnershipUpsertOwns,
			params: map[string]any{"rows": []map[string]any{edge("k2", "T", "R", nil, 25.5, 50.5)}}, want: one},
		{name: "ownership upsert owns again", query: qOwnershipUpsertOwns,
			params: map[string]any{"rows": []map[string]any{edge("k1", "P", "R", 60.5, nil, nil)}}, want: one},
		{name: "ownership upsert owns dangling", query: qOwnershipUpsertOwns,
			params: map[string]any{"rows": []map[string]any{edge("k9", "P", "nowhere", 1.0, nil, nil)}}, want: []row{{"n": int64(0)}}},
		{name: "ownership upsert controls", query: qOwnershipUpsertControls,
			params: map[string]any{"rows": []map[string]any{edge("k3", "P", "R", nil, nil, nil)}}, want: one},
		{name: "ownership entity", query: qOwnershipEntity, params: map[string]any{"id": id("R")}, want: []row{rootRow}},
		{name: "ownership entity missing", query: qOwnershipEntity, params: map[string]any{"id": id("missing")}},
		{name: "ownership by name key", query: qOwnershipByNameKey,
			params: map[string]any{"key": key + "_R", "limit": int64(5)}, want: []row{rootRow}},
		{name: "ownership owners", query: qOwnershipOwners, params: map[string]any{"id": id("R")}, anyOrder: true,
			want: []row{
				hop("P", "person", "Pat Doe", "OWNS", "k1", 60.5, nil, nil, nil),
				hop("T", "trust", "Doe Trust", "OWNS", "k2", nil, 25.5, 50.5, nil),
				hop("P", "person", "Pat Doe", "CONTROLS", "k3", nil, nil, nil, "board_appointment"),
			}},
		{name: "ownership delete", query: qOwnershipDelete, params: map[string]any{"id": id("V")}},
		{name: "ownership deleted entity", query: qOwnershipEntity, params: map[string]any{"id": id("V")}},
		{name: "ownership owners of a top owner", query: qOwnershipOwners, params: map[string]any{"id": id("P")}},
		{name: "ownership owned", query: qOwnershipOwned, params: map[string]any{"id": id("P")}, anyOrder: true,
			want: []row{
				rootHop(rootRow, "OWNS", "k1", 60.5, nil),
				rootHop(rootRow, "CONTROLS", "k3", nil, "board_appointment"),
			}},
	}
}

func rootHop(root row, rel, k string, p, role any) row {
	out := row{"rel": rel, "key": k, "pct": p, "pct_min": nil, "pct_max": nil, "role": role, "as_of": "2024-01-01", "edge_source": "t",
		"has_owners": true, "has_holdings": nil}
	for c, v := range root {
		out[c] = v
	}
	return out
}
