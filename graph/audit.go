package graph

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"time"
)

// AuditRow is one request in the append-only audit trail.
type AuditRow struct {
	RequestID      string    `json:"request_id"`
	Route          string    `json:"route"`
	Method         string    `json:"method"`
	Scope          string    `json:"scope"`
	MemberID       string    `json:"member_id"`
	KeyID          string    `json:"key_id"`
	ResponseStatus int       `json:"response_status"`
	ResponseSHA256 []byte    `json:"-"`
	ClientIP       string    `json:"client_ip"`
	UserAgent      string    `json:"user_agent"`
	DurationMS     float64   `json:"duration_ms"`
	LoggedAt       time.Time `json:"logged_at"`
	PrevHash       []byte    `json:"-"`
	RowHash        []byte    `json:"-"`
	Seq            int64     `json:"-"`
}

// AuditTimeLayout is how logged_at is written into the chain hash and shown
// as a cursor: UTC with the microseconds Postgres keeps.
const AuditTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// GenesisHash is the prev_hash of the first row of the chain.
var GenesisHash = make([]byte, 32)

// ChainHash returns SHA-256(prev || canonical(row)), the hash that row
// carries. The canonical form is each field, in a fixed order, as a 4-byte
// big-endian length and its bytes, so that no two rows share it.
func ChainHash(prev []byte, r AuditRow) []byte {
	h := sha256.New()
	h.Write(prev)
	var n [4]byte
	field := func(s string) {
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(r.RequestID)
	field(r.Route)
	field(r.Method)
	field(r.Scope)
	field(r.MemberID)
	field(r.KeyID)
	field(strconv.Itoa(r.ResponseStatus))
	field(string(r.ResponseSHA256))
	field(r.ClientIP)
	field(r.UserAgent)
	field(strconv.FormatFloat(r.DurationMS, 'f', 3, 64))
	field(r.LoggedAt.UTC().Format(AuditTimeLayout))
	return h.Sum(nil)
}

// AuditQuery selects a member's rows logged in [Since, Before), newest first.
type AuditQuery struct {
	MemberID string
	Since    time.Time
	Before   *time.Time // the cursor: rows strictly older; nil for the newest
	Limit    int
}

// ScopeCount is the number of a member's rows with one scope.
type ScopeCount struct {
	Scope string `json:"scope"`
	Count int64  `json:"count"`
}

// AuditLog appends and reads the audit trail.
type AuditLog interface {
	// Append returns once the row is durable; it fails when it is not.
	Append(ctx context.Context, r AuditRow) error
	// Rows calls fn for each row of q, newest first, streaming from the
	// store; it stops at fn's first error and returns it.
	Rows(ctx context.Context, q AuditQuery, fn func(AuditRow) error) error
	// Summary returns counts per scope of a member's rows since t.
	Summary(ctx context.Context, memberID string, since time.Time) ([]ScopeCount, error)
}

// AuditPageRequest asks for one page of a member's audit rows.
type AuditPageRequest struct {
	Days     int        // 1 to 365
	PageSize int        // 1 to 10000
	Cursor   *time.Time // rows strictly older than it; nil for the newest
}

// AuditSummaryLimit is the spec's limit on audit summaries, per key.
var AuditSummaryLimit = Limit{N: 60, Per: time.Minute}

// Validate fails with invalid naming the field out of range. The field
// names are the REST ones; GraphQL maps them.
func (r AuditPageRequest) Validate() error {
	if r.Days < 1 || r.Days > 365 {
		return Invalid("days", "days must be an integer from 1 to 365")
	}
	if r.PageSize < 1 || r.PageSize > 10000 {
		return Invalid("page_size", "page_size must be an integer from 1 to 10000")
	}
	return nil
}

// ExportAudit streams one page of a member's audit rows to fn, newest first,
// and returns how many it sent and the cursor of the next page (nil on the
// last page). It reads one row past the page to know whether another follows.
func ExportAudit(ctx context.Context, log AuditLog, memberID string, req AuditPageRequest, now time.Time, fn func(AuditRow) error) (int, *time.Time, error) {
	if err := req.Validate(); err != nil {
		return 0, nil, err
	}
	q := AuditQuery{
		MemberID: memberID,
		Since:    now.Add(-time.Duration(req.Days) * 24 * time.Hour),
		Before:   req.Cursor,
		Limit:    req.PageSize + 1,
	}
	count := 0
	var last time.Time
	more := false
	err := log.Rows(ctx, q, func(r AuditRow) error {
		if count == req.PageSize {
			more = true
			return nil
		}
		count++
		last = r.LoggedAt
		return fn(r)
	})
	if err != nil || !more {
		return count, nil, err
	}
	return count, &last, nil
}

// SummarizeAudit returns a member's counts per scope over the last days, and
// their total, after checking the key's summary limit.
func SummarizeAudit(ctx context.Context, log AuditLog, lim Limiter, c *Caller, days int, now time.Time) ([]ScopeCount, int64, error) {
	if days < 1 || days > 365 {
		return nil, 0, Invalid("days", "days must be an integer from 1 to 365")
	}
	ok, wait, err := lim.Allow(ctx, "audit-summary:key:"+c.Key.ID, AuditSummaryLimit)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, RateLimited("rate limit of "+AuditSummaryLimit.String()+" reached for audit summaries", wait)
	}
	counts, err := log.Summary(ctx, c.Member.ID, now.Add(-time.Duration(days)*24*time.Hour))
	var total int64
	for _, sc := range counts {
		total += sc.Count
	}
	return counts, total, err
}
