package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph/cluster"
)

// demoClusters is the demo dataset scripts/run imports.
const demoClusters = "../../scripts/demo/clusters.jsonl"

// envValue returns the value of name in env.
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// pgCount runs a count(*) query against the database of env.
func pgCount(t *testing.T, env []string, sql string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, envValue(env, "DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func importCLI(t *testing.T, env []string, files ...string) cluster.ImportResult {
	t.Helper()
	var res cluster.ImportResult
	out := runCLI(t, env, append([]string{"clusters", "import"}, files...)...)
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("clusters import printed %s: %v", out, err)
	}
	return res
}

// `compliance clusters import` loads the demo dataset, is idempotent, and
// refuses a bad file naming it and the line, writing nothing.
func TestClustersImportCLI(t *testing.T) {
	env := testEnv(t)
	runCLI(t, env, "migrate")

	if got, want := importCLI(t, env, demoClusters), (cluster.ImportResult{Records: 7, Added: 7, Version: 1}); got != want {
		t.Errorf("first import = %+v, want %+v", got, want)
	}
	if got, want := importCLI(t, env, demoClusters), (cluster.ImportResult{Records: 7, Unchanged: 7, Version: 1}); got != want {
		t.Errorf("re-import = %+v, want %+v", got, want)
	}
	if n := pgCount(t, env, `SELECT count(*) FROM cluster_aliases`); n != 6 {
		t.Errorf("aliases stored = %d, want 6", n)
	}

	dir := t.TempDir()
	csvFile := filepath.Join(dir, "more.csv")
	os.WriteFile(csvFile, []byte("slug,entity_name,aliases,severity,country,group\n"+
		"demo-gulf-petro-brokers,Demo Gulf Petro Brokers Ltd,Demo GPB|Example Petro Brokerage,likely,AE,demo-phantom-cargo-ring\n"+
		"demo-csv-entity,Demo CSV Entity,,suspected,,\n"), 0o600)
	if got, want := importCLI(t, env, csvFile), (cluster.ImportResult{Records: 2, Added: 1, Updated: 1, SeverityChanged: 1, Version: 2}); got != want {
		t.Errorf("csv import = %+v, want %+v", got, want)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"entity_name":"Demo Fine Entity","severity":"likely"}`+"\n"+`{"entity_name":"Demo Bad Entity","severity":"catastrophic"}`+"\n"), 0o600)
	cmd := exec.Command(binary(t), "clusters", "import", bad)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), bad+":2: severity:") {
		t.Errorf("bad import: %v\n%s\nwant a failure naming %s:2 and severity", err, out, bad)
	}
	if n := pgCount(t, env, `SELECT count(*) FROM cluster_records WHERE entity_name = 'Demo Fine Entity'`); n != 0 {
		t.Errorf("a failed import wrote %d records", n)
	}
	if n := pgCount(t, env, `SELECT count(*) FROM cluster_records`); n != 8 {
		t.Errorf("records = %d, want 8", n)
	}
}
