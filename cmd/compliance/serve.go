package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/resolvers"
	"github.com/tradecompliance/compliance/resolvers/ide"
	"github.com/tradecompliance/compliance/rest"
)

// stores opens Postgres and Neo4j, checking both answer. The caller
// closes both.
func stores(ctx context.Context, cfg Config, log *slog.Logger) (*relational.DB, *graphdb.DB, error) {
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pg, err := relational.Open(octx, cfg.DatabaseURL, log)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres at %s: %w", relational.Redact(cfg.DatabaseURL), err)
	}
	neo, err := graphdb.Open(octx, cfg.Neo4j)
	if err != nil {
		pg.Close()
		return nil, nil, fmt.Errorf("neo4j at %s: %w", cfg.Neo4j.URI, err)
	}
	return pg, neo, nil
}

// lazyStores makes the store handles without waiting for either database:
// the server starts, /readyz names what is missing, and the pools connect
// when the databases come up. It fails only on a malformed URL.
func lazyStores(cfg Config, log *slog.Logger) (*relational.DB, *graphdb.DB, error) {
	pg, err := relational.New(cfg.DatabaseURL, log)
	if err != nil {
		return nil, nil, err
	}
	neo, err := graphdb.New(cfg.Neo4j)
	if err != nil {
		pg.Close()
		return nil, nil, err
	}
	return pg, neo, nil
}

// migrate creates the database if missing and applies every pending
// migration to both stores.
func migrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	if err := relational.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	pg, neo, err := stores(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer pg.Close()
	defer neo.Close(context.Background())
	applied, err := pg.Migrate(ctx)
	if err != nil {
		return err
	}
	log.Info("postgres migrated", "applied", applied)
	applied, err = neo.Migrate(ctx)
	if err != nil {
		return fmt.Errorf("migrate neo4j: %w", err)
	}
	log.Info("neo4j migrated", "applied", applied)
	return nil
}

// serve serves HTTP until ctx ends, then stops accepting connections and
// waits up to cfg.ShutdownTimeout for requests in flight to finish.
func serve(ctx context.Context, cfg Config, log *slog.Logger) error {
	log.Info("starting", "version", version, "config", cfg)
	pg, neo, err := lazyStores(cfg, log)
	if err != nil {
		return err
	}
	defer pg.Close()
	defer neo.Close(context.Background())

	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		relational.NewPoolCollector(pg),
	)
	health := &graph.Health{
		Version: version,
		Stores:  []graph.NamedStore{{Name: "postgres", Store: pg}, {Name: "neo4j", Store: neo}},
	}
	audit := relational.NewAuditLog(pg)
	defer audit.Close()
	auth := &graph.Authenticator{Store: pg}
	keys := &graph.Keys{Store: pg}
	go pruneLimits(ctx, pg, log)

	screener := &sanctions.Screener{}
	go watchSanctions(ctx, pg, screener, cfg.SanctionsReloadEvery, log)
	if cfg.SanctionsSyncEvery > 0 {
		go scheduleSanctionsSync(ctx, cfg, pg, log)
	}

	clusters := clusterService(ctx, cfg, pg, neo, screener, log)

	matrix, err := regulatory.Default()
	if err != nil {
		return err
	}
	// UBO screening: builds run on the job queue ("ubo") beside webhook
	// deliveries and KYC runs, screening against the sanctions screener and
	// the cluster registry's checker. The KYC ownership step builds with
	// the same builder.
	uboBuilder := &ubo.Builder{Ownership: neo, Screener: screener, Checker: clusters.Checker}
	kycSvc, kycJobs := startKYC(ctx, cfg, pg, reg, clusters.Checker, matrix, screener, ubo.KYCExposure{Builder: uboBuilder}, log)
	uboSvc := &ubo.Service{Store: pg}
	hooks, stopHooks, err := startWebhooks(ctx, cfg, pg, reg, log, append(kycJobs, pg.UBOJobs(uboBuilder, nil, log))...)
	if err != nil {
		return err
	}
	defer stopHooks()
	gql := resolvers.NewHandler(&resolvers.Resolver{Health: health, Keys: keys, KeyStore: pg, Audit: audit, Limiter: pg, Matrix: matrix, Webhooks: hooks, Screener: screener, Clusters: clusters, KYC: kycSvc, UBO: uboSvc, Ownership: neo}, resolvers.Config{
		MaxDepth:      cfg.GraphQLMaxDepth,
		MaxComplexity: cfg.GraphQLMaxComplexity,
		MaxBodyBytes:  cfg.MaxBodyBytes,
		Logger:        log,
		Authenticate: func(ctx context.Context, raw string) (context.Context, error) {
			c, err := auth.Authenticate(ctx, raw)
			if err != nil {
				return ctx, err
			}
			return graph.WithCaller(ctx, c), nil
		},
	})
	var auditLog graph.AuditLog = audit
	if cfg.BenchNoAudit && !isLoopback(cfg.BindAddr) {
		return fmt.Errorf("COMPLIANCE_BENCH_NO_AUDIT is for benchmarks on loopback only; BIND_ADDR is %s", cfg.BindAddr)
	}
	if cfg.BenchNoAudit {
		log.Warn("COMPLIANCE_BENCH_NO_AUDIT is set: requests leave NO audit rows; benchmark use only")
		auditLog = nil
	}
	handler := rest.NewHandler(rest.Config{
		Health:       health,
		Auth:         auth,
		Keys:         keys,
		KeyStore:     pg,
		Sandbox:      pg,
		Audit:        auditLog,
		Limiter:      pg,
		Matrix:       matrix,
		Screener:     screener,
		Webhooks:     hooks,
		Clusters:     clusters,
		KYC:          kycSvc,
		UBO:          uboSvc,
		GraphQL:      gql,
		IDE:          ide.Handler("/graphql"),
		Logger:       log,
		Registry:     reg,
		MaxBodyBytes: cfg.MaxBodyBytes,
	})

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.BindAddr, strconv.Itoa(cfg.Port)))
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "graphql", "http://"+ln.Addr().String()+"/graphql", "ide", "http://"+ln.Addr().String()+"/graphiql/")

	if err := serveUntil(ctx, srv, ln, cfg.ShutdownTimeout, log); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// clusterService wires the cluster surface: checks from an in-memory
// registry index that a watcher reloads when the registry version changes
// (CLUSTER_RELOAD_INTERVAL), the list and submissions from Postgres, and
// networks from the graph mirror with the sanctions snapshot's age (whether
// a record's list is loaded is read from the graph). The entries a record
// is listed under are found by the screener (its entity name and aliases,
// read from Postgres, against entries' primary names and aliases, exact
// normalized key) and checked to be held in the graph, which gives their
// links.
func clusterService(ctx context.Context, cfg Config, pg *relational.DB, neo *graphdb.DB, screener *sanctions.Screener, log *slog.Logger) *cluster.Service {
	reg := &cluster.Registry{Source: pg}
	go reg.Watch(ctx, cfg.ClusterReloadEvery, log)
	return &cluster.Service{
		Store: pg, Checker: reg, Submissions: pg,
		Networks: &cluster.Networks{Slugs: pg, Graph: neo, Fallback: pg, Sanctions: neo, Names: screener, Records: pg, Protected: pg, Snapshot: func() cluster.SnapshotState {
			var st cluster.SnapshotState
			for _, l := range screener.Lists() {
				if l.Loaded && l.StaleHours != nil && (st.StaleHours == nil || *l.StaleHours > *st.StaleHours) {
					st.StaleHours = l.StaleHours
				}
			}
			return st
		}},
	}
}

// pruneLimits deletes expired rate-limit counters every ten minutes.
func pruneLimits(ctx context.Context, pg *relational.DB, log *slog.Logger) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := pg.PruneLimits(ctx); err != nil && ctx.Err() == nil {
				log.Warn("prune rate limits", "err", err)
			}
		}
	}
}

// serveUntil serves on ln until ctx ends, then stops accepting connections
// and waits up to timeout for requests in flight to finish. It fails when
// serving fails or the requests outlast the timeout.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, timeout time.Duration, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", timeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// isLoopback reports whether addr is a loopback address or localhost.
func isLoopback(addr string) bool {
	if addr == "localhost" {
		return true
	}
	ip := net.ParseIP(addr)
	return ip != nil && ip.IsLoopback()
}
