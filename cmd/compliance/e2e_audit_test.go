package main

// End-to-end tests of issue 3's audit trail: one row per request, the hash
// chain and its verifier, and the export over REST and GraphQL.

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// noRedirects is a client that returns redirects instead of following
// them, so one request is one request.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// auditRowOf is an audit_log row as stored.
type auditRowOf struct {
	n                           int
	seq                         int64
	route, method, scope        string
	member, key                 string
	status                      int
	sum                         []byte
	ip, ua                      string
	duration                    float64
	loggedAt                    time.Time
	prevHash, rowHash           []byte
	requestIDInChain, hashValid bool
}

func TestE2EAuditRowPerRequest(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	db := keysDB(t, env)
	ctx := context.Background()
	a := in.key("acme")
	kycOnly := in.key("acme", "kyc")
	var member string
	db.QueryRow(ctx, `SELECT id::text FROM members WHERE name = 'acme'`).Scan(&member)
	unknown := "ctc_live_" + strings.Repeat("Q", 40)

	tests := []struct {
		name         string
		method, path string
		headers      []string
		body         string
		wantStatus   int
		wantRoute    string
		wantScope    string
		wantKey      string // "" for no member and key
	}{
		{"probe", "GET", "/healthz", nil, "", 200, "GET /healthz", "", ""},
		{"unmatched path", "GET", "/api/v1/nothing-here", nil, "", 404, "unmatched", "", ""},
		{"unmatched path with a key", "GET", "/api/v1/nothing-here", []string{"X-Api-Key", a.Key}, "", 404, "unmatched", "", ""},
		{"wrong method", "PUT", "/api/v1/keys", []string{"X-Api-Key", a.Key}, "", 405, "unmatched", "", ""},
		{"missing key", "GET", "/api/v1/keys", nil, "", 401, "GET /api/v1/keys", "", ""},
		{"unknown key", "GET", "/api/v1/keys", []string{"Authorization", "Bearer " + unknown}, "", 401, "GET /api/v1/keys", "", ""},
		{"scope lacking", "GET", "/api/v1/audit", []string{"X-Api-Key", kycOnly.Key}, "", 403, "GET /api/v1/audit", "audit", kycOnly.KeyID},
		{"list keys", "GET", "/api/v1/keys", []string{"Authorization", "Bearer " + a.Key}, "", 200, "GET /api/v1/keys", "", a.KeyID},
		{"create key", "POST", "/api/v1/keys", []string{"X-Api-Key", a.Key}, `{"name": "audited"}`, 201, "POST /api/v1/keys", "", a.KeyID},
		{"create key, bad input", "POST", "/api/v1/keys", []string{"X-Api-Key", a.Key}, `{"name": 1}`, 400, "POST /api/v1/keys", "", a.KeyID},
		{"audit export", "GET", "/api/v1/audit?page_size=3", []string{"X-Api-Key", a.Key}, "", 200, "GET /api/v1/audit", "audit", a.KeyID},
		{"audit csv", "GET", "/api/v1/audit?format=csv", []string{"X-Api-Key", a.Key}, "", 200, "GET /api/v1/audit", "audit", a.KeyID},
		{"audit bad days", "GET", "/api/v1/audit?days=0", []string{"X-Api-Key", a.Key}, "", 400, "GET /api/v1/audit", "audit", a.KeyID},
		{"sandbox issuance", "POST", "/api/v1/keys/sandbox", nil, `{"email": "row@example.com"}`, 201, "POST /api/v1/keys/sandbox", "", ""},
		{"sandbox bad email", "POST", "/api/v1/keys/sandbox", nil, `{"email": "row"}`, 400, "POST /api/v1/keys/sandbox", "", ""},
		{"graphql with scope", "POST", "/graphql", []string{"X-Api-Key", a.Key}, `{"query": "{ auditRows(pageSize: 2) { count } apiKeys { id } }"}`, 200, "/graphql", "audit", a.KeyID},
		{"graphql forbidden field", "POST", "/graphql", []string{"X-Api-Key", kycOnly.Key}, `{"query": "{ auditSummary { total } }"}`, 200, "/graphql", "audit", kycOnly.KeyID},
		{"graphql without key", "POST", "/graphql", nil, `{"query": "{ serviceStatus { ready } }"}`, 200, "/graphql", "", ""},
		{"graphql unknown key", "POST", "/graphql", []string{"X-Api-Key", unknown}, `{"query": "{ me { memberId } }"}`, 401, "/graphql", "", ""},
		{"graphql parse error", "POST", "/graphql", nil, `{"query": "{ me { "}`, 400, "/graphql", "", ""},
		{"ide redirect", "GET", "/graphiql", nil, "", 301, "GET /graphiql", "", ""},
		{"ide", "GET", "/graphiql/", nil, "", 200, "GET /graphiql/", "", ""},
		{"unclean path", "GET", "/api//v1/keys", []string{"X-Api-Key", a.Key}, "", 307, "unmatched", "", ""},
		{"dot segment", "GET", "/api/v1/x/../keys", []string{"X-Api-Key", a.Key}, "", 307, "unmatched", "", ""},
		{"head probe", "HEAD", "/healthz", nil, "", 200, "GET /healthz", "", ""},
	}
	start := time.Now()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("e2e-audit-row-%02d-%d", i, time.Now().UnixNano())
			ua := "e2e-audit/" + strconv.Itoa(i)
			headers := append([]string{"X-Request-Id", id, "User-Agent", ua}, tt.headers...)
			r := in.doWith(noRedirects, tt.method, tt.path, "", tt.body, headers...)
			if r.status != tt.wantStatus {
				t.Fatalf("%s %s = %d %.300s, want %d", tt.method, tt.path, r.status, r.body, tt.wantStatus)
			}
			if r.header.Get("X-Request-Id") != id {
				t.Fatalf("X-Request-Id = %q, want %q", r.header.Get("X-Request-Id"), id)
			}
			rows, err := db.Query(ctx, `SELECT route, method, COALESCE(scope, ''), COALESCE(member_id::text, ''), COALESCE(key_id::text, ''),
				response_status, response_sha256, client_ip, user_agent, duration_ms, logged_at FROM audit_log WHERE request_id = $1`, id)
			if err != nil {
				t.Fatal(err)
			}
			var got []auditRowOf
			for rows.Next() {
				var g auditRowOf
				if err := rows.Scan(&g.route, &g.method, &g.scope, &g.member, &g.key, &g.status, &g.sum, &g.ip, &g.ua, &g.duration, &g.loggedAt); err != nil {
					t.Fatal(err)
				}
				got = append(got, g)
			}
			if len(got) != 1 {
				t.Fatalf("%s %s left %d audit rows, want exactly 1", tt.method, tt.path, len(got))
			}
			g := got[0]
			wantMember := ""
			if tt.wantKey != "" {
				wantMember = member
			}
			if g.route != tt.wantRoute || g.method != tt.method || g.scope != tt.wantScope || g.member != wantMember || g.key != tt.wantKey ||
				g.status != tt.wantStatus || g.ip != "127.0.0.1" || g.ua != ua {
				t.Errorf("audit row of %s %s = route %q method %q scope %q member %q key %q status %d ip %q ua %q; want %q %q %q %q %q %d 127.0.0.1 %q",
					tt.method, tt.path, g.route, g.method, g.scope, g.member, g.key, g.status, g.ip, g.ua,
					tt.wantRoute, tt.method, tt.wantScope, wantMember, tt.wantKey, tt.wantStatus, ua)
			}
			if got, want := hex.EncodeToString(g.sum), sha256Hex(r.body); got != want {
				t.Errorf("response_sha256 of %s %s = %s, want SHA-256 of the %d-byte body received %s", tt.method, tt.path, got, len(r.body), want)
			}
			if g.duration < 0 || g.duration > 10000 || g.loggedAt.Before(start.Add(-time.Second)) || g.loggedAt.After(time.Now().Add(time.Second)) {
				t.Errorf("audit row duration_ms %v, logged_at %v; want a duration and a time within the test", g.duration, g.loggedAt)
			}
		})
	}

	// The chain verifies; after one row is tampered with (triggers
	// disabled as superuser), verify exits non-zero naming that row.
	var total, target int64
	db.QueryRow(ctx, `SELECT count(*), (SELECT seq FROM audit_log WHERE route = 'GET /api/v1/keys' AND response_status = 200 ORDER BY seq LIMIT 1) FROM audit_log`).Scan(&total, &target)
	stdout, stderr, code := cliResult(t, in.env, "audit", "verify")
	var report struct {
		RowsChecked    int64 `json:"rows_checked"`
		Intact         bool  `json:"intact"`
		FirstBrokenSeq int64 `json:"first_broken_seq"`
	}
	json.Unmarshal([]byte(stdout), &report)
	if code != 0 || !report.Intact || report.RowsChecked != total {
		t.Fatalf("audit verify on an intact chain = exit %d, %s %s; want exit 0, intact, %d rows", code, stdout, stderr, total)
	}
	for _, sql := range []string{
		`ALTER TABLE audit_log DISABLE TRIGGER USER`,
		fmt.Sprintf(`UPDATE audit_log SET response_status = 299 WHERE seq = %d`, target),
		`ALTER TABLE audit_log ENABLE TRIGGER USER`,
	} {
		execSQL(t, db, sql)
	}
	if _, err := db.Exec(ctx, `UPDATE audit_log SET response_status = 200 WHERE seq = $1`, target); err == nil {
		t.Errorf("UPDATE audit_log succeeded after the triggers were re-enabled")
	}
	stdout, stderr, code = cliResult(t, in.env, "audit", "verify")
	report = struct {
		RowsChecked    int64 `json:"rows_checked"`
		Intact         bool  `json:"intact"`
		FirstBrokenSeq int64 `json:"first_broken_seq"`
	}{}
	json.Unmarshal([]byte(stdout), &report)
	if code == 0 || report.Intact || report.FirstBrokenSeq != target || !strings.Contains(stderr, fmt.Sprintf("seq %d", target)) {
		t.Errorf("audit verify after tampering with seq %d = exit %d, stdout %s, stderr %s; want non-zero, first_broken_seq %d, naming seq %d",
			target, code, stdout, stderr, target, target)
	}
}

// auditPage is one page of GET /api/v1/audit in JSON.
type auditPage struct {
	OK   bool `json:"ok"`
	Data struct {
		Days       int              `json:"days"`
		Count      int              `json:"count"`
		Rows       []map[string]any `json:"rows"`
		NextCursor *string          `json:"next_cursor"`
	} `json:"data"`
}

// memberRequestIDs returns the request ids of member's audit rows, newest first.
func memberRequestIDs(t *testing.T, in *instance, env []string, member string) []string {
	t.Helper()
	db := keysDB(t, env)
	var ids []string
	err := db.QueryRow(context.Background(), `SELECT COALESCE(array_agg(a.request_id ORDER BY a.logged_at DESC), '{}') FROM audit_log a
		JOIN members m ON m.id = a.member_id WHERE m.name = $1`, member).Scan(&ids)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestE2EAuditExport(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	db := keysDB(t, env)
	ctx := context.Background()
	a := in.key("acme")
	b := in.key("globex")
	// Seven rows for acme, interleaved with rows for globex and anonymous ones.
	for i := range 7 {
		in.do("GET", "/api/v1/keys", a.Key, nil, "X-Request-Id", fmt.Sprintf("acme-export-%d", i))
		in.do("GET", "/api/v1/keys", b.Key, nil)
		in.do("GET", "/healthz", "", nil)
	}

	t.Run("json pages of 2", func(t *testing.T) {
		want := memberRequestIDs(t, in, env, "acme")
		if len(want) != 7 {
			t.Fatalf("acme has %d audit rows before the walk, want 7", len(want))
		}
		var got []string
		var sizes []int
		cursor := ""
		for range 20 {
			path := "/api/v1/audit?page_size=2"
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			r := in.do("GET", path, a.Key, nil)
			var p auditPage
			if err := json.Unmarshal(r.body, &p); err != nil || r.status != 200 || !p.OK {
				t.Fatalf("GET %s = %d %s", path, r.status, r.body)
			}
			if p.Data.Days != 90 || p.Data.Count != len(p.Data.Rows) || p.Data.Count > 2 {
				t.Errorf("GET %s: days %d, count %d, %d rows; want days 90 and count = rows <= 2", path, p.Data.Days, p.Data.Count, len(p.Data.Rows))
			}
			for _, row := range p.Data.Rows {
				id, _ := row["request_id"].(string)
				if cursor != "" && row["logged_at"].(string) >= cursor {
					t.Errorf("row %s logged_at %v is not strictly older than the cursor %s", id, row["logged_at"], cursor)
				}
				got = append(got, id)
			}
			sizes = append(sizes, p.Data.Count)
			if p.Data.NextCursor == nil {
				break
			}
			if last := p.Data.Rows[len(p.Data.Rows)-1]["logged_at"]; *p.Data.NextCursor != last {
				t.Errorf("next_cursor %s, want the last row's logged_at %v", *p.Data.NextCursor, last)
			}
			cursor = *p.Data.NextCursor
		}
		if !slices.Equal(got, want) {
			t.Errorf("JSON walk by 2 = %v, want %v (no row lost or duplicated, newest first)", got, want)
		}
		if !slices.Equal(sizes, []int{2, 2, 2, 1}) {
			t.Errorf("JSON page sizes = %v, want [2 2 2 1] with next_cursor null on the last", sizes)
		}
	})

	t.Run("json row fields", func(t *testing.T) {
		r := in.do("GET", "/api/v1/audit?page_size=1", a.Key, nil, "X-Request-Id", "acme-fields-probe")
		var p auditPage
		json.Unmarshal(r.body, &p)
		if len(p.Data.Rows) != 1 || p.Data.NextCursor == nil {
			t.Fatalf("GET /api/v1/audit?page_size=1 = %s", r.body)
		}
		row := p.Data.Rows[0]
		var fields []string
		for f := range row {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		want := []string{"client_ip", "duration_ms", "key_id", "logged_at", "member_id", "method", "request_id", "response_sha256", "response_status", "route", "row_hash", "scope", "user_agent"}
		if !slices.Equal(fields, want) {
			t.Errorf("JSON audit row fields = %v, want %v", fields, want)
		}
		var sum, rowHash []byte
		var loggedAt time.Time
		db.QueryRow(ctx, `SELECT response_sha256, row_hash, logged_at FROM audit_log WHERE request_id = $1`, row["request_id"]).Scan(&sum, &rowHash, &loggedAt)
		if row["response_sha256"] != hex.EncodeToString(sum) || row["row_hash"] != hex.EncodeToString(rowHash) || row["key_id"] != a.KeyID ||
			row["logged_at"] != loggedAt.UTC().Format("2006-01-02T15:04:05.000000Z07:00") {
			t.Errorf("JSON audit row %v disagrees with the stored row (sha %x, row hash %x, logged_at %v)", row, sum, rowHash, loggedAt)
		}
	})

	t.Run("csv pages of 2", func(t *testing.T) {
		want := memberRequestIDs(t, in, env, "acme")
		var got []string
		var sizes []int
		cursor := ""
		for range 50 {
			path := "/api/v1/audit?format=csv&page_size=2"
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			r := in.do("GET", path, a.Key, nil)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
				t.Fatalf("GET %s = %d %s %s", path, r.status, r.header.Get("Content-Type"), r.body)
			}
			recs, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
			if err != nil || len(recs) == 0 {
				t.Fatalf("GET %s: not CSV: %v %s", path, err, r.body)
			}
			if h := strings.Join(recs[0], ","); h != "request_id,route,method,response_status,duration_ms,client_ip" {
				t.Errorf("CSV header = %s, want request_id,route,method,response_status,duration_ms,client_ip", h)
			}
			for _, rec := range recs[1:] {
				if rec[1] != "GET /api/v1/keys" && rec[1] != "GET /api/v1/audit" || rec[3] != "200" || rec[5] != "127.0.0.1" {
					t.Errorf("CSV row %v: want acme's route, status 200, 127.0.0.1", rec)
				}
				got = append(got, rec[0])
			}
			sizes = append(sizes, len(recs)-1)
			next := r.header.Get("X-Next-Cursor")
			if next == "" {
				break
			}
			cursor = next
		}
		if !slices.Equal(got, want) {
			t.Errorf("CSV walk by 2 = %v, want %v", got, want)
		}
		for i, n := range sizes {
			if i < len(sizes)-1 && n != 2 || n > 2 {
				t.Errorf("CSV page sizes = %v, want 2 per page but the last", sizes)
				break
			}
		}
	})

	t.Run("graphql pages of 2", func(t *testing.T) {
		want := memberRequestIDs(t, in, env, "acme")
		var got []string
		var cursor any
		for range 50 {
			r := in.gql(a.Key, `query($c: DateTime) { auditRows(pageSize: 2, cursor: $c) { days count nextCursor rows { requestId memberId keyId route responseSha256 rowHash } } }`,
				map[string]any{"c": cursor})
			var p struct {
				Data struct {
					AuditRows struct {
						Days, Count int
						NextCursor  *string
						Rows        []struct{ RequestID, KeyID string }
					}
				}
			}
			if err := json.Unmarshal(r.body, &p); err != nil || len(gqlErrorCodes(t, r)) != 0 {
				t.Fatalf("auditRows = %s", r.body)
			}
			page := p.Data.AuditRows
			if page.Days != 90 || page.Count != len(page.Rows) {
				t.Errorf("auditRows days %d count %d rows %d", page.Days, page.Count, len(page.Rows))
			}
			for _, row := range page.Rows {
				got = append(got, row.RequestID)
			}
			if page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		if !slices.Equal(got, want) {
			t.Errorf("GraphQL walk by 2 = %v, want %v", got, want)
		}
	})

	t.Run("default page holds everything", func(t *testing.T) {
		want := memberRequestIDs(t, in, env, "acme")
		r := in.do("GET", "/api/v1/audit", a.Key, nil)
		var p auditPage
		json.Unmarshal(r.body, &p)
		if p.Data.Count != len(want) || p.Data.NextCursor != nil || p.Data.Days != 90 {
			t.Errorf("GET /api/v1/audit = count %d, next %v, days %d; want %d rows, next_cursor null, days 90", p.Data.Count, p.Data.NextCursor, p.Data.Days, len(want))
		}
	})

	t.Run("summary counts per scope", func(t *testing.T) {
		type count struct {
			Scope string `json:"scope"`
			Count int64  `json:"count"`
		}
		var want []count
		var total int64
		rows, _ := db.Query(ctx, `SELECT COALESCE(a.scope, 'none'), count(*) FROM audit_log a JOIN members m ON m.id = a.member_id
			WHERE m.name = 'acme' GROUP BY 1 ORDER BY 2 DESC, 1`)
		for rows.Next() {
			var c count
			rows.Scan(&c.Scope, &c.Count)
			want = append(want, c)
			total += c.Count
		}
		if len(want) < 2 {
			t.Fatalf("acme's rows have scopes %v, want at least none and audit", want)
		}
		r := in.do("GET", "/api/v1/audit?format=summary&days=30", a.Key, nil)
		var s struct {
			OK   bool
			Data struct {
				Days   int
				Total  int64
				Scopes []count
			}
		}
		json.Unmarshal(r.body, &s)
		if r.status != 200 || !s.OK || s.Data.Days != 30 || s.Data.Total != total || !slices.Equal(s.Data.Scopes, want) {
			t.Errorf("GET /api/v1/audit?format=summary = %d %s; want days 30, total %d, scopes %v", r.status, r.body, total, want)
		}
		g := in.gql(a.Key, `{ auditSummary(days: 30) { days total scopes { scope count } } }`, nil)
		var gs struct {
			Data struct {
				AuditSummary struct {
					Days   int
					Total  int64
					Scopes []count
				}
			}
		}
		json.Unmarshal(g.body, &gs)
		// The REST summary request above is one more audit row.
		want[slices.IndexFunc(want, func(c count) bool { return c.Scope == "audit" })].Count++
		slices.SortFunc(want, func(x, y count) int { // as the service orders them
			if x.Count != y.Count {
				return int(y.Count - x.Count)
			}
			return strings.Compare(x.Scope, y.Scope)
		})
		if gs.Data.AuditSummary.Total != total+1 || !slices.Equal(gs.Data.AuditSummary.Scopes, want) {
			t.Errorf("auditSummary = %s; want total %d, scopes %v", g.body, total+1, want)
		}
	})

	t.Run("days window", func(t *testing.T) {
		// An old row inserted directly (inserts are allowed; the chain is
		// not checked in this test).
		execSQL(t, db, `INSERT INTO audit_log (request_id, route, method, member_id, key_id, response_status, response_sha256,
			client_ip, user_agent, duration_ms, logged_at, prev_hash, row_hash)
			SELECT 'acme-old-row', 'GET /api/v1/keys', 'GET', k.member_id, k.id, 200, sha256(''), '127.0.0.1', 'old', 1,
				now() - interval '10 days', sha256('p'), sha256('r') FROM api_keys k WHERE k.id = $1`, a.KeyID)
		tests := []struct {
			days    int
			wantOld bool
		}{{1, false}, {9, false}, {11, true}, {365, true}}
		for _, tt := range tests {
			r := in.do("GET", fmt.Sprintf("/api/v1/audit?days=%d", tt.days), a.Key, nil)
			if gotOld := bytes.Contains(r.body, []byte("acme-old-row")); r.status != 200 || gotOld != tt.wantOld {
				t.Errorf("GET /api/v1/audit?days=%d = %d, old row included %v; want %v", tt.days, r.status, gotOld, tt.wantOld)
			}
		}
	})
}

func TestE2EAuditExportParams(t *testing.T) {
	in := start(t, testEnv(t))
	a := in.key("acme", "audit")
	tests := []struct {
		name       string
		query      string
		wantStatus int
		wantField  string
	}{
		{"defaults", "", 200, ""},
		{"days 1", "days=1", 200, ""},
		{"days 365", "days=365", 200, ""},
		{"days 0", "days=0", 400, "days"},
		{"days -1", "days=-1", 400, "days"},
		{"days 366", "days=366", 400, "days"},
		{"days fractional", "days=1.5", 400, "days"},
		{"days word", "days=ninety", 400, "days"},
		{"page_size 1", "page_size=1", 200, ""},
		{"page_size 10000", "page_size=10000", 200, ""},
		{"page_size 0", "page_size=0", 400, "page_size"},
		{"page_size 10001", "page_size=10001", 400, "page_size"},
		{"page_size huge", "page_size=99999999999999999999", 400, "page_size"},
		{"page_size word", "page_size=all", 400, "page_size"},
		{"format json", "format=json", 200, ""},
		{"format csv", "format=csv", 200, ""},
		{"format summary", "format=summary", 200, ""},
		{"format xml", "format=xml", 400, "format"},
		{"format upper case", "format=CSV", 400, "format"},
		{"cursor RFC 3339", "cursor=" + url.QueryEscape("2030-01-01T00:00:00Z"), 200, ""},
		{"cursor with offset", "cursor=" + url.QueryEscape("2030-01-01T02:00:00.123456+02:00"), 200, ""},
		{"cursor word", "cursor=yesterday", 400, "cursor"},
		{"cursor date only", "cursor=2030-01-01", 400, "cursor"},
		{"summary days 0", "format=summary&days=0", 400, "days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.do("GET", "/api/v1/audit?"+tt.query, a.Key, nil)
			if r.status != tt.wantStatus {
				t.Fatalf("GET /api/v1/audit?%s = %d %s, want %d", tt.query, r.status, r.body, tt.wantStatus)
			}
			if tt.wantStatus == 400 {
				e := r.errorOf(t)
				if e["code"] != "invalid" || e["field"] != tt.wantField || !strings.Contains(e["message"].(string), tt.wantField) {
					t.Errorf("GET /api/v1/audit?%s error = %v, want invalid naming %s", tt.query, e, tt.wantField)
				}
			}
		})
	}

	gqlTests := []struct {
		name, query, wantField string
	}{
		{"auditRows days 0", `{ auditRows(days: 0) { count } }`, "days"},
		{"auditRows days 366", `{ auditRows(days: 366) { count } }`, "days"},
		{"auditRows pageSize 0", `{ auditRows(pageSize: 0) { count } }`, "pageSize"},
		{"auditRows pageSize 10001", `{ auditRows(pageSize: 10001) { count } }`, "pageSize"},
		{"auditSummary days 0", `{ auditSummary(days: 0) { total } }`, "days"},
		{"auditSummary days 366", `{ auditSummary(days: 366) { total } }`, "days"},
		{"auditRows bad cursor", `{ auditRows(cursor: "yesterday") { count } }`, ""},
	}
	for _, tt := range gqlTests {
		t.Run("graphql "+tt.name, func(t *testing.T) {
			r := in.gql(a.Key, tt.query, nil)
			msg, ext := gqlError(t, r)
			if r.status != 400 || ext["code"] != "invalid" || (tt.wantField != "" && (ext["field"] != tt.wantField || !strings.Contains(msg, tt.wantField))) {
				t.Errorf("GraphQL %s = %d %s, want 400 invalid naming %q", tt.query, r.status, r.body, tt.wantField)
			}
		})
	}
	for _, q := range []string{`{ auditRows(days: 1, pageSize: 1) { count } }`, `{ auditRows(days: 365, pageSize: 10000) { count } }`, `{ auditSummary(days: 365) { total } }`} {
		if r := in.gql(a.Key, q, nil); r.status != 200 || len(gqlErrorCodes(t, r)) != 0 {
			t.Errorf("GraphQL %s = %d %s, want 200 without errors", q, r.status, r.body)
		}
	}
}

// TestE2EAuditSummaryRateLimit checks the summary limit of 60 per 60 s per
// key. The limit is rolling (GCRA, one request freed each second), so
// requests beyond 60 may pass for each second the burst took.
func TestE2EAuditSummaryRateLimit(t *testing.T) {
	in := start(t, testEnv(t))
	a := in.key("acme", "audit")
	other := in.key("acme", "audit")
	begin := time.Now()
	allowed := 0
	var denied response
	for range 80 {
		r := in.do("GET", "/api/v1/audit?format=summary", a.Key, nil)
		if r.status == 429 {
			denied = r
			break
		}
		if r.status != 200 {
			t.Fatalf("summary %d = %d %s", allowed+1, r.status, r.body)
		}
		allowed++
	}
	elapsed := time.Since(begin)
	if maxAllowed := 60 + int(math.Ceil(elapsed.Seconds())); allowed < 60 || allowed > maxAllowed || denied.status != 429 {
		t.Fatalf("summaries allowed before a 429 = %d in %v, want 60 to %d", allowed, elapsed, maxAllowed)
	}
	e := denied.errorOf(t)
	secs, err := strconv.Atoi(denied.header.Get("Retry-After"))
	if e["code"] != "rate_limited" || err != nil || secs < 1 || secs > 2 {
		t.Errorf("61st summary = %s, Retry-After %q; want rate_limited with Retry-After 1..2 s", denied.body, denied.header.Get("Retry-After"))
	}
	// GraphQL's auditSummary shares the key's bucket.
	g := in.gql(a.Key, `{ auditSummary { total } }`, nil)
	_, ext := gqlError(t, g)
	if ext["code"] != "rate_limited" {
		t.Errorf("auditSummary after the REST limit = %s, want rate_limited", g.body)
	}
	// The limit is per key, and the plain export is not limited by it.
	if r := in.do("GET", "/api/v1/audit?format=summary", other.Key, nil); r.status != 200 {
		t.Errorf("summary with another key = %d, want 200", r.status)
	}
	if r := in.do("GET", "/api/v1/audit?page_size=1", a.Key, nil); r.status != 200 {
		t.Errorf("JSON export with the limited key = %d, want 200", r.status)
	}
}
