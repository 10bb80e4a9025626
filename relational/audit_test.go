package relational_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

// auditRow returns a plausible row for member (which may be "").
func auditRow(i int, member, scope string) graph.AuditRow {
	sum := sha256.Sum256(fmt.Appendf(nil, "body %d", i))
	r := graph.AuditRow{
		RequestID:      fmt.Sprintf("req-%03d", i),
		Route:          "GET /api/v1/keys",
		Method:         "GET",
		Scope:          scope,
		MemberID:       member,
		ResponseStatus: 200,
		ResponseSHA256: sum[:],
		ClientIP:       "127.0.0.1",
		UserAgent:      "test",
		DurationMS:     float64(i) / 1000,
	}
	if member != "" {
		r.KeyID = graph.NewID()
	}
	return r
}

// appendRows appends rows one after another (each in its own commit).
func appendRows(t *testing.T, a *relational.AuditLog, rows ...graph.AuditRow) {
	t.Helper()
	for _, r := range rows {
		if err := a.Append(context.Background(), r); err != nil {
			t.Fatalf("Append(%s) error = %v", r.RequestID, err)
		}
	}
}

func TestAuditLogIsAppendOnly(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a := relational.NewAuditLog(db)
	defer a.Close()
	for i := range 3 {
		appendRows(t, a, auditRow(i, "", ""))
	}
	tests := []struct {
		name string
		sql  string
	}{
		{"update one row", `UPDATE audit_log SET response_status = 500 WHERE seq = 2`},
		{"update every row", `UPDATE audit_log SET user_agent = 'x'`},
		{"delete one row", `DELETE FROM audit_log WHERE seq = 2`},
		{"delete every row", `DELETE FROM audit_log`},
		{"truncate", `TRUNCATE audit_log`},
		{"truncate cascade", `TRUNCATE audit_log CASCADE`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Pool.Exec(ctx, tt.sql)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
				t.Fatalf("Exec(%s) error = %v, want SQLSTATE 42501 (insufficient_privilege) from the append-only trigger", tt.sql, err)
			}
		})
	}
	var n int
	var statuses []int32
	db.Pool.QueryRow(ctx, `SELECT count(*), array_agg(response_status ORDER BY seq) FROM audit_log`).Scan(&n, &statuses)
	if n != 3 || !slices.Equal(statuses, []int32{200, 200, 200}) {
		t.Errorf("after refused changes: %d rows with statuses %v, want 3 rows of 200", n, statuses)
	}
	if broken, checked, err := a.VerifyChain(ctx); broken != 0 || checked != 3 || err != nil {
		t.Errorf("VerifyChain() = %d, %d, %v; want 0, 3, nil", broken, checked, err)
	}
}

// TestAuditChainAcrossWriters appends concurrently through two AuditLogs on
// two pools, as two instances would, and checks the chain is one unbroken
// line with strictly increasing logged_at.
func TestAuditChainAcrossWriters(t *testing.T) {
	ctx := context.Background()
	url := relationaltest.NewURL(t)
	var logs []*relational.AuditLog
	var dbs []*relational.DB
	for range 2 {
		db, err := relational.Open(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		a := relational.NewAuditLog(db)
		defer a.Close()
		dbs = append(dbs, db)
		logs = append(logs, a)
	}
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- logs[i%2].Append(ctx, auditRow(i, "", ""))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Append error = %v", err)
		}
	}
	broken, checked, err := logs[0].VerifyChain(ctx)
	if broken != 0 || checked != n || err != nil {
		t.Fatalf("VerifyChain() = %d, %d, %v; want 0, %d, nil", broken, checked, err, n)
	}
	var ids []string
	var ordered bool
	err = dbs[1].Pool.QueryRow(ctx, `SELECT array_agg(request_id ORDER BY seq),
		bool_and(logged_at > prev_at) FROM (
			SELECT request_id, seq, logged_at, lag(logged_at, 1, '-infinity') OVER (ORDER BY seq) AS prev_at FROM audit_log) t`).
		Scan(&ids, &ordered)
	if err != nil {
		t.Fatal(err)
	}
	if !ordered {
		t.Errorf("logged_at does not increase strictly with seq")
	}
	slices.Sort(ids)
	if len(slices.Compact(ids)) != n {
		t.Errorf("%d distinct request ids in the chain, want %d: rows lost or duplicated", len(ids), n)
	}
}

func TestVerifyChainNamesFirstBrokenRow(t *testing.T) {
	tests := []struct {
		name       string
		tamper     string // run with the triggers disabled
		wantBroken int64
		wantRows   int64 // rows checked, up to and including the broken one
	}{
		{"intact", ``, 0, 6},
		{"status changed", `UPDATE audit_log SET response_status = 404 WHERE seq = 3`, 3, 3},
		{"response hash changed", `UPDATE audit_log SET response_sha256 = sha256('forged') WHERE seq = 4`, 4, 4},
		{"member erased", `UPDATE audit_log SET member_id = NULL WHERE seq = 2`, 2, 2},
		{"logged_at moved", `UPDATE audit_log SET logged_at = logged_at - interval '1 microsecond' WHERE seq = 5`, 5, 5},
		{"duration changed", `UPDATE audit_log SET duration_ms = duration_ms + 0.001 WHERE seq = 6`, 6, 6},
		{"first row", `UPDATE audit_log SET client_ip = '10.9.9.9' WHERE seq = 1`, 1, 1},
		{"row deleted", `DELETE FROM audit_log WHERE seq = 3`, 4, 3},
		{"last row deleted", `DELETE FROM audit_log WHERE seq = 6`, 0, 5},
		{"row and its hash rewritten", `UPDATE audit_log SET response_status = 500, row_hash = sha256('x') WHERE seq = 2`, 2, 2},
		{"prev hash forged", `UPDATE audit_log SET prev_hash = sha256('y') WHERE seq = 5`, 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db := relationaltest.New(t)
			a := relational.NewAuditLog(db)
			defer a.Close()
			member := graph.NewID()
			for i := range 6 {
				appendRows(t, a, auditRow(i, member, "audit"))
			}
			if tt.tamper != "" {
				for _, sql := range []string{`ALTER TABLE audit_log DISABLE TRIGGER USER`, tt.tamper, `ALTER TABLE audit_log ENABLE TRIGGER USER`} {
					if _, err := db.Pool.Exec(ctx, sql); err != nil {
						t.Fatalf("%s: %v", sql, err)
					}
				}
			}
			broken, checked, err := a.VerifyChain(ctx)
			if err != nil || broken != tt.wantBroken || checked != tt.wantRows {
				t.Errorf("VerifyChain() after %q = broken %d, checked %d, %v; want %d, %d", tt.tamper, broken, checked, err, tt.wantBroken, tt.wantRows)
			}
		})
	}
}

func TestAuditRowsAndSummary(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	a := relational.NewAuditLog(db)
	defer a.Close()
	memberA, memberB := graph.NewID(), graph.NewID()
	scopes := []string{"audit", "audit", "", "kyc", "audit", "", "audit"}
	for i, s := range scopes {
		appendRows(t, a, auditRow(i, memberA, s), auditRow(100+i, memberB, "kyc"))
	}
	appendRows(t, a, auditRow(200, "", "")) // anonymous

	all := func(q graph.AuditQuery) []graph.AuditRow {
		t.Helper()
		var out []graph.AuditRow
		if err := a.Rows(ctx, q, func(r graph.AuditRow) error { out = append(out, r); return nil }); err != nil {
			t.Fatalf("Rows(%+v) error = %v", q, err)
		}
		return out
	}
	ids := func(rows []graph.AuditRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.RequestID)
		}
		return out
	}
	rowsA := all(graph.AuditQuery{MemberID: memberA, Since: time.Now().Add(-time.Hour), Limit: 100})
	if got, want := ids(rowsA), []string{"req-006", "req-005", "req-004", "req-003", "req-002", "req-001", "req-000"}; !slices.Equal(got, want) {
		t.Fatalf("Rows(member A) = %v, want %v (newest first, A's only)", got, want)
	}
	for _, r := range rowsA {
		if r.MemberID != memberA || len(r.ResponseSHA256) != 32 || len(r.RowHash) != 32 || r.LoggedAt.Location() != time.UTC {
			t.Errorf("row %s = %+v; want member A, 32-byte hashes, logged_at in UTC", r.RequestID, r)
		}
	}
	cursor := rowsA[2].LoggedAt
	tests := []struct {
		name string
		q    graph.AuditQuery
		want []string
	}{
		{"limit", graph.AuditQuery{MemberID: memberA, Since: time.Now().Add(-time.Hour), Limit: 2}, []string{"req-006", "req-005"}},
		{"strictly older than cursor", graph.AuditQuery{MemberID: memberA, Since: time.Now().Add(-time.Hour), Before: &cursor, Limit: 2}, []string{"req-003", "req-002"}},
		{"since the future", graph.AuditQuery{MemberID: memberA, Since: time.Now().Add(time.Hour), Limit: 10}, nil},
		{"since a row includes it", graph.AuditQuery{MemberID: memberA, Since: cursor, Limit: 10}, []string{"req-006", "req-005", "req-004"}},
		{"unknown member", graph.AuditQuery{MemberID: graph.NewID(), Since: time.Now().Add(-time.Hour), Limit: 10}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(all(tt.q)); !slices.Equal(got, tt.want) {
				t.Errorf("Rows(%s) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}

	stop := errors.New("stop")
	seen := 0
	if err := a.Rows(ctx, graph.AuditQuery{MemberID: memberA, Since: time.Now().Add(-time.Hour), Limit: 10}, func(graph.AuditRow) error {
		seen++
		return stop
	}); !errors.Is(err, stop) || seen != 1 {
		t.Errorf("Rows with a failing callback = %v after %d rows, want %v after 1", err, seen, stop)
	}

	sumTests := []struct {
		name   string
		member string
		since  time.Time
		want   []graph.ScopeCount
	}{
		{"member A", memberA, time.Now().Add(-time.Hour), []graph.ScopeCount{{Scope: "audit", Count: 4}, {Scope: "none", Count: 2}, {Scope: "kyc", Count: 1}}},
		{"member B", memberB, time.Now().Add(-time.Hour), []graph.ScopeCount{{Scope: "kyc", Count: 7}}},
		{"member A since cursor", memberA, cursor, []graph.ScopeCount{{Scope: "audit", Count: 2}, {Scope: "none", Count: 1}}},
		{"nobody", graph.NewID(), time.Now().Add(-time.Hour), []graph.ScopeCount{}},
	}
	for _, tt := range sumTests {
		t.Run("summary "+tt.name, func(t *testing.T) {
			got, err := a.Summary(ctx, tt.member, tt.since)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("Summary(%s) = %v, %v; want %v", tt.name, got, err, tt.want)
			}
		})
	}
}

// TestAuditBadTextPoisonsNoBatch: rows are committed in groups, so a row
// Postgres refuses (text that is not UTF-8: a client's User-Agent may carry
// any byte 0x80-0xff, and a cut at 512 bytes may split a character) must
// not fail the other rows committed with it, whose responses would be
// withheld for it. Each row is stored, its bad bytes replaced.
func TestAuditBadTextPoisonsNoBatch(t *testing.T) {
	db := relationaltest.New(t)
	a := relational.NewAuditLog(db)
	defer a.Close()
	var wg sync.WaitGroup
	var failed atomic.Int32
	for i := range 200 {
		wg.Go(func() {
			r := auditRow(i, "", "kyc")
			if i%50 == 0 {
				r.UserAgent = "curl/8 \xff\xfe" + strings.Repeat("x", 3) + "\xc3"
			}
			if err := a.Append(context.Background(), r); err != nil {
				failed.Add(1)
				if i%50 != 0 {
					t.Errorf("Append(good row %d) = %v", i, err)
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Errorf("%d of 200 Appends failed", n)
	}
	if broken, checked, err := a.VerifyChain(context.Background()); err != nil || broken != 0 || checked != 200 {
		t.Errorf("VerifyChain = broken %d, checked %d, %v; want 0, 200", broken, checked, err)
	}
}
