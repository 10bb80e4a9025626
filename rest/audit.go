package rest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// spoolMemory is how much of a response is held in memory before the rest
// goes to a temporary file.
const spoolMemory = 1 << 20

// spool holds a response until its audit row is durable: handlers write
// into it, it hashes what they write, and only then is the response sent.
// Large responses spill to a temporary file, so memory stays flat.
type spool struct {
	w      http.ResponseWriter
	status int
	mem    bytes.Buffer
	file   *os.File
	size   int64
	sum    hash.Hash
	// hijacked is called before a websocket upgrade hands over the
	// connection; it must make the audit row durable first.
	hijacked  func(status int) error
	didHijack bool
}

func newSpool(w http.ResponseWriter) *spool {
	return &spool{w: w, sum: sha256.New()}
}

func (s *spool) Header() http.Header { return s.w.Header() }

func (s *spool) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *spool) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.sum.Write(b)
	s.size += int64(len(b))
	if s.file == nil && s.mem.Len()+len(b) <= spoolMemory {
		return s.mem.Write(b)
	}
	if s.file == nil {
		f, err := os.CreateTemp("", "compliance-spool-*")
		if err != nil {
			return 0, err
		}
		os.Remove(f.Name()) // unlinked: gone when closed, even after a crash
		s.file = f
		if _, err := f.Write(s.mem.Bytes()); err != nil {
			return 0, err
		}
		s.mem = bytes.Buffer{}
	}
	return s.file.Write(b)
}

// Flush is a no-op: nothing leaves before the audit row is durable.
func (s *spool) Flush() {}

// Hijack makes the audit row durable (status 101, empty body) and then
// hands the connection to the websocket upgrader.
func (s *spool) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if s.hijacked != nil {
		if err := s.hijacked(http.StatusSwitchingProtocols); err != nil {
			return nil, nil, err
		}
	}
	s.didHijack = true
	s.status = http.StatusSwitchingProtocols
	return http.NewResponseController(s.w).Hijack()
}

// reset drops what was written, to answer with something else instead.
func (s *spool) reset() {
	s.close()
	*s = spool{w: s.w, sum: sha256.New(), hijacked: s.hijacked}
	for k := range s.w.Header() {
		if k != "X-Request-Id" {
			s.w.Header().Del(k)
		}
	}
}

// send writes the held response to the client.
func (s *spool) send() error {
	defer s.close()
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.w.Header().Set("Content-Length", strconv.FormatInt(s.size, 10))
	s.w.WriteHeader(s.status)
	if s.file == nil {
		_, err := s.w.Write(s.mem.Bytes())
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(s.w, s.file)
	return err
}

func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// auditState is what the inner layers tell the audit layer about a request.
type auditState struct {
	caller *graph.Caller
	scope  string
	scopes *graph.ScopeRecorder
}

type auditStateKey struct{}

func auditStateFrom(ctx context.Context) *auditState {
	st, _ := ctx.Value(auditStateKey{}).(*auditState)
	return st
}

// audited holds each response in a spool, writes its audit row, and sends
// the response only once the row is durable. When the row cannot be
// written the response is withheld and the client gets 503.
func (s *server) audited(route string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &auditState{scopes: &graph.ScopeRecorder{}}
		ctx := context.WithValue(r.Context(), auditStateKey{}, st)
		ctx = graph.WithScopeRecorder(ctx, st.scopes)
		r = r.WithContext(ctx)
		sp := newSpool(w)
		written := false
		write := func(status int) error {
			written = true
			sum := sp.sum.Sum(nil)
			if r.Method == http.MethodHead { // the client receives no body
				sum = sha256.New().Sum(nil)
			}
			return s.writeAudit(r, route, st, status, sum, time.Since(start))
		}
		sp.hijacked = write
		next.ServeHTTP(sp, r)
		if sp.didHijack {
			return
		}
		if written { // hijack failed after the row was written
			return
		}
		if err := write(sp.status); err != nil {
			s.log.ErrorContext(ctx, "audit row not written; response withheld", "request_id", graph.RequestID(ctx), "err", err)
			sp.reset()
			writeError(ctx, sp, s.log, &graph.Error{Code: graph.CodeUnavailable, Message: "the audit trail is unavailable, so the response was withheld; retry later"})
		}
		if err := sp.send(); err != nil && !errors.Is(err, context.Canceled) {
			s.log.DebugContext(ctx, "response not fully sent", "err", err)
		}
	})
}

// writeAudit appends the request's row, waiting until it is durable even if
// the client has gone.
func (s *server) writeAudit(r *http.Request, route string, st *auditState, status int, sum []byte, d time.Duration) error {
	if s.Audit == nil { // only under COMPLIANCE_BENCH_NO_AUDIT
		return nil
	}
	row := graph.AuditRow{
		RequestID:      graph.RequestID(r.Context()),
		Route:          route,
		Method:         r.Method,
		Scope:          st.scope,
		ResponseStatus: status,
		ResponseSHA256: sum,
		ClientIP:       clientIP(r),
		UserAgent:      truncate(r.UserAgent(), 512),
		DurationMS:     float64(d.Microseconds()) / 1000,
	}
	if row.Scope == "" {
		row.Scope = st.scopes.String()
	}
	if st.caller != nil {
		row.MemberID = st.caller.Member.ID
		row.KeyID = st.caller.Key.ID
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 10*time.Second)
	defer cancel()
	return s.Audit.Append(ctx, row)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
