package relational

// The background job queue: River (github.com/riverqueue/river) on the
// service's pgx pool. River's tables are created by its own migrator from
// `compliance migrate` (after the goose migrations), and readiness counts
// its unapplied migrations as pending. Every process holds an insert-only
// client, so any state change (an API call, a CLI command) can enqueue its
// jobs in its own transaction; `compliance serve` also runs a working
// client (StartWebhookWorkers).

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// QueueWebhooks is the River queue webhook deliveries run on.
const QueueWebhooks = "webhooks"

// riverLockKey serialises River migrations across concurrent migrators
// (River's migrator takes no lock of its own).
const riverLockKey int64 = 7402311800005

// fetchCooldown bounds how often a client notifies (inserter) or fetches
// (worker): the event-to-first-attempt latency is at most about this plus
// the work, with the fetch poll as a fallback.
const (
	fetchCooldown     = 20 * time.Millisecond
	fetchPollInterval = 250 * time.Millisecond
)

// jobState is the DB's job-queue state.
type jobState struct {
	once     sync.Once
	inserter *river.Client[pgx.Tx]
	err      error
	// current caches a successful River validation: migrations only go
	// up, so once current the database stays current.
	current atomic.Bool
}

// inserter returns the DB's insert-only River client, made on first use:
// it starts nothing and enqueues through whatever transaction it is given.
func (db *DB) inserter() (*river.Client[pgx.Tx], error) {
	db.jobs.once.Do(func() {
		db.jobs.inserter, db.jobs.err = newInserter(db.Pool, db.log)
	})
	return db.jobs.inserter, db.jobs.err
}

func newInserter(pool *pgxpool.Pool, log *slog.Logger) (*river.Client[pgx.Tx], error) {
	return river.NewClient(riverpgxv5.New(pool), &river.Config{
		FetchCooldown: fetchCooldown,
		Logger:        quietLogger(log),
	})
}

// quietLogger passes River's warnings and errors to log, not its
// informational chatter.
func quietLogger(log *slog.Logger) *slog.Logger {
	if log == nil {
		log = slog.Default()
	}
	return slog.New(minLevel{log.Handler().WithAttrs([]slog.Attr{slog.String("component", "river")}), slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}
func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}
func (h minLevel) WithGroup(n string) slog.Handler { return minLevel{h.Handler.WithGroup(n), h.min} }

func (db *DB) riverMigrator() (*rivermigrate.Migrator[pgx.Tx], error) {
	return rivermigrate.New(riverpgxv5.New(db.Pool), &rivermigrate.Config{Logger: quietLogger(db.log)})
}

// migrateRiver applies River's pending migrations under an advisory lock,
// returning their names ("river/006_bulk_unique", ...).
func (db *DB) migrateRiver(ctx context.Context) ([]string, error) {
	m, err := db.riverMigrator()
	if err != nil {
		return nil, err
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, riverLockKey); err != nil {
		return nil, fmt.Errorf("lock river migrations: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, riverLockKey)
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	var names []string
	for _, v := range res.Versions {
		names = append(names, fmt.Sprintf("river/%03d_%s", v.Version, strings.ReplaceAll(v.Name, " ", "_")))
	}
	return names, nil
}

// pendingRiver returns River's unapplied migrations as one entry naming
// them, or none.
func (db *DB) pendingRiver(ctx context.Context) ([]string, error) {
	if db.jobs.current.Load() {
		return nil, nil
	}
	m, err := db.riverMigrator()
	if err != nil {
		return nil, err
	}
	res, err := m.Validate(ctx, nil)
	if err != nil {
		return nil, err
	}
	if res.OK {
		db.jobs.current.Store(true)
		return nil, nil
	}
	out := make([]string, len(res.Messages))
	for i, msg := range res.Messages {
		out[i] = "river: " + msg
	}
	return out, nil
}

// RiverMigrationVersion is the newest River migration this build applies;
// the test template database is keyed by it too.
func RiverMigrationVersion() int {
	m, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return 0
	}
	all := m.AllVersions()
	if len(all) == 0 {
		return 0
	}
	return all[len(all)-1].Version
}
