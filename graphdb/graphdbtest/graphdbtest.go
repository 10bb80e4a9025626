// Package graphdbtest finds the graph database that tests run against.
//
// Tests read NEO4J_URI and, optionally, NEO4J_USER, NEO4J_PASSWORD and
// NEO4J_DATABASE. When NEO4J_URI is unset a test is skipped, unless
// COMPLIANCE_REQUIRE_SERVICES=1, in which case it fails: scripts/test sets
// both after starting NornicDB with scripts/lib/graphdb.sh.
//
// Several test packages may share one server, so tests must keep their data
// apart, for example by putting Unique(t) into every id they create and
// deleting what they created in t.Cleanup.
package graphdbtest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
)

// Env describes the graph database to test against. It has the fields of
// graphdb.Config, so graphdb.Config(env) converts it.
type Env struct {
	URI      string
	User     string
	Password string
	Database string
}

// Lookup returns the graph database named by the environment. If NEO4J_URI
// is unset it skips t, or fails t when COMPLIANCE_REQUIRE_SERVICES=1.
func Lookup(t testing.TB) Env {
	t.Helper()
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		const why = "NEO4J_URI is not set; run scripts/test, or start a server with scripts/lib/graphdb.sh (graphdb_build; graphdb_start DIR) and export NEO4J_URI"
		if os.Getenv("COMPLIANCE_REQUIRE_SERVICES") == "1" {
			t.Fatal("graph database required (COMPLIANCE_REQUIRE_SERVICES=1) but " + why)
		}
		t.Skip("skipping: " + why)
	}
	return Env{
		URI:      uri,
		User:     os.Getenv("NEO4J_USER"),
		Password: os.Getenv("NEO4J_PASSWORD"),
		Database: os.Getenv("NEO4J_DATABASE"),
	}
}

// URI returns NEO4J_URI. If it is unset it skips t, or fails t when
// COMPLIANCE_REQUIRE_SERVICES=1.
func URI(t testing.TB) string {
	t.Helper()
	return Lookup(t).URI
}

// Unique returns a fresh random token, such as "t3f9a0c1d2b4e5f6a", for
// keeping one test's data apart from another's. It contains only lower-case
// letters and digits, so it also fits in labels and index names.
func Unique(t testing.TB) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("graphdbtest: random token: %v", err)
	}
	return "t" + hex.EncodeToString(b)
}
