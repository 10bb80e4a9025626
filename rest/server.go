package rest

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

// Config wires the HTTP surface to the services behind it.
type Config struct {
	Health   *graph.Health
	Auth     *graph.Authenticator
	Keys     *graph.Keys
	KeyStore graph.KeyStore
	Sandbox  graph.SandboxStore
	Audit    graph.AuditLog
	Limiter  graph.Limiter
	Matrix   *regulatory.Matrix
	Screener *sanctions.Screener
	Webhooks *webhooks.Service
	KYC      *kyc.Service // nil: the KYC endpoints answer unavailable
	Clusters *cluster.Service
	UBO      *ubo.Service

	GraphQL      http.Handler // serves /graphql (POST and websocket upgrades)
	IDE          http.Handler // the GraphQL IDE, mounted at /graphiql/
	Logger       *slog.Logger
	Registry     *prometheus.Registry // metrics are registered here and served at /metrics
	MaxBodyBytes int64                // request body limit; 1 MiB when zero
}

type server struct {
	Config
	log       *slog.Logger
	maxBody   int64
	metrics   *metrics
	promh     http.Handler
	countries countriesBody
	kycRuns   runCache // completed runs for SSE completed events
}

// NewHandler returns the service's whole HTTP handler.
func NewHandler(cfg Config) http.Handler {
	s := &server{Config: cfg, log: cfg.Logger, maxBody: cfg.MaxBodyBytes}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.maxBody == 0 {
		s.maxBody = 1 << 20
	}
	if s.Registry == nil {
		s.Registry = prometheus.NewRegistry()
	}
	s.metrics = newMetrics(s.Registry)
	s.promh = promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{Registry: s.Registry})

	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.Handle(rt.Pattern, routeHandler{s.audited(rt.Pattern, s.recoverer(s.guard(rt)))})
	}
	mux.Handle("GET /graphiql", routeHandler{s.audited("GET /graphiql", http.RedirectHandler("/graphiql/", http.StatusMovedPermanently))})
	return s.instrument(mux)
}

// routeHandler marks a handler registered on the mux, which writes its own
// audit row. Whatever else the mux answers with (404, 405, or a redirect to
// a cleaned path) is audited by instrument.
type routeHandler struct{ http.Handler }

func (s *server) metricsHandler(w http.ResponseWriter, r *http.Request) error {
	s.promh.ServeHTTP(w, r)
	return nil
}

func (s *server) graphql(w http.ResponseWriter, r *http.Request) error {
	if s.GraphQL == nil {
		return graph.Errorf(graph.CodeNotFound, "GraphQL is not configured")
	}
	s.GraphQL.ServeHTTP(w, r)
	return nil
}

func (s *server) ide(w http.ResponseWriter, r *http.Request) error {
	if s.IDE == nil {
		return graph.Errorf(graph.CodeNotFound, "the GraphQL IDE is not configured")
	}
	http.StripPrefix("/graphiql/", s.IDE).ServeHTTP(w, r)
	return nil
}

// recoverer turns a panic into a 500 naming the request id. The response is
// still in the audit spool, so whatever the handler wrote is dropped.
func (s *server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "panic", "request_id", graph.RequestID(r.Context()), "panic", fmt.Sprint(v))
			sp, ok := w.(*spool)
			if !ok || sp.didHijack {
				panic(http.ErrAbortHandler)
			}
			sp.reset()
			writeError(r.Context(), sp, s.log, graph.Internal(errors.New("panic")))
		}()
		next.ServeHTTP(w, r)
	})
}

// guard authenticates the caller as the route's access requires, checks the
// scope, counts the key's daily quota and the route's rolling limit, and
// then calls the handler, writing any error it returns in the envelope.
func (s *server) guard(rt Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		st := auditStateFrom(ctx)
		if st != nil {
			st.scope = rt.Scope
		}
		fail := func(err error) {
			if sp, ok := w.(*spool); ok && !sp.didHijack {
				sp.reset() // drop a partial body: the error replaces it
			}
			writeError(ctx, w, s.log, err)
		}

		raw := rawKey(r)
		var caller *graph.Caller
		if rt.Access != Keyless && (raw != "" || rt.Access != Optional) {
			if raw == "" {
				fail(graph.Errorf(graph.CodeUnauthenticated, "an API key is required: send Authorization: Bearer <key> or X-Api-Key: <key>"))
				return
			}
			c, err := s.Auth.Authenticate(ctx, raw)
			if err != nil {
				fail(err)
				return
			}
			caller = c
			if st != nil {
				st.caller = c
			}
			ctx = graph.WithCaller(ctx, c)
			r = r.WithContext(ctx)
		}
		if caller != nil {
			if rt.Access == ProductionKey && caller.Key.Environment != graph.Production {
				fail(graph.Errorf(graph.CodeForbidden, "sandbox keys reach only /api/v1/regulatory/* and /api/v1/clusters/check"))
				return
			}
			if rt.Scope != "" && !caller.HasScope(rt.Scope) {
				fail(graph.Errorf(graph.CodeForbidden, "this key lacks the %q scope", rt.Scope))
				return
			}
			if cap := caller.Key.DailyCallCap; cap != nil {
				ok, wait, err := s.Limiter.Quota(ctx, "day:key:"+caller.Key.ID, *cap)
				if err != nil {
					fail(err)
					return
				}
				if !ok {
					fail(graph.RateLimited(fmt.Sprintf("this key's daily quota of %d calls is used up; it resets at 00:00 UTC", *cap), wait))
					return
				}
			}
		}
		if rt.Limit != nil {
			who := "ip:" + clientIP(r)
			if caller != nil {
				who = "key:" + caller.Key.ID
			}
			ok, wait, err := s.Limiter.Allow(ctx, graph.RouteBucket(rt.Pattern, who), *rt.Limit)
			if err != nil {
				fail(err)
				return
			}
			if !ok {
				fail(graph.RateLimited("rate limit of "+rt.Limit.String()+" reached for "+rt.Pattern, wait))
				return
			}
		}
		if err := rt.handler(w, r); err != nil {
			fail(err)
		}
	})
}

// rawKey returns the API key from Authorization: Bearer or X-Api-Key.
func rawKey(r *http.Request) string {
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, key, ok := strings.Cut(auth, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(key)
		}
		return ""
	}
	return strings.TrimSpace(r.Header.Get("X-Api-Key"))
}

// retryAfter sets Retry-After from a rate_limited error's details.
func retryAfter(w http.ResponseWriter, e *graph.Error) {
	if secs, ok := e.Details["retry_after_seconds"].(int); ok {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
}
