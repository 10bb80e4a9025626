// Package relationaltest gives each test its own migrated Postgres database:
// a template database is migrated once per set of migrations and cloned per
// test (CREATE DATABASE ... TEMPLATE), then dropped when the test ends.
//
// The server is TEST_DATABASE_URL, else DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/postgres. When no server answers the
// test is skipped, or failed when COMPLIANCE_REQUIRE_SERVICES=1 (scripts/test
// sets it, so integration tests never skip there).
package relationaltest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/relational"
)

// ServerURL returns the URL of the test server's maintenance database.
func ServerURL() string {
	for _, k := range []string{"TEST_DATABASE_URL", "DATABASE_URL"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// NewURL returns the URL of a fresh, migrated database for t, dropped at
// the end of the test.
func NewURL(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, withDatabase(ServerURL(), "postgres"))
	if err != nil {
		unavailable(t, err)
	}
	defer admin.Close(context.Background())

	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(ctx, admin) })
	if templateErr != nil {
		t.Fatalf("prepare template database: %v", templateErr)
	}
	name := fmt.Sprintf("compliance_t_%d_%s", time.Now().UnixNano(), randHex(3))
	var cerr error
	for range 20 { // the template is briefly busy while another process clones it
		_, cerr = admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+templateName)
		if cerr == nil || !strings.Contains(cerr.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if cerr != nil {
		t.Fatalf("create test database: %v", cerr)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, withDatabase(ServerURL(), "postgres"))
		if err != nil {
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return withDatabase(ServerURL(), name)
}

// New returns an open DB on a fresh, migrated database for t.
func New(t testing.TB) *relational.DB {
	t.Helper()
	db, err := relational.Open(context.Background(), NewURL(t), nil)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(db.Close)
	return db
}

// ensureTemplate creates and migrates the template database for the current
// migrations, once across all test processes (an advisory lock serialises
// them), and returns its name.
func ensureTemplate(ctx context.Context, admin *pgx.Conn) (string, error) {
	name := "compliance_tmpl_" + migrationsHash()
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(74023117)"); err != nil {
		return "", err
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock(74023117)")
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	db, err := relational.Open(ctx, withDatabase(ServerURL(), name), nil)
	if err != nil {
		return "", err
	}
	_, err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+name+" WITH is_template true"); err != nil {
		return "", err
	}
	return name, nil
}

// migrationsHash identifies the current set of migrations, so that a
// changed migration gets a new template.
func migrationsHash() string {
	h := sha256.New()
	fs.WalkDir(relational.Migrations(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(relational.Migrations(), path)
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	fmt.Fprintf(h, "river:%d", relational.RiverMigrationVersion()) // River's tables are in the template too
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// withDatabase returns url with its database replaced by name.
func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Path = "/" + name
	return u.String()
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("Postgres at %s is not reachable (%v); scripts/test starts one", relational.Redact(ServerURL()), err)
	if os.Getenv("COMPLIANCE_REQUIRE_SERVICES") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
