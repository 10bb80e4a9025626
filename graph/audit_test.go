package graph

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// fakeAuditLog is an in-memory AuditLog that answers Rows the way the
// Postgres one does: a member's rows in [Since, Before), newest first, at
// most Limit of them.
type fakeAuditLog struct {
	rows    []AuditRow
	queries []AuditQuery
}

func (f *fakeAuditLog) Append(ctx context.Context, r AuditRow) error {
	f.rows = append(f.rows, r)
	return nil
}

func (f *fakeAuditLog) Rows(ctx context.Context, q AuditQuery, fn func(AuditRow) error) error {
	f.queries = append(f.queries, q)
	var sel []AuditRow
	for _, r := range f.rows {
		if r.MemberID != q.MemberID || r.LoggedAt.Before(q.Since) {
			continue
		}
		if q.Before != nil && !r.LoggedAt.Before(*q.Before) {
			continue
		}
		sel = append(sel, r)
	}
	sort.Slice(sel, func(i, j int) bool { return sel[i].LoggedAt.After(sel[j].LoggedAt) })
	if len(sel) > q.Limit {
		sel = sel[:q.Limit]
	}
	for _, r := range sel {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeAuditLog) Summary(ctx context.Context, memberID string, since time.Time) ([]ScopeCount, error) {
	counts := map[string]int64{}
	for _, r := range f.rows {
		if r.MemberID == memberID && !r.LoggedAt.Before(since) {
			s := r.Scope
			if s == "" {
				s = "none"
			}
			counts[s]++
		}
	}
	var out []ScopeCount
	for s, n := range counts {
		out = append(out, ScopeCount{Scope: s, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out, nil
}

// fakeLimiter allows the first n calls of each bucket and records buckets.
type fakeLimiter struct {
	n       int
	calls   map[string]int
	buckets []string
}

func (f *fakeLimiter) Allow(ctx context.Context, bucket string, l Limit) (bool, time.Duration, error) {
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.buckets = append(f.buckets, bucket)
	f.calls[bucket]++
	if f.calls[bucket] > f.n {
		return false, 1500 * time.Millisecond, nil
	}
	return true, 0, nil
}

func (f *fakeLimiter) Quota(ctx context.Context, bucket string, perDay int) (bool, time.Duration, error) {
	return true, 0, nil
}

func TestAuditPageRequestValidate(t *testing.T) {
	tests := []struct {
		name      string
		in        AuditPageRequest
		wantField string // "" means valid
	}{
		{"defaults", AuditPageRequest{Days: 90, PageSize: 10000}, ""},
		{"smallest", AuditPageRequest{Days: 1, PageSize: 1}, ""},
		{"largest", AuditPageRequest{Days: 365, PageSize: 10000}, ""},
		{"days zero", AuditPageRequest{Days: 0, PageSize: 10}, "days"},
		{"days negative", AuditPageRequest{Days: -5, PageSize: 10}, "days"},
		{"days 366", AuditPageRequest{Days: 366, PageSize: 10}, "days"},
		{"page_size zero", AuditPageRequest{Days: 1, PageSize: 0}, "page_size"},
		{"page_size negative", AuditPageRequest{Days: 1, PageSize: -1}, "page_size"},
		{"page_size 10001", AuditPageRequest{Days: 1, PageSize: 10001}, "page_size"},
		{"both bad names days first", AuditPageRequest{Days: 0, PageSize: 0}, "days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.in.Validate()
			got := ""
			if err != nil {
				e := AsError(err)
				if e.Code != CodeInvalid {
					t.Errorf("Validate(%+v) code = %s, want %s", tt.in, e.Code, CodeInvalid)
				}
				if !strings.Contains(e.Message, e.Field) {
					t.Errorf("Validate(%+v) message %q does not name the field %q", tt.in, e.Message, e.Field)
				}
				got = e.Field
			}
			if got != tt.wantField {
				t.Errorf("Validate(%+v) field = %q, want %q", tt.in, got, tt.wantField)
			}
		})
	}
}

// auditFixture returns a log holding n rows of member "a", one a minute
// back from now, and rows of member "b" interleaved.
func auditFixture(now time.Time, n int) *fakeAuditLog {
	f := &fakeAuditLog{}
	for i := range n {
		at := now.Add(-time.Duration(i+1) * time.Minute)
		f.rows = append(f.rows,
			AuditRow{RequestID: fmt.Sprintf("a%d", i), MemberID: "a", LoggedAt: at},
			AuditRow{RequestID: fmt.Sprintf("b%d", i), MemberID: "b", LoggedAt: at.Add(time.Second)},
		)
	}
	return f
}

func TestExportAuditWalksPagesWithoutLossOrDuplicates(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		rows      int
		pageSize  int
		wantPages []int
	}{
		{"7 rows by 2", 7, 2, []int{2, 2, 2, 1}},
		{"6 rows by 2 (exact multiple)", 6, 2, []int{2, 2, 2}},
		{"7 rows by 7", 7, 7, []int{7}},
		{"7 rows by 10000", 7, 10000, []int{7}},
		{"7 rows by 1", 7, 1, []int{1, 1, 1, 1, 1, 1, 1}},
		{"no rows", 0, 5, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := auditFixture(now, tt.rows)
			var got []string
			var pages []int
			var cursor *time.Time
			for range 100 {
				req := AuditPageRequest{Days: 90, PageSize: tt.pageSize, Cursor: cursor}
				var page []AuditRow
				n, next, err := ExportAudit(context.Background(), log, "a", req, now, func(r AuditRow) error {
					page = append(page, r)
					return nil
				})
				if err != nil {
					t.Fatalf("ExportAudit(%+v) error = %v", req, err)
				}
				if n != len(page) {
					t.Errorf("ExportAudit(%+v) count = %d, want %d rows sent", req, n, len(page))
				}
				if q := log.queries[len(log.queries)-1]; q.Limit != tt.pageSize+1 || q.MemberID != "a" {
					t.Errorf("ExportAudit(%+v) query = %+v, want Limit %d for member a", req, q, tt.pageSize+1)
				}
				for i, r := range page {
					if r.MemberID != "a" {
						t.Errorf("page row %s belongs to member %q, want a", r.RequestID, r.MemberID)
					}
					if cursor != nil && !r.LoggedAt.Before(*cursor) {
						t.Errorf("page row %s logged at %v, not strictly older than cursor %v", r.RequestID, r.LoggedAt, *cursor)
					}
					if i > 0 && !r.LoggedAt.Before(page[i-1].LoggedAt) {
						t.Errorf("page not newest first at %s", r.RequestID)
					}
					got = append(got, r.RequestID)
				}
				pages = append(pages, n)
				if next == nil {
					break
				}
				if !next.Equal(page[len(page)-1].LoggedAt) {
					t.Errorf("ExportAudit(%+v) next = %v, want the last row's logged_at %v", req, *next, page[len(page)-1].LoggedAt)
				}
				cursor = next
			}
			var want []string
			for i := range tt.rows {
				want = append(want, fmt.Sprintf("a%d", i))
			}
			if !slices.Equal(got, want) {
				t.Errorf("walk over %d rows by %d = %v, want %v", tt.rows, tt.pageSize, got, want)
			}
			if !slices.Equal(pages, tt.wantPages) {
				t.Errorf("page sizes = %v, want %v", pages, tt.wantPages)
			}
		})
	}
}

func TestExportAuditWindowAndValidation(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		req       AuditPageRequest
		wantSince time.Time
		wantField string
	}{
		{"1 day", AuditPageRequest{Days: 1, PageSize: 5}, now.Add(-24 * time.Hour), ""},
		{"365 days", AuditPageRequest{Days: 365, PageSize: 5}, now.Add(-365 * 24 * time.Hour), ""},
		{"days 0 refused before reading", AuditPageRequest{Days: 0, PageSize: 5}, time.Time{}, "days"},
		{"page_size 10001 refused before reading", AuditPageRequest{Days: 5, PageSize: 10001}, time.Time{}, "page_size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &fakeAuditLog{}
			_, next, err := ExportAudit(context.Background(), log, "a", tt.req, now, func(AuditRow) error { return nil })
			if tt.wantField != "" {
				if e := AsError(err); err == nil || e.Code != CodeInvalid || e.Field != tt.wantField {
					t.Errorf("ExportAudit(%+v) error = %v, want invalid naming %s", tt.req, err, tt.wantField)
				}
				if len(log.queries) != 0 {
					t.Errorf("ExportAudit(%+v) read the log despite invalid input", tt.req)
				}
				return
			}
			if err != nil || next != nil {
				t.Fatalf("ExportAudit(%+v) = next %v, err %v; want nil, nil", tt.req, next, err)
			}
			if q := log.queries[0]; !q.Since.Equal(tt.wantSince) || q.Before != nil {
				t.Errorf("ExportAudit(%+v) query = %+v, want Since %v, Before nil", tt.req, q, tt.wantSince)
			}
		})
	}
}

func TestExportAuditStopsAtCallbackError(t *testing.T) {
	now := time.Now().UTC()
	log := auditFixture(now, 5)
	boom := errors.New("client went away")
	calls := 0
	n, next, err := ExportAudit(context.Background(), log, "a", AuditPageRequest{Days: 1, PageSize: 2}, now, func(AuditRow) error {
		calls++
		return boom
	})
	if !errors.Is(err, boom) || next != nil || calls != 1 || n != 1 {
		t.Errorf("ExportAudit with a failing callback = n %d, next %v, err %v after %d calls; want 1, nil, %v after 1 call", n, next, err, calls, boom)
	}
}

// canonicalHash is the chain hash written out independently of ChainHash:
// SHA-256 of prev followed by each field as a 4-byte big-endian length and
// its bytes. If it disagrees with ChainHash, rows already written would no
// longer verify.
func canonicalHash(prev []byte, fields ...string) []byte {
	var b []byte
	b = append(b, prev...)
	for _, f := range fields {
		b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	s := sha256.Sum256(b)
	return s[:]
}

func sampleAuditRow() AuditRow {
	sum := sha256.Sum256([]byte(`{"ok":true}`))
	return AuditRow{
		RequestID:      "req-1",
		Route:          "GET /api/v1/keys",
		Method:         "GET",
		Scope:          "audit",
		MemberID:       "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
		KeyID:          "9b2f1c4e-0000-4000-8000-000000000001",
		ResponseStatus: 200,
		ResponseSHA256: sum[:],
		ClientIP:       "127.0.0.1",
		UserAgent:      "curl/8",
		DurationMS:     1.25,
		LoggedAt:       time.Date(2026, 5, 1, 12, 0, 0, 123456000, time.UTC),
	}
}

func TestChainHashCanonicalForm(t *testing.T) {
	r := sampleAuditRow()
	prev := sha256.Sum256([]byte("previous row"))
	want := canonicalHash(prev[:], r.RequestID, r.Route, r.Method, r.Scope, r.MemberID, r.KeyID, "200",
		string(r.ResponseSHA256), r.ClientIP, r.UserAgent, "1.250", "2026-05-01T12:00:00.123456Z")
	if got := ChainHash(prev[:], r); !slices.Equal(got, want) {
		t.Errorf("ChainHash(prev, row) = %x, want %x", got, want)
	}
	if got := ChainHash(GenesisHash, r); len(got) != 32 || slices.Equal(got, want) {
		t.Errorf("ChainHash(genesis, row) = %x; want 32 bytes differing from the hash with another prev", got)
	}
	if len(GenesisHash) != 32 || !slices.Equal(GenesisHash, make([]byte, 32)) {
		t.Errorf("GenesisHash = %x, want 32 zero bytes", GenesisHash)
	}
}

func TestChainHashCoversEveryField(t *testing.T) {
	base := sampleAuditRow()
	prev := GenesisHash
	baseHash := ChainHash(prev, base)
	tests := []struct {
		name   string
		mutate func(*AuditRow)
		same   bool // the change must not alter the hash
	}{
		{"request id", func(r *AuditRow) { r.RequestID = "req-2" }, false},
		{"route", func(r *AuditRow) { r.Route = "GET /api/v1/audit" }, false},
		{"method", func(r *AuditRow) { r.Method = "POST" }, false},
		{"scope", func(r *AuditRow) { r.Scope = "" }, false},
		{"member", func(r *AuditRow) { r.MemberID = "" }, false},
		{"key", func(r *AuditRow) { r.KeyID = "" }, false},
		{"status", func(r *AuditRow) { r.ResponseStatus = 500 }, false},
		{"response hash", func(r *AuditRow) { s := sha256.Sum256(nil); r.ResponseSHA256 = s[:] }, false},
		{"client ip", func(r *AuditRow) { r.ClientIP = "10.0.0.1" }, false},
		{"user agent", func(r *AuditRow) { r.UserAgent = "curl/9" }, false},
		{"duration", func(r *AuditRow) { r.DurationMS = 1.251 }, false},
		{"logged at by a microsecond", func(r *AuditRow) { r.LoggedAt = r.LoggedAt.Add(time.Microsecond) }, false},
		{"field boundary shifted", func(r *AuditRow) { r.Route, r.Method = "GET /api/v1/keysG", "ET" }, false},
		{"empty scope moved into member", func(r *AuditRow) { r.Scope, r.MemberID = r.MemberID, "" }, false},
		{"same instant in another zone", func(r *AuditRow) { r.LoggedAt = r.LoggedAt.In(time.FixedZone("X", 5*3600)) }, true},
		{"chain fields ignored", func(r *AuditRow) { r.Seq, r.PrevHash, r.RowHash = 99, []byte("x"), []byte("y") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.mutate(&r)
			got := ChainHash(prev, r)
			if slices.Equal(got, baseHash) != tt.same {
				t.Errorf("ChainHash after changing %s = %x, base %x; want same=%v", tt.name, got, baseHash, tt.same)
			}
		})
	}
}

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"analyst@example.com", "analyst@example.com", false},
		{"  Analyst@Example.COM \n", "analyst@example.com", false},
		{"first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk", false},
		{"", "", true},
		{"   ", "", true},
		{"analyst", "", true},
		{"analyst@", "", true},
		{"@example.com", "", true},
		{"analyst@localhost", "", true},
		{"analyst@example.", "", true},
		{"analyst@.example.com", "", true},
		{"analyst@example..com", "", true},
		{"a@b@example.com", "", true},
		{"ana lyst@example.com", "", true},
		{"<analyst@example.com>", "", true},
		{"Analyst <analyst@example.com>", "", true},
		{"analyst@example.com,other@example.com", "", true},
		{strings.Repeat("a", 65) + "@example.com", "", true},
		{strings.Repeat("a", 64) + "@example.com", strings.Repeat("a", 64) + "@example.com", false},
		{"a@" + strings.Repeat("b", 250) + ".com", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeEmail("email", tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("NormalizeEmail(%q) = %q, %v; want %q, wantErr %v", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err != nil {
				if e := AsError(err); e.Code != CodeInvalid || e.Field != "email" {
					t.Errorf("NormalizeEmail(%q) error = %+v, want invalid naming email", tt.in, e)
				}
			}
		})
	}
}

func TestSummarizeAudit(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	log := &fakeAuditLog{rows: []AuditRow{
		{MemberID: "a", Scope: "audit", LoggedAt: now.Add(-time.Hour)},
		{MemberID: "a", Scope: "audit", LoggedAt: now.Add(-2 * time.Hour)},
		{MemberID: "a", Scope: "", LoggedAt: now.Add(-3 * time.Hour)},
		{MemberID: "a", Scope: "kyc", LoggedAt: now.Add(-48 * time.Hour)}, // outside 1 day
		{MemberID: "b", Scope: "audit", LoggedAt: now.Add(-time.Hour)},    // another member
	}}
	caller := &Caller{Member: Member{ID: "a"}, Key: APIKey{ID: "key-1"}}
	tests := []struct {
		name      string
		days      int
		allowN    int
		want      []ScopeCount
		wantTotal int64
		wantCode  Code
		wantField string
	}{
		{"one day", 1, 10, []ScopeCount{{"audit", 2}, {"none", 1}}, 3, "", ""},
		{"three days", 3, 10, []ScopeCount{{"audit", 2}, {"kyc", 1}, {"none", 1}}, 4, "", ""},
		{"days 0", 0, 10, nil, 0, CodeInvalid, "days"},
		{"days 366", 366, 10, nil, 0, CodeInvalid, "days"},
		{"limit reached", 1, 0, nil, 0, CodeRateLimited, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := &fakeLimiter{n: tt.allowN}
			got, total, err := SummarizeAudit(context.Background(), log, lim, caller, tt.days, now)
			if tt.wantCode != "" {
				e := AsError(err)
				if err == nil || e.Code != tt.wantCode || e.Field != tt.wantField {
					t.Fatalf("SummarizeAudit(days %d) error = %v, want %s naming %q", tt.days, err, tt.wantCode, tt.wantField)
				}
				if tt.wantCode == CodeInvalid && len(lim.buckets) != 0 {
					t.Errorf("SummarizeAudit(days %d) counted against the limit despite invalid input", tt.days)
				}
				if tt.wantCode == CodeRateLimited && e.Details["retry_after_seconds"] != 2 {
					t.Errorf("SummarizeAudit retry_after_seconds = %v, want 2 (1.5s rounded up)", e.Details["retry_after_seconds"])
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) || total != tt.wantTotal {
				t.Errorf("SummarizeAudit(days %d) = %v, %d, %v; want %v, %d", tt.days, got, total, err, tt.want, tt.wantTotal)
			}
			if len(lim.buckets) != 1 || lim.buckets[0] != "audit-summary:key:key-1" {
				t.Errorf("SummarizeAudit buckets = %v, want one per key: audit-summary:key:key-1", lim.buckets)
			}
		})
	}
	if AuditSummaryLimit != (Limit{N: 60, Per: time.Minute}) {
		t.Errorf("AuditSummaryLimit = %+v, want 60 per 60 s", AuditSummaryLimit)
	}
}

func TestRateLimited(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want int
	}{
		{0, 1},
		{-time.Second, 1},
		{time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{20 * time.Second, 20},
		{24 * time.Hour, 86400},
	}
	for _, tt := range tests {
		t.Run(tt.in.String(), func(t *testing.T) {
			e := RateLimited("limit", tt.in)
			if e.Code != CodeRateLimited || e.Details["retry_after_seconds"] != tt.want {
				t.Errorf("RateLimited(%v) = %s %v, want rate_limited with retry_after_seconds %d", tt.in, e.Code, e.Details, tt.want)
			}
			if !strings.Contains(e.Message, fmt.Sprintf("retry after %d seconds", tt.want)) {
				t.Errorf("RateLimited(%v) message = %q, want it to say the wait", tt.in, e.Message)
			}
		})
	}
}

func TestLimitString(t *testing.T) {
	tests := []struct {
		in   Limit
		want string
	}{
		{Limit{60, time.Minute}, "60 per minute"},
		{Limit{3, time.Hour}, "3 per hour"},
		{Limit{100, 24 * time.Hour}, "100 per day"},
		{Limit{10, 30 * time.Second}, "10 per 30s"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Limit%+v.String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}
