package rest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// recorder wraps a ResponseWriter to learn the status and size written. It
// keeps Hijack (websockets) and Flush (server-sent events) working.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	http.NewResponseController(r.ResponseWriter).Flush()
}

func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil && r.status == 0 {
		r.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// newRequestID returns a random 128-bit id in hex.
func newRequestID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// acceptableRequestID reports whether a client-sent X-Request-Id may be
// reused: 8 to 128 characters of letters, digits, '-', '_' and '.'.
func acceptableRequestID(id string) bool {
	if len(id) < 8 || len(id) > 128 {
		return false
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// instrument is the outermost middleware: it assigns the request id, finds
// the route pattern, limits the body, sends unmatched paths and methods to
// an audited envelope answer, then logs and counts the request.
func (s *server) instrument(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !acceptableRequestID(id) {
			id = newRequestID()
		}
		r = r.WithContext(graph.WithRequestID(r.Context(), id))
		w.Header().Set("X-Request-Id", id)
		rec := &recorder{ResponseWriter: w}
		if r.Body != nil && r.Header.Get("Upgrade") == "" {
			r.Body = http.MaxBytesReader(rec, r.Body, s.maxBody)
		}
		var h http.Handler = mux
		fallback, route := mux.Handler(r)
		if _, ok := fallback.(routeHandler); !ok {
			// The mux answers itself: 404, 405, or a redirect to the
			// cleaned path (whose route it names). Audit that too.
			route = "unmatched"
			h = s.audited(route, s.recoverer(s.unmatched(fallback)))
		}
		defer s.observe(r, rec, route, id, start)
		h.ServeHTTP(rec, r)
	})
}

// unmatched answers a request no route matched (404) or matched only by path
// (405, with Allow) in the failure envelope, and passes on the mux's
// redirect of an unclean path.
func (s *server) unmatched(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		probe := &headerOnly{header: http.Header{}}
		mux.ServeHTTP(probe, r)
		if probe.status >= 300 && probe.status < 400 {
			mux.ServeHTTP(w, r)
			return
		}
		if probe.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", probe.header.Get("Allow"))
			e := &graph.Error{Code: graph.CodeInvalid, Field: "method", Message: "method " + r.Method + " is not allowed here; allowed: " + probe.header.Get("Allow")}
			writeJSON(w, http.StatusMethodNotAllowed, envelope{Error: &errorBody{Code: e.Code, Field: e.Field, Message: e.Message, RequestID: graph.RequestID(r.Context())}})
			return
		}
		writeError(r.Context(), w, s.log, graph.Errorf(graph.CodeNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path))
	})
}

// headerOnly captures the status and headers the mux's own 404/405 handler
// would write, discarding its plain-text body.
type headerOnly struct {
	header http.Header
	status int
}

func (h *headerOnly) Header() http.Header         { return h.header }
func (h *headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerOnly) WriteHeader(code int)        { h.status = code }

// observe logs the request and records its metrics.
func (s *server) observe(r *http.Request, rec *recorder, route, id string, start time.Time) {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	elapsed := time.Since(start)
	s.metrics.observe(route, r.Method, status, elapsed)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	s.log.LogAttrs(r.Context(), level, "request",
		slog.String("request_id", id),
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Int64("bytes", rec.bytes),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		slog.String("client_ip", clientIP(r)),
	)
}

// clientIP returns the peer address of the connection without its port.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func itoa(n int) string { return strconv.Itoa(n) }
