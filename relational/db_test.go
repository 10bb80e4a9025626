package relational_test

import (
	"context"
	"fmt"
	neturl "net/url"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

// Readiness probes read the migration state concurrently; none may fail
// because another holds the migration lock.
func TestPendingMigrationsConcurrently(t *testing.T) {
	db := relationaltest.New(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pending, err := db.PendingMigrations(context.Background())
			if err == nil && len(pending) > 0 {
				t.Errorf("pending = %v on a migrated database", pending)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("PendingMigrations concurrently: %v", err)
		}
	}
}

func TestEnsureDatabaseCreatesOnce(t *testing.T) {
	name := fmt.Sprintf("compliance_ensure_%d", time.Now().UnixNano())
	u, _ := neturl.Parse(relationaltest.ServerURL())
	u.Path = "/" + name
	url := u.String()
	ctx := context.Background()
	for i := range 2 {
		if err := relational.EnsureDatabase(ctx, url); err != nil {
			t.Fatalf("EnsureDatabase #%d: %v", i+1, err)
		}
	}
	db, err := relational.Open(ctx, url, nil)
	if err != nil {
		t.Fatalf("open created database: %v", err)
	}
	db.Close()
	admin, _ := relational.Open(ctx, relationaltest.ServerURL(), nil)
	defer admin.Close()
	admin.Pool.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://app:secret@db:5432/x?sslmode=disable", "postgres://app:xxxxx@db:5432/x?sslmode=disable"},
		{"postgres://app@db/x", "postgres://app@db/x"},
		{"host=db password=secret", "(connection string with password)"},
	}
	for _, tt := range tests {
		if got := relational.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
