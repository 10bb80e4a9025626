package relational_test

import (
	"context"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

func TestMigrateIsCurrent(t *testing.T) {
	db := relationaltest.New(t)
	pending, err := db.PendingMigrations(context.Background())
	if err != nil || len(pending) != 0 {
		t.Fatalf("PendingMigrations() = %v, %v; want none", pending, err)
	}
	applied, err := db.Migrate(context.Background())
	if err != nil || len(applied) != 0 {
		t.Fatalf("Migrate() on a current database = %v, %v; want nothing applied", applied, err)
	}
}

func TestKeysLifecycle(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	keys := &graph.Keys{Store: db}

	a, err := db.EnsureMember(ctx, "member-a", graph.ProductionScopes)
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.EnsureMember(ctx, "member-a", []string{"kyc"})
	if err != nil || again.ID != a.ID || len(again.PlanScopes) != len(graph.ProductionScopes) {
		t.Fatalf("EnsureMember(existing) = %+v, %v; want the first member unchanged", again, err)
	}
	b, _ := db.EnsureMember(ctx, "member-b", graph.ProductionScopes)

	exp := time.Now().Add(time.Hour)
	k, err := keys.Create(ctx, graph.CreateRequest{MemberID: a.ID, PlanScopes: a.PlanScopes, Name: "ci", Scopes: []string{"kyc", "audit", "kyc"}, ExpiresAt: &exp})
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Scopes) != 2 || k.Scopes[0] != "audit" || k.Scopes[1] != "kyc" {
		t.Errorf("scopes = %v, want [audit kyc]", k.Scopes)
	}

	list, err := db.ListKeys(ctx, a.ID)
	if err != nil || len(list) != 1 || list[0].ID != k.ID || list[0].KeyPrefix != k.KeyPrefix || !list[0].IsActive {
		t.Fatalf("ListKeys(a) = %+v, %v", list, err)
	}
	if list, _ := db.ListKeys(ctx, b.ID); len(list) != 0 {
		t.Errorf("ListKeys(b) = %d keys, want 0: a member sees only its own keys", len(list))
	}
	if _, err := db.RevokeKey(ctx, b.ID, k.ID); graph.ErrorCode(err) != graph.CodeNotFound {
		t.Errorf("RevokeKey(b, a's key) error = %v, want not_found", err)
	}
	if was, err := db.RevokeKey(ctx, a.ID, k.ID); err != nil || !was {
		t.Errorf("RevokeKey(a, key) = %v, %v; want true", was, err)
	}
	if was, err := db.RevokeKey(ctx, a.ID, k.ID); err != nil || was {
		t.Errorf("RevokeKey(a, revoked key) = %v, %v; want false", was, err)
	}
	// The raw key is nowhere in the table.
	var n int
	db.Pool.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE key_prefix = $1 OR name = $1`, k.Raw).Scan(&n)
	if n != 0 {
		t.Errorf("raw key found in api_keys")
	}
}
