package relational

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph"
)

// auditLockKey is the advisory lock that serialises appends to the chain
// across every instance sharing the database.
const auditLockKey = 7402311801

// AuditLog appends audit rows with group commit: concurrent Appends are
// collected by a batcher (batch.go) and committed together in a single
// transaction, one at a time, which extends the hash chain under an
// advisory lock. Append returns only when its row is committed.
type AuditLog struct {
	db    *DB
	batch *batcher[graph.AuditRow, struct{}]
}

var _ graph.AuditLog = (*AuditLog)(nil)

// NewAuditLog returns the log; Close waits for its last commit.
func NewAuditLog(db *DB) *AuditLog {
	a := &AuditLog{db: db}
	a.batch = &batcher[graph.AuditRow, struct{}]{max: 512, inFlight: 1, run: a.commit}
	return a
}

// Close returns once the rows already handed to the log are committed.
func (a *AuditLog) Close() { a.batch.wait() }

// Append commits the row with whatever other rows are waiting. It fails
// when the transaction fails or ctx ends first (the row may then still be
// committed).
func (a *AuditLog) Append(ctx context.Context, r graph.AuditRow) error {
	_, err := a.batch.do(ctx, r)
	return err
}

// commit writes the batch as one transaction: lock the chain, read its tip,
// give each row a logged_at strictly after the tip's and its chain hash,
// insert, commit.
func (a *AuditLog) commit(ctx context.Context, batch []graph.AuditRow) ([]struct{}, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, a.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, auditLockKey); err != nil {
			return err
		}
		prev := graph.GenesisHash
		var last time.Time
		err := tx.QueryRow(ctx, `SELECT row_hash, logged_at FROM audit_log ORDER BY seq DESC LIMIT 1`).Scan(&prev, &last)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		rows := make([][]any, len(batch))
		for i := range batch {
			r := &batch[i]
			// One row Postgres refuses would fail every row of the batch:
			// text from the client (User-Agent may hold any byte 0x80-0xff)
			// is stored valid, before it is hashed.
			r.RequestID, r.Route, r.Method, r.Scope = validText(r.RequestID), validText(r.Route), validText(r.Method), validText(r.Scope)
			r.ClientIP, r.UserAgent = validText(r.ClientIP), validText(r.UserAgent)
			if !now.After(last) {
				now = last.Add(time.Microsecond)
			}
			r.LoggedAt = now
			last = now
			r.PrevHash = prev
			r.RowHash = graph.ChainHash(prev, *r)
			prev = r.RowHash
			rows[i] = []any{r.RequestID, r.Route, r.Method, nullIfEmpty(r.Scope), nullIfEmpty(r.MemberID), nullIfEmpty(r.KeyID),
				r.ResponseStatus, r.ResponseSHA256, r.ClientIP, r.UserAgent, r.DurationMS, r.LoggedAt, r.PrevHash, r.RowHash}
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"audit_log"}, []string{
			"request_id", "route", "method", "scope", "member_id", "key_id", "response_status", "response_sha256",
			"client_ip", "user_agent", "duration_ms", "logged_at", "prev_hash", "row_hash",
		}, pgx.CopyFromRows(rows))
		return err
	})
	if err != nil {
		a.db.log.Error("audit append failed", "rows", len(batch), "err", err)
		return nil, err
	}
	return make([]struct{}, len(batch)), nil
}

// validText returns s as Postgres text accepts it: bytes that are not
// UTF-8, and NUL, replaced by U+FFFD.
func validText(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

const auditColumns = `seq, request_id, route, method, COALESCE(scope, ''), COALESCE(member_id::text, ''),
	COALESCE(key_id::text, ''), response_status, response_sha256, client_ip, user_agent, duration_ms,
	logged_at, prev_hash, row_hash`

func scanAudit(row pgx.Row) (graph.AuditRow, error) {
	var r graph.AuditRow
	err := row.Scan(&r.Seq, &r.RequestID, &r.Route, &r.Method, &r.Scope, &r.MemberID, &r.KeyID, &r.ResponseStatus,
		&r.ResponseSHA256, &r.ClientIP, &r.UserAgent, &r.DurationMS, &r.LoggedAt, &r.PrevHash, &r.RowHash)
	r.LoggedAt = r.LoggedAt.UTC()
	return r, err
}

// Rows streams a member's rows of q, newest first, from a server-side
// cursor, so memory stays flat whatever the count.
func (a *AuditLog) Rows(ctx context.Context, q graph.AuditQuery, fn func(graph.AuditRow) error) error {
	before := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if q.Before != nil {
		before = *q.Before
	}
	rows, err := a.db.Pool.Query(ctx, `SELECT `+auditColumns+` FROM audit_log
		WHERE member_id = $1 AND logged_at >= $2 AND logged_at < $3
		ORDER BY logged_at DESC LIMIT $4`, q.MemberID, q.Since, before, q.Limit)
	if err != nil {
		return fmt.Errorf("audit rows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanAudit(rows)
		if err != nil {
			return fmt.Errorf("audit rows: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Summary returns a member's row counts per scope since t, largest first.
func (a *AuditLog) Summary(ctx context.Context, memberID string, since time.Time) ([]graph.ScopeCount, error) {
	rows, err := a.db.Pool.Query(ctx, `SELECT COALESCE(scope, 'none'), count(*) FROM audit_log
		WHERE member_id = $1 AND logged_at >= $2 GROUP BY 1 ORDER BY 2 DESC, 1`, memberID, since)
	if err != nil {
		return nil, fmt.Errorf("audit summary: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (graph.ScopeCount, error) {
		var c graph.ScopeCount
		err := r.Scan(&c.Scope, &c.Count)
		return c, err
	})
}

// VerifyChain walks the whole chain in order and returns the seq of the
// first row whose prev_hash or row_hash does not match, 0 when every row
// matches, and the number of rows checked.
func (a *AuditLog) VerifyChain(ctx context.Context) (broken int64, checked int64, err error) {
	rows, err := a.db.Pool.Query(ctx, `SELECT `+auditColumns+` FROM audit_log ORDER BY seq`)
	if err != nil {
		return 0, 0, fmt.Errorf("verify audit chain: %w", err)
	}
	defer rows.Close()
	prev := graph.GenesisHash
	for rows.Next() {
		r, err := scanAudit(rows)
		if err != nil {
			return 0, checked, err
		}
		checked++
		if string(r.PrevHash) != string(prev) || string(graph.ChainHash(prev, r)) != string(r.RowHash) {
			return r.Seq, checked, nil
		}
		prev = r.RowHash
	}
	return 0, checked, rows.Err()
}
