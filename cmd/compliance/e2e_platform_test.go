package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// openDB connects to the database of env for assertions.
func openDB(t *testing.T, env []string) *pgx.Conn {
	t.Helper()
	var url string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			url = v
		}
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func TestE2EProbesAndMetrics(t *testing.T) {
	in := start(t, testEnv(t))

	h := in.do("GET", "/healthz", "", nil)
	if h.status != 200 || h.json(t)["ok"] != true {
		t.Fatalf("GET /healthz = %d %s", h.status, h.body)
	}
	if id := h.header.Get("X-Request-Id"); len(id) != 32 {
		t.Errorf("X-Request-Id = %q, want a generated 32-hex id", id)
	}
	if got := in.do("GET", "/healthz", "", nil, "X-Request-Id", "client-chosen-id-1").header.Get("X-Request-Id"); got != "client-chosen-id-1" {
		t.Errorf("X-Request-Id echo = %q, want client-chosen-id-1", got)
	}

	r := in.do("GET", "/readyz", "", nil)
	if r.status != 200 {
		t.Fatalf("GET /readyz = %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	if data["ready"] != true || len(data["checks"].([]any)) != 2 {
		t.Errorf("readyz data = %v", data)
	}

	m := in.do("GET", "/metrics", "", nil)
	for _, want := range []string{
		`compliance_http_requests_total{method="GET",route="GET /healthz",status="200"} `,
		`compliance_http_request_duration_seconds_bucket{method="GET",route="GET /readyz",status="200",le=`,
		"go_goroutines",
		"process_resident_memory_bytes",
		"compliance_pg_pool_total_conns",
	} {
		if !strings.Contains(string(m.body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// With Neo4j down the server still starts; /readyz answers 503 naming it,
// and Postgres-only routes keep working.
func TestE2EReadyzNamesTheMissingStore(t *testing.T) {
	env := testEnv(t)
	runCLI(t, env, "migrate")
	in := serveOnly(t, append(env, "NEO4J_URI=bolt://127.0.0.1:1"))
	r := in.do("GET", "/readyz", "", nil)
	if r.status != 503 {
		t.Fatalf("GET /readyz with Neo4j down = %d, want 503: %s", r.status, r.body)
	}
	e := r.errorOf(t)
	msg, _ := e["message"].(string)
	if e["code"] != "unavailable" || !strings.Contains(msg, "neo4j") || strings.Contains(msg, "postgres") {
		t.Errorf("readyz error = %v, want unavailable naming neo4j only", e)
	}
	if h := in.do("GET", "/healthz", "", nil); h.status != 200 {
		t.Errorf("GET /healthz = %d, want 200 while alive", h.status)
	}
}

// A pending migration makes the server not ready, naming it.
func TestE2EReadyzNamesPendingMigrations(t *testing.T) {
	env := testEnv(t)
	runCLI(t, env, "migrate")
	in := serveOnly(t, env)
	db := openDB(t, env)
	if _, err := db.Exec(context.Background(), `DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)`); err != nil {
		t.Fatal(err)
	}
	r := in.do("GET", "/readyz", "", nil)
	msg, _ := r.errorOf(t)["message"].(string)
	if r.status != 503 || !strings.Contains(msg, "postgres: migrations pending") {
		t.Errorf("GET /readyz = %d %s, want 503 naming the pending postgres migration", r.status, r.body)
	}
}
