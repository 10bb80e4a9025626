package main

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph/webhooks"
	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/relational"
)

// Config is the service configuration, read from the environment. The
// README's configuration table lists every variable with its default.
type Config struct {
	Port                 int
	BindAddr             string
	DatabaseURL          string
	Neo4j                graphdb.Config
	LogLevel             slog.Level
	MaxBodyBytes         int64
	ShutdownTimeout      time.Duration
	GraphQLMaxDepth      int
	GraphQLMaxComplexity int
	WebhookAllowPrivate  bool
	WebhookTimeout       time.Duration     // per delivery attempt
	WebhookWorkers       int               // concurrent delivery attempts per instance
	WebhookSchedule      webhooks.Schedule // retry schedule; WEBHOOK_RETRY_SCHEDULE is for tests
	// SanctionsSyncEvery is how often serve fetches the official lists;
	// zero disables the scheduled refresh.
	SanctionsSyncEvery time.Duration
	// SanctionsReloadEvery is how often serve checks for a new snapshot.
	SanctionsReloadEvery time.Duration
	// ClusterReloadEvery is how often serve polls the cluster registry's
	// version and reloads its in-memory check index when it changed.
	ClusterReloadEvery time.Duration
	// ClusterInvestigator is the name accepted submissions are attributed
	// to (never the submitter).
	ClusterInvestigator string
	// BenchNoAudit skips audit rows. It exists only so scripts/bench can
	// measure the ceiling without auditing; never set it in service.
	BenchNoAudit bool
}

// loadConfig reads the configuration from getenv. It fails naming the
// variable whose value cannot be parsed.
func loadConfig(getenv func(string) string) (Config, error) {
	c := Config{
		Port:                 8080,
		BindAddr:             "127.0.0.1",
		DatabaseURL:          "postgres://postgres@127.0.0.1:5432/compliance?sslmode=disable",
		Neo4j:                graphdb.Config{URI: "bolt://127.0.0.1:7687", User: "neo4j"},
		LogLevel:             slog.LevelInfo,
		MaxBodyBytes:         1 << 20,
		ShutdownTimeout:      20 * time.Second,
		GraphQLMaxDepth:      12,
		GraphQLMaxComplexity: 1000,
		WebhookTimeout:       10 * time.Second,
		WebhookWorkers:       100,
		WebhookSchedule:      webhooks.DefaultSchedule,
	}
	var errs []string
	str := func(name string, dst *string) {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	num := func(name string, dst *int, min, max int) {
		if v := getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < min || n > max {
				errs = append(errs, fmt.Sprintf("%s must be an integer from %d to %d, got %q", name, min, max, v))
				return
			}
			*dst = n
		}
	}
	str("BIND_ADDR", &c.BindAddr)
	num("PORT", &c.Port, 0, 65535)
	str("DATABASE_URL", &c.DatabaseURL)
	str("NEO4J_URI", &c.Neo4j.URI)
	str("NEO4J_USER", &c.Neo4j.User)
	str("NEO4J_PASSWORD", &c.Neo4j.Password)
	str("NEO4J_DATABASE", &c.Neo4j.Database)
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			errs = append(errs, fmt.Sprintf("LOG_LEVEL must be debug, info, warn or error, got %q", v))
		}
	}
	maxBody := int(c.MaxBodyBytes)
	num("MAX_BODY_BYTES", &maxBody, 1024, 64<<20)
	c.MaxBodyBytes = int64(maxBody)
	if v := getenv("SHUTDOWN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Sprintf("SHUTDOWN_TIMEOUT must be a positive duration such as 20s, got %q", v))
		} else {
			c.ShutdownTimeout = d
		}
	}
	num("GRAPHQL_MAX_DEPTH", &c.GraphQLMaxDepth, 2, 100)
	num("GRAPHQL_MAX_COMPLEXITY", &c.GraphQLMaxComplexity, 10, 1_000_000)
	if v := getenv("WEBHOOK_ALLOW_PRIVATE_TARGETS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false, got %q", v))
		}
		c.WebhookAllowPrivate = b
	}
	if v := getenv("WEBHOOK_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 100*time.Millisecond || d > 60*time.Second {
			errs = append(errs, fmt.Sprintf("WEBHOOK_TIMEOUT must be a duration from 100ms to 60s, got %q", v))
		} else {
			c.WebhookTimeout = d
		}
	}
	num("WEBHOOK_WORKERS", &c.WebhookWorkers, 1, 1000)
	if v := getenv("WEBHOOK_RETRY_SCHEDULE"); v != "" {
		sch, err := webhooks.ParseSchedule(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("WEBHOOK_RETRY_SCHEDULE must be comma-separated durations such as 1s,2s,4s: %v", err))
		} else {
			c.WebhookSchedule = sch
		}
	}
	c.SanctionsSyncEvery = 6 * time.Hour
	c.SanctionsReloadEvery = 30 * time.Second
	if v := getenv("SANCTIONS_RELOAD_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 100*time.Millisecond || d > time.Hour {
			errs = append(errs, fmt.Sprintf("SANCTIONS_RELOAD_INTERVAL must be a duration from 100ms to 1h, got %q", v))
		} else {
			c.SanctionsReloadEvery = d
		}
	}
	if v := getenv("SANCTIONS_SYNC_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || (d > 0 && d < time.Minute) {
			errs = append(errs, fmt.Sprintf("SANCTIONS_SYNC_INTERVAL must be 0 (off) or a duration of at least 1m such as 6h, got %q", v))
		} else {
			c.SanctionsSyncEvery = d
		}
	}
	c.ClusterReloadEvery = time.Second
	if v := getenv("CLUSTER_RELOAD_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 50*time.Millisecond || d > time.Minute {
			errs = append(errs, fmt.Sprintf("CLUSTER_RELOAD_INTERVAL must be a duration from 50ms to 1m, got %q", v))
		} else {
			c.ClusterReloadEvery = d
		}
	}
	c.ClusterInvestigator = "Compliance Service Investigations"
	str("CLUSTER_INVESTIGATOR", &c.ClusterInvestigator)
	if v := getenv("COMPLIANCE_BENCH_NO_AUDIT"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("COMPLIANCE_BENCH_NO_AUDIT must be true or false, got %q", v))
		}
		c.BenchNoAudit = b
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// LogValue prints the configuration with its secrets masked.
func (c Config) LogValue() slog.Value {
	pw := ""
	if c.Neo4j.Password != "" {
		pw = "xxxxx"
	}
	return slog.GroupValue(
		slog.String("BIND_ADDR", c.BindAddr),
		slog.Int("PORT", c.Port),
		slog.String("DATABASE_URL", relational.Redact(c.DatabaseURL)),
		slog.String("NEO4J_URI", c.Neo4j.URI),
		slog.String("NEO4J_USER", c.Neo4j.User),
		slog.String("NEO4J_PASSWORD", pw),
		slog.String("NEO4J_DATABASE", c.Neo4j.Database),
		slog.String("LOG_LEVEL", c.LogLevel.String()),
		slog.Int64("MAX_BODY_BYTES", c.MaxBodyBytes),
		slog.String("SHUTDOWN_TIMEOUT", c.ShutdownTimeout.String()),
		slog.Int("GRAPHQL_MAX_DEPTH", c.GraphQLMaxDepth),
		slog.Int("GRAPHQL_MAX_COMPLEXITY", c.GraphQLMaxComplexity),
		slog.Bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", c.WebhookAllowPrivate),
		slog.String("WEBHOOK_TIMEOUT", c.WebhookTimeout.String()),
		slog.Int("WEBHOOK_WORKERS", c.WebhookWorkers),
		slog.String("WEBHOOK_RETRY_SCHEDULE", c.WebhookSchedule.String()),
		slog.String("SANCTIONS_SYNC_INTERVAL", c.SanctionsSyncEvery.String()),
		slog.String("SANCTIONS_RELOAD_INTERVAL", c.SanctionsReloadEvery.String()),
		slog.String("CLUSTER_RELOAD_INTERVAL", c.ClusterReloadEvery.String()),
		slog.String("CLUSTER_INVESTIGATOR", c.ClusterInvestigator),
		slog.Bool("COMPLIANCE_BENCH_NO_AUDIT", c.BenchNoAudit),
	)
}

func environ(name string) string { return os.Getenv(name) }
