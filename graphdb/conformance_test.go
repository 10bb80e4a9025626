package graphdb

import (
	"context"
	"reflect"
	"testing"
	"time"

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
	}, append(sanctionsCases(run), clusterCases(run)...)...)
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
		{name: "sanctions unlink", query: qSanctionsUnlink, params: map[string]any{"list": list}, want: []row{{"n": int64(1)}}},
		{name: "sanctions linked from after unlink", query: qSanctionsLinkedFrom, params: map[string]any{"id": list + ":1"}},
	}
}

// cleanupConformance deletes what conformanceCases(run) wrote.
func cleanupConformance(ctx context.Context, t testing.TB, db *DB, run string) {
	mustRun(ctx, t, db, `MATCH (m:SchemaMigration) WHERE m.name STARTS WITH $run DETACH DELETE m`,
		map[string]any{"run": run})
	mustRun(ctx, t, db, `MATCH (e:SanctionsEntry {list: $list}) DETACH DELETE e`, map[string]any{"list": run + "_l"})
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
				t.Errorf("%s(%v) = %v, want %v", c.query.name, c.params, got, c.want)
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
