package graphdb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

func TestEmbeddedMigrations(t *testing.T) {
	if embeddedErr != nil {
		t.Fatalf("loading embedded migrations: %v", embeddedErr)
	}
	if len(embedded) == 0 || embedded[0].name != "0001_entities" {
		t.Fatalf("embedded migrations = %v, want 0001_entities first", migrationNames(embedded))
	}
}

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"comments only", "// a\n  // b\n", nil},
		{"one without semicolon", "RETURN 1", []string{"RETURN 1"}},
		{"one with semicolon", "RETURN 1;\n", []string{"RETURN 1"}},
		{
			"several over lines",
			"// head\nCREATE INDEX a IF NOT EXISTS\n  FOR (n:A) ON (n.id);\n\nMERGE (n:A {id: 'x'});\n;\n",
			[]string{"CREATE INDEX a IF NOT EXISTS\n  FOR (n:A) ON (n.id)", "MERGE (n:A {id: 'x'})"},
		},
		{"semicolon inside a line", "RETURN ';' AS s;", []string{"RETURN ';' AS s"}},
		{"crlf", "RETURN 1;\r\nRETURN 2;\r\n", []string{"RETURN 1", "RETURN 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitStatements(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitStatements(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLoadMigrations(t *testing.T) {
	const ok = "CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.id);"
	tests := []struct {
		name    string
		files   map[string]string
		want    []string // names, when no error
		wantErr string   // substring of the error, "" for none
	}{
		{"none", nil, nil, ""},
		{"two", map[string]string{"0001_a.cypher": ok, "0002_b.cypher": "MERGE (n:A {id: 1});"}, []string{"0001_a", "0002_b"}, ""},
		{"gap", map[string]string{"0001_a.cypher": ok, "0003_c.cypher": ok}, nil, "want number 0002"},
		{"not from one", map[string]string{"0002_b.cypher": ok}, nil, "want number 0001"},
		{"misnamed", map[string]string{"0001-a.cypher": ok}, nil, "NNNN_name.cypher"},
		{"upper case", map[string]string{"0001_A.cypher": ok}, nil, "NNNN_name.cypher"},
		{"stray file", map[string]string{"0001_a.cypher": ok, "README.md": "x"}, nil, "NNNN_name.cypher"},
		{"empty", map[string]string{"0001_a.cypher": "// nothing\n"}, nil, "no statement"},
		{"create without if not exists", map[string]string{"0001_a.cypher": "CREATE CONSTRAINT c FOR (n:A) REQUIRE n.id IS UNIQUE;"}, nil, "IF NOT EXISTS"},
		{"range index without if not exists", map[string]string{"0001_a.cypher": "create range index i for (n:A) on (n.id);"}, nil, "IF NOT EXISTS"},
		{"drop without if exists", map[string]string{"0001_a.cypher": "DROP INDEX i;"}, nil, "IF EXISTS"},
		{"drop with if exists", map[string]string{"0001_a.cypher": "DROP INDEX i IF EXISTS;"}, []string{"0001_a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"m": &fstest.MapFile{Mode: 0o755 | 1<<31}} // an empty dir
			for name, src := range tt.files {
				fsys["m/"+name] = &fstest.MapFile{Data: []byte(src)}
			}
			set, err := loadMigrations(fsys, "m")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("loadMigrations(%v) = %v, want no error", tt.files, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("loadMigrations(%v) = %v, want error containing %q", tt.files, err, tt.wantErr)
			case err == nil && !slices.Equal(migrationNames(set), tt.want):
				t.Errorf("loadMigrations(%v) = %v, want %v", tt.files, migrationNames(set), tt.want)
			}
		})
	}
}

// TestMigrate applies the real migrations. Other packages may have applied
// them already on a shared server, so it checks the end state: nothing
// pending, a second run applies nothing, and the constraints hold.
func TestMigrate(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)

	first, err := db.Migrate(ctx)
	if err != nil {
		t.Fatalf("Migrate() = %v", err)
	}
	t.Logf("Migrate() applied %v", first)
	if pending, err := db.PendingMigrations(ctx); err != nil || len(pending) != 0 {
		t.Errorf("PendingMigrations() after Migrate = %v, %v, want none", pending, err)
	}
	if again, err := db.Migrate(ctx); err != nil || len(again) != 0 {
		t.Errorf("Migrate() again = %v, %v, want none", again, err)
	}

	run := graphdbtest.Unique(t)
	for _, label := range []string{"Entity", "SanctionsEntry", "Cluster"} {
		t.Run(label, func(t *testing.T) {
			id := run + "-" + label
			create := fmt.Sprintf("CREATE (n:%s {id: $id})", label)
			t.Cleanup(func() {
				mustRun(context.Background(), t, db, fmt.Sprintf("MATCH (n:%s {id: $id}) DETACH DELETE n", label), map[string]any{"id": id})
			})
			mustRun(ctx, t, db, create, map[string]any{"id": id})
			if _, err := db.runAutocommit(ctx, create, map[string]any{"id": id}); err == nil {
				t.Errorf("creating a second (:%s {id: %q}) succeeded, want a uniqueness violation", label, id)
			}
			got := mustRun(ctx, t, db, fmt.Sprintf("MATCH (n:%s {id: $id}) RETURN count(n) AS n", label), map[string]any{"id": id})
			if want := []row{{"n": int64(1)}}; !reflect.DeepEqual(got, want) {
				t.Errorf("count of (:%s {id: %q}) = %v, want %v", label, id, got, want)
			}
		})
	}
}

// testMigrations returns a migration set private to run: its own label,
// index and constraint names and record names, so that it can be applied
// from scratch on a shared server. n is the number of files, 1 to 3. With
// unique, the first file also creates a uniqueness constraint.
func testMigrations(t testing.TB, run string, n int, unique bool) []migration {
	t.Helper()
	label := "Conf" + run
	constraint := ""
	if unique {
		constraint = fmt.Sprintf("CREATE CONSTRAINT %s_id_unique IF NOT EXISTS\nFOR (n:%s) REQUIRE n.id IS UNIQUE;\n", run, label)
	}
	files := []string{
		fmt.Sprintf(`// schema
%[3]sCREATE INDEX %[1]s_id IF NOT EXISTS
FOR (n:%[2]s) ON (n.id);
`, run, label, constraint),
		fmt.Sprintf("MERGE (n:%[1]s {id: 'a'});\nMERGE (n:%[1]s {id: 'b'}) SET n.step = 2;\n", label),
		fmt.Sprintf("MATCH (n:%[1]s {id: 'b'}) SET n.step = 3;\n", label),
	}
	fsys := fstest.MapFS{}
	for i, src := range files[:n] {
		fsys[fmt.Sprintf("m/%04d_%s_step%d.cypher", i+1, run, i+1)] = &fstest.MapFile{Data: []byte(src)}
	}
	set, err := loadMigrations(fsys, "m")
	if err != nil {
		t.Fatalf("loadMigrations: %v", err)
	}
	return set
}

func cleanupMigrations(t testing.TB, db *DB, run string) {
	ctx := context.Background()
	for _, stmt := range []string{
		fmt.Sprintf("DROP CONSTRAINT %s_id_unique IF EXISTS", run),
		fmt.Sprintf("DROP INDEX %s_id IF EXISTS", run),
		fmt.Sprintf("MATCH (n:Conf%s) DETACH DELETE n", run),
	} {
		mustRun(ctx, t, db, stmt, nil)
	}
	for i := 1; i <= 3; i++ {
		mustRun(ctx, t, db, `MATCH (m:SchemaMigration {name: $name}) DETACH DELETE m`,
			map[string]any{"name": fmt.Sprintf("%04d_%s_step%d", i, run, i)})
	}
}

func TestMigrateFromScratch(t *testing.T) {
	db := openTest(t)
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	t.Cleanup(func() { cleanupMigrations(t, db, run) })

	two := testMigrations(t, run, 2, true)
	if got, err := db.pending(ctx, two); err != nil || !slices.Equal(got, migrationNames(two)) {
		t.Fatalf("pending() before = %v, %v, want %v", got, err, migrationNames(two))
	}
	if got, err := db.migrate(ctx, two); err != nil || !slices.Equal(got, migrationNames(two)) {
		t.Fatalf("migrate() = %v, %v, want %v", got, err, migrationNames(two))
	}
	if got, err := db.pending(ctx, two); err != nil || len(got) != 0 {
		t.Errorf("pending() after = %v, %v, want none", got, err)
	}
	if got, err := db.migrate(ctx, two); err != nil || len(got) != 0 {
		t.Errorf("migrate() again = %v, %v, want none", got, err)
	}

	// A new file: only it is pending and applied.
	three := testMigrations(t, run, 3, true)
	want := migrationNames(three)[2:]
	if got, err := db.pending(ctx, three); err != nil || !slices.Equal(got, want) {
		t.Errorf("pending() with a new file = %v, %v, want %v", got, err, want)
	}
	if got, err := db.migrate(ctx, three); err != nil || !slices.Equal(got, want) {
		t.Errorf("migrate() with a new file = %v, %v, want %v", got, err, want)
	}

	got := mustRun(ctx, t, db, fmt.Sprintf("MATCH (n:Conf%s {id: 'b'}) RETURN n.step AS step", run), nil)
	if want := []row{{"step": int64(3)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("step of node b = %v, want %v", got, want)
	}
	got = mustRun(ctx, t, db, `MATCH (m:SchemaMigration {name: $name}) RETURN m.version AS version, m.applied_at AS at`,
		map[string]any{"name": want[0]})
	if len(got) != 1 || got[0]["version"] != int64(3) || got[0]["at"] == nil {
		t.Errorf("record of %s = %v, want version 3 and applied_at", want[0], got)
	}
}

// TestMigrateConcurrent runs Migrate from several connection pools at once,
// as several service processes starting together would. Its label has no
// uniqueness constraint: NornicDB lets racing MERGEs commit duplicates past
// one, after which creating any uniqueness constraint on the server fails.
func TestMigrateConcurrent(t *testing.T) {
	const callers = 4
	dbs := make([]*DB, callers)
	for i := range dbs {
		dbs[i] = openTest(t)
	}
	ctx := testContext(t)
	run := graphdbtest.Unique(t)
	t.Cleanup(func() { cleanupMigrations(t, dbs[0], run) })
	set := testMigrations(t, run, 3, false)

	applied := make([][]string, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i, db := range dbs {
		wg.Go(func() { applied[i], errs[i] = db.migrate(ctx, set) })
	}
	wg.Wait()

	// Every migration is reported by at least one caller. Neo4j reports each
	// exactly once; NornicDB may let racing callers both record one.
	var all []string
	for i := range dbs {
		if errs[i] != nil {
			t.Errorf("caller %d: migrate() = %v", i, errs[i])
		}
		all = append(all, applied[i]...)
	}
	slices.Sort(all)
	if got, want := slices.Compact(all), migrationNames(set); !slices.Equal(got, want) {
		t.Errorf("names applied by all callers = %v, want %v", got, want)
	}
	if got, err := dbs[0].pending(ctx, set); err != nil || len(got) != 0 {
		t.Errorf("pending() after = %v, %v, want none", got, err)
	}
	// DISTINCT: racing MERGEs on a label without a uniqueness constraint may
	// each create the node.
	got := mustRun(ctx, t, dbs[0], fmt.Sprintf("MATCH (n:Conf%s) RETURN DISTINCT n.id AS id, n.step AS step", run), nil)
	if want := []row{{"id": "a", "step": nil}, {"id": "b", "step": int64(3)}}; !sameRows(got, want, true) {
		t.Errorf("nodes = %v, want %v", got, want)
	}
}

func TestRaced(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Schema.ConstraintValidationFailed"}, true},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"}, true},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "commit failed: constraint violation: x"}, true},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "Invalid input 'X'"}, false},
		{fmt.Errorf("wrapped: %w", &neo4j.Neo4jError{Code: "Neo.ClientError.Schema.IndexAlreadyExists"}), true},
		{errors.New("constraint violation"), false},
	}
	for _, tt := range tests {
		if got := raced(tt.err); got != tt.want {
			t.Errorf("raced(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
