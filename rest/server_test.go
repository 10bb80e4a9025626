package rest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// memAudit is an in-memory audit log for handler unit tests; the real one
// is tested against Postgres in package relational and end to end.
type memAudit struct {
	mu   sync.Mutex
	rows []graph.AuditRow
	fail error
}

func (m *memAudit) Append(ctx context.Context, r graph.AuditRow) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.rows = append(m.rows, r)
	return nil
}

func (m *memAudit) Rows(context.Context, graph.AuditQuery, func(graph.AuditRow) error) error {
	return nil
}

func (m *memAudit) Summary(context.Context, string, time.Time) ([]graph.ScopeCount, error) {
	return nil, nil
}

func newTestHandler(gql http.Handler, audit *memAudit) http.Handler {
	return NewHandler(Config{
		Health:  &graph.Health{Version: "test"},
		Audit:   audit,
		GraphQL: gql,
		Logger:  slog.New(slog.DiscardHandler),
	})
}

func TestPanicBecomes500(t *testing.T) {
	audit := &memAudit{}
	h := newTestHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "half a response")
		panic("boom at /secret/path.go:42")
	}), audit)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/graphql", strings.NewReader("{}")))

	if rec.Code != 500 {
		t.Fatalf("status = %d, want 500", rec.Code)
	}
	body := rec.Body.String()
	id := rec.Header().Get("X-Request-Id")
	var env struct {
		OK    bool
		Error errorBody
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatalf("body is not the envelope: %q", body)
	}
	if env.OK || env.Error.Code != graph.CodeInternal || env.Error.RequestID != id || !strings.Contains(env.Error.Message, id) {
		t.Errorf("envelope = %+v, want internal naming request id %s", env, id)
	}
	for _, leak := range []string{"boom", ".go:", "half a response", "goroutine"} {
		if strings.Contains(body, leak) {
			t.Errorf("body leaks %q: %s", leak, body)
		}
	}
	if len(audit.rows) != 1 || audit.rows[0].ResponseStatus != 500 || audit.rows[0].RequestID != id {
		t.Fatalf("audit rows = %+v, want one 500 row for %s", audit.rows, id)
	}
	if sum := sha256.Sum256(rec.Body.Bytes()); string(sum[:]) != string(audit.rows[0].ResponseSHA256) {
		t.Errorf("audited hash is not the hash of the body sent")
	}
}

func TestAuditFailureWithholdsResponse(t *testing.T) {
	audit := &memAudit{fail: errors.New("disk full")}
	h := newTestHandler(nil, audit)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != 503 {
		t.Fatalf("status = %d, want 503 when the audit row cannot be written", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "alive") || strings.Contains(rec.Body.String(), "disk full") {
		t.Errorf("body = %s: the response must be withheld and the cause hidden", rec.Body)
	}
}

func TestEveryRequestIsAudited(t *testing.T) {
	audit := &memAudit{}
	h := newTestHandler(nil, audit)
	tests := []struct {
		name, method, path string
		wantStatus         int
		wantRoute          string
	}{
		{"probe", "GET", "/healthz", 200, "GET /healthz"},
		{"unmatched", "GET", "/nowhere", 404, "unmatched"},
		{"wrong method", "PATCH", "/healthz", 405, "unmatched"},
		{"no key", "GET", "/api/v1/keys", 401, "GET /api/v1/keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(audit.rows)
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tt.method, tt.path, nil)
			req.Header.Set("User-Agent", "table-test")
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Fatalf("%s %s = %d, want %d", tt.method, tt.path, rec.Code, tt.wantStatus)
			}
			if len(audit.rows) != before+1 {
				t.Fatalf("audit rows grew by %d, want 1", len(audit.rows)-before)
			}
			r := audit.rows[len(audit.rows)-1]
			if r.Route != tt.wantRoute || r.Method != tt.method || r.ResponseStatus != tt.wantStatus || r.UserAgent != "table-test" || r.ClientIP == "" {
				t.Errorf("audit row = %+v", r)
			}
		})
	}
}

func TestHandlerErrorReplacesPartialBody(t *testing.T) {
	s := &server{log: slog.New(slog.DiscardHandler)}
	rt := Route{Pattern: "GET /x", Access: Keyless, handler: func(w http.ResponseWriter, r *http.Request) error {
		io.WriteString(w, `{"ok":true,"data":{"rows":[`)
		return graph.Invalid("cursor", "cursor is bad")
	}}
	sp := newSpool(httptest.NewRecorder())
	s.guard(rt).ServeHTTP(sp, httptest.NewRequest("GET", "/x", nil))
	rec := httptest.NewRecorder()
	sp.w = rec
	sp.send()
	if rec.Code != 400 || strings.Contains(rec.Body.String(), "rows") {
		t.Errorf("response = %d %s, want only the 400 envelope", rec.Code, rec.Body)
	}
}

func TestStatusTableCoversVocabulary(t *testing.T) {
	for _, c := range []graph.Code{graph.CodeInvalid, graph.CodeInvalidParam, graph.CodeUnauthenticated, graph.CodeForbidden,
		graph.CodeNotFound, graph.CodeConflict, graph.CodeRateLimited, graph.CodePaymentRequired, graph.CodeUnavailable, graph.CodeInternal} {
		if _, ok := statusByCode[c]; !ok {
			t.Errorf("code %q has no HTTP status", c)
		}
	}
}

// TestRouteLimitsNameRoutes: every declared route limit belongs to a route
// of the table (a misspelt pattern would limit nothing on REST), and every
// route with a limit shows it.
func TestRouteLimitsNameRoutes(t *testing.T) {
	routes := map[string]Route{}
	for _, r := range (&server{}).routes() {
		routes[r.Pattern] = r
	}
	for pattern, l := range graph.RouteLimits {
		r, ok := routes[pattern]
		if !ok {
			t.Errorf("graph.RouteLimits names %q, which is no route", pattern)
			continue
		}
		if r.Limit == nil || *r.Limit != l {
			t.Errorf("route %s has limit %v, want %v", pattern, r.Limit, l)
		}
	}
}
