package relational

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// CreateKey stores a key's record and hash (the raw key is not stored) and,
// in the same transaction, its api_key.created event with the deliveries
// and jobs of the member's subscriptions to it.
func (db *DB) CreateKey(ctx context.Context, k graph.NewKey) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO api_keys (id, member_id, name, key_prefix, key_hash, environment, scopes,
				daily_call_cap, is_active, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9, $10)`,
			k.ID, k.MemberID, k.Name, k.KeyPrefix, k.Hash, string(k.Environment), k.Scopes,
			k.DailyCallCap, k.CreatedAt, k.ExpiresAt)
		if err != nil {
			return fmt.Errorf("create key: %w", err)
		}
		return db.publishTx(ctx, tx, graph.APIKeyCreatedEvent(k.APIKey))
	})
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
// active, and fails with not_found for a key that is not the member's. A
// key that was active gets its api_key.revoked event in the same
// transaction.
func (db *DB) RevokeKey(ctx context.Context, memberID, keyID string) (bool, error) {
	var wasActive bool
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var k graph.APIKey
		var env string
		var revokedAt time.Time
		err := tx.QueryRow(ctx, `
			UPDATE api_keys k SET is_active = false, revoked_at = COALESCE(k.revoked_at, now())
			FROM (SELECT id, is_active FROM api_keys WHERE id = $1 AND member_id = $2 FOR UPDATE) old
			WHERE k.id = old.id
			RETURNING old.is_active, k.id, k.member_id, k.name, k.key_prefix, k.environment, k.scopes,
				k.created_at, k.expires_at, k.revoked_at`, keyID, memberID).Scan(&wasActive,
			&k.ID, &k.MemberID, &k.Name, &k.KeyPrefix, &env, &k.Scopes, &k.CreatedAt, &k.ExpiresAt, &revokedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return graph.Errorf(graph.CodeNotFound, "no such key")
		}
		if err != nil {
			return fmt.Errorf("revoke key: %w", err)
		}
		if !wasActive {
			return nil
		}
		k.Environment = graph.Environment(env)
		return db.publishTx(ctx, tx, graph.APIKeyRevokedEvent(k, revokedAt))
	})
	if err != nil {
		return false, err
	}
	return wasActive, nil
}

var _ graph.KeyLookup = (*DB)(nil)

// KeyByHash returns the key whose raw value hashes to hash, with its member,
// or not_found. Concurrent lookups are answered by one query, each from
// the table as it is after the lookup began, so a revoked key fails at
// once on every instance.
func (db *DB) KeyByHash(ctx context.Context, hash []byte) (graph.APIKey, graph.Member, error) {
	r, err := db.keys.do(ctx, hash)
	if err != nil {
		return graph.APIKey{}, graph.Member{}, fmt.Errorf("key by hash: %w", err)
	}
	if !r.found {
		return r.key, r.member, graph.Errorf(graph.CodeNotFound, "no such key")
	}
	return r.key, r.member, nil
}

type keyFound struct {
	key    graph.APIKey
	member graph.Member
	found  bool
}

// keysByHash looks up a batch of key hashes in one query.
func (db *DB) keysByHash(ctx context.Context, hashes [][]byte) ([]keyFound, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.Pool.Query(ctx, `SELECT k.key_hash, k.id, k.member_id, k.name, k.key_prefix, k.environment, k.scopes, k.is_active,
			k.last_used_at, k.created_at, k.expires_at, k.daily_call_cap,
			m.id, m.name, m.plan_scopes, m.data_class, m.created_at
		FROM api_keys k JOIN members m ON m.id = k.member_id WHERE k.key_hash = ANY($1)`, hashes)
	if err != nil {
		return nil, err
	}
	byHash := make(map[string]keyFound, len(hashes))
	var hash []byte
	var f keyFound
	var env string
	k, m := &f.key, &f.member
	_, err = pgx.ForEachRow(rows, []any{&hash, &k.ID, &k.MemberID, &k.Name, &k.KeyPrefix, &env, &k.Scopes, &k.IsActive,
		&k.LastUsedAt, &k.CreatedAt, &k.ExpiresAt, &k.DailyCallCap,
		&m.ID, &m.Name, &m.PlanScopes, &m.DataClass, &m.CreatedAt}, func() error {
		k.Environment = graph.Environment(env)
		f.found = true
		byHash[string(hash)] = f
		f = keyFound{} // the next row must not share slices or pointers
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]keyFound, len(hashes))
	for i, h := range hashes {
		out[i] = byHash[string(h)]
	}
	return out, nil
}

// TouchKey sets the key's last_used_at to t unless it is already later.
func (db *DB) TouchKey(ctx context.Context, keyID string, t time.Time) error {
	_, err := db.counters.Exec(ctx, `UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`, keyID, t)
	if err != nil {
		return fmt.Errorf("touch key: %w", err)
	}
	return nil
}

var _ graph.SandboxStore = (*DB)(nil)

// sandboxLockKey namespaces the advisory locks that serialise sandbox
// issuance per email and per address across instances. It is the first key
// of the two-key form pg_advisory_xact_lock(int4, int4), so it must fit in
// an int32.
const sandboxLockKey int32 = 740231180

// CreateSandboxKey stores a sandbox key for email's sandbox member, counting
// earlier issuance exactly over the last hour (ip) and day (email) inside one
// transaction that holds advisory locks on both, so concurrent requests on
// several instances cannot exceed the limits.
func (db *DB) CreateSandboxKey(ctx context.Context, email, ip string, k graph.NewKey, perIP, perEmail int) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2)), pg_advisory_xact_lock($1, hashtext($3))`,
			sandboxLockKey, "email:"+email, "ip:"+ip); err != nil {
			return err
		}
		var byIP, byEmail int
		var ipRetry, emailRetry time.Duration
		err := tx.QueryRow(ctx, `SELECT
				(SELECT count(*) FROM api_keys WHERE environment = 'sandbox' AND issued_to_ip = $1::inet AND created_at > now() - interval '1 hour'),
				(SELECT count(*) FROM api_keys WHERE environment = 'sandbox' AND lower(issued_to_email) = $2 AND created_at > now() - interval '1 day'),
				COALESCE((SELECT min(created_at) + interval '1 hour' - now() FROM (SELECT created_at FROM api_keys
					WHERE environment = 'sandbox' AND issued_to_ip = $1::inet AND created_at > now() - interval '1 hour'
					ORDER BY created_at DESC LIMIT $3) t), interval '0'),
				COALESCE((SELECT min(created_at) + interval '1 day' - now() FROM (SELECT created_at FROM api_keys
					WHERE environment = 'sandbox' AND lower(issued_to_email) = $2 AND created_at > now() - interval '1 day'
					ORDER BY created_at DESC LIMIT $4) t), interval '0')`,
			ip, email, perIP, perEmail).Scan(&byIP, &byEmail, &ipRetry, &emailRetry)
		if err != nil {
			return fmt.Errorf("count sandbox keys: %w", err)
		}
		if byIP >= perIP {
			return graph.RateLimited(fmt.Sprintf("at most %d sandbox keys per address per hour", perIP), ipRetry)
		}
		if byEmail >= perEmail {
			return graph.RateLimited(fmt.Sprintf("at most %d sandbox keys per email per day", perEmail), emailRetry)
		}
		var memberID string
		err = tx.QueryRow(ctx, `
			INSERT INTO members (id, name, plan_scopes) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
			RETURNING id`, graph.NewID(), "sandbox:"+email, graph.SandboxScopes).Scan(&memberID)
		if err != nil {
			return fmt.Errorf("sandbox member: %w", err)
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO api_keys (id, member_id, name, key_prefix, key_hash, environment, scopes,
				daily_call_cap, is_active, created_at, expires_at, issued_to_email, issued_to_ip)
			VALUES ($1, $2, $3, $4, $5, 'sandbox', $6, $7, true, now(), $8, $9, $10::inet)`,
			k.ID, memberID, k.Name, k.KeyPrefix, k.Hash, k.Scopes, k.DailyCallCap, k.ExpiresAt, email, ip)
		if err != nil {
			return fmt.Errorf("create sandbox key: %w", err)
		}
		// The sandbox member has no subscriptions (sandbox keys cannot
		// reach the webhook routes), so this records nothing today; it
		// keeps every key creation on the one outbox path.
		sk := k.APIKey
		sk.MemberID = memberID
		return db.publishTx(ctx, tx, graph.APIKeyCreatedEvent(sk))
	})
}
