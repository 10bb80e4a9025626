package relational

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph"
)

var _ graph.KeyStore = (*DB)(nil)

// EnsureMember returns the member named name, creating it with planScopes
// when missing. Concurrent calls for one name return the same member.
func (db *DB) EnsureMember(ctx context.Context, name string, planScopes []string) (graph.Member, error) {
	var m graph.Member
	err := db.Pool.QueryRow(ctx, `
		WITH ins AS (
			INSERT INTO members (id, name, plan_scopes) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO NOTHING
			RETURNING id, name, plan_scopes, data_class, created_at
		)
		SELECT id, name, plan_scopes, data_class, created_at FROM ins
		UNION ALL
		SELECT id, name, plan_scopes, data_class, created_at FROM members WHERE name = $2
		LIMIT 1`, graph.NewID(), name, planScopes,
	).Scan(&m.ID, &m.Name, &m.PlanScopes, &m.DataClass, &m.CreatedAt)
	if err != nil {
		return graph.Member{}, fmt.Errorf("ensure member: %w", err)
	}
	return m, nil
}

// MemberByName returns the member named name, or not_found.
func (db *DB) MemberByName(ctx context.Context, name string) (graph.Member, error) {
	var m graph.Member
	err := db.Pool.QueryRow(ctx, `SELECT id, name, plan_scopes, data_class, created_at FROM members WHERE name = $1`, name).
		Scan(&m.ID, &m.Name, &m.PlanScopes, &m.DataClass, &m.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return graph.Member{}, graph.Errorf(graph.CodeNotFound, "no member named %q", name)
	}
	if err != nil {
		return graph.Member{}, fmt.Errorf("member by name: %w", err)
	}
	return m, nil
}

// CreateKey stores a key's record and hash; the raw key is not stored.
func (db *DB) CreateKey(ctx context.Context, k graph.NewKey) error {
	_, err := db.Pool.Exec(ctx, `
		INSERT INTO api_keys (id, member_id, name, key_prefix, key_hash, environment, scopes,
			daily_call_cap, is_active, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9, $10)`,
		k.ID, k.MemberID, k.Name, k.KeyPrefix, k.Hash, string(k.Environment), k.Scopes,
		k.DailyCallCap, k.CreatedAt, k.ExpiresAt)
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	return nil
}

const keyColumns = `id, member_id, name, key_prefix, environment, scopes, is_active,
	last_used_at, created_at, expires_at, daily_call_cap`

func scanKey(row pgx.Row) (graph.APIKey, error) {
	var k graph.APIKey
	var env string
	err := row.Scan(&k.ID, &k.MemberID, &k.Name, &k.KeyPrefix, &env, &k.Scopes, &k.IsActive,
		&k.LastUsedAt, &k.CreatedAt, &k.ExpiresAt, &k.DailyCallCap)
	k.Environment = graph.Environment(env)
	return k, err
}

// ListKeys returns a member's keys, newest first, revoked ones included.
func (db *DB) ListKeys(ctx context.Context, memberID string) ([]graph.APIKey, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE member_id = $1 ORDER BY created_at DESC, id`, memberID)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	keys := []graph.APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// RevokeKey deactivates a member's key; it reports whether the key was
// active, and fails with not_found for a key that is not the member's.
func (db *DB) RevokeKey(ctx context.Context, memberID, keyID string) (bool, error) {
	var wasActive bool
	err := db.Pool.QueryRow(ctx, `
		UPDATE api_keys k SET is_active = false, revoked_at = COALESCE(k.revoked_at, now())
		FROM (SELECT id, is_active FROM api_keys WHERE id = $1 AND member_id = $2 FOR UPDATE) old
		WHERE k.id = old.id
		RETURNING old.is_active`, keyID, memberID).Scan(&wasActive)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, graph.Errorf(graph.CodeNotFound, "no such key")
	}
	if err != nil {
		return false, fmt.Errorf("revoke key: %w", err)
	}
	return wasActive, nil
}
