package rest

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tradecompliance/compliance/graph"
)

// Config wires the HTTP surface to the services behind it.
type Config struct {
	Health       *graph.Health
	GraphQL      http.Handler // serves /graphql (POST and websocket upgrades)
	IDE          http.Handler // the GraphQL IDE, mounted at /graphiql/
	Logger       *slog.Logger
	Registry     *prometheus.Registry // metrics are registered here and served at /metrics
	MaxBodyBytes int64                // request body limit; 1 MiB when zero
}

type server struct {
	Config
	log     *slog.Logger
	maxBody int64
	metrics *metrics
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

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{Registry: s.Registry}))
	if s.GraphQL != nil {
		mux.Handle("/graphql", s.GraphQL)
	}
	if s.IDE != nil {
		mux.Handle("GET /graphiql/", http.StripPrefix("/graphiql/", s.IDE))
		mux.Handle("GET /graphiql", http.RedirectHandler("/graphiql/", http.StatusMovedPermanently))
	}
	return s.instrument(mux)
}
