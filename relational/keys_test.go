package relational_test

import (
	"context"
	"fmt"
	"sync"
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

// TestKeyByHashConcurrent looks keys up from many goroutines on two handles
// (two instances), so that lookups are batched: each gets its own key, an
// unknown hash gets not_found beside known ones, and a key revoked on one
// handle fails on the other at once, with no cache to wait out.
func TestKeyByHashConcurrent(t *testing.T) {
	ctx := context.Background()
	db1, db2 := twoHandles(t)
	keys := &graph.Keys{Store: db1}
	m, err := db1.EnsureMember(ctx, "member-batch", graph.ProductionScopes)
	if err != nil {
		t.Fatal(err)
	}
	created := make([]graph.NewKey, 20)
	for i := range created {
		created[i], err = keys.Create(ctx, graph.CreateRequest{MemberID: m.ID, PlanScopes: m.PlanScopes, Name: fmt.Sprintf("k%02d", i), Scopes: []string{"kyc"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for round := range 10 {
		for i, c := range created {
			wg.Go(func() {
				db := db1
				if (round+i)%2 == 1 {
					db = db2
				}
				k, mem, err := db.KeyByHash(ctx, graph.HashKey(c.Raw))
				if err != nil || k.ID != c.ID || mem.ID != m.ID || k.Name != c.Name {
					t.Errorf("KeyByHash(%s) = %s %s, %v; want %s of member %s", c.Name, k.ID, mem.ID, err, c.ID, m.ID)
				}
			})
			wg.Go(func() {
				_, _, err := db2.KeyByHash(ctx, graph.HashKey(fmt.Sprintf("ct_live_unknown_%d_%d", round, i)))
				if graph.ErrorCode(err) != graph.CodeNotFound {
					t.Errorf("KeyByHash(unknown) error = %v, want not_found", err)
				}
			})
		}
	}
	wg.Wait()

	victim := created[3]
	if was, err := db1.RevokeKey(ctx, m.ID, victim.ID); err != nil || !was {
		t.Fatalf("RevokeKey = %v, %v", was, err)
	}
	auth := &graph.Authenticator{Store: db2}
	if _, err := auth.Authenticate(ctx, victim.Raw); graph.ErrorCode(err) != graph.CodeUnauthenticated {
		t.Errorf("Authenticate(revoked key) on the other handle right after revoking: error = %v, want unauthenticated", err)
	}
	if c, err := auth.Authenticate(ctx, created[4].Raw); err != nil || c.Key.ID != created[4].ID {
		t.Errorf("Authenticate(another key) = %v, %v; want it", c, err)
	}
}
