// Package relational is the Postgres adapter (pgx/v5): members and keys, the
// audit trail, ledgers, runs, webhooks and the job queue. Its schema lives in
// numbered, embedded SQL migrations applied with goose.
package relational

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/tradecompliance/compliance/graph"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the service's Postgres database.
type DB struct {
	Pool *pgxpool.Pool
	// counters is a small pool whose sessions commit asynchronously
	// (synchronous_commit=off): rate-limit and last-used counters, where a
	// crash may lose the last few milliseconds of counts but nothing a
	// response depends on. It saves a WAL flush per request.
	counters *pgxpool.Pool
	log      *slog.Logger

	// keys, gcra and quota batch the lookups every keyed request makes
	// (batch.go): API keys by hash, rolling-limit and daily-quota counts.
	keys  *batcher[[]byte, keyFound]
	gcra  *batcher[gcraReq, gcraRes]
	quota *batcher[string, quotaRes]

	gooseOnce sync.Once
	goose     *goose.Provider // migrates, under an advisory lock
	gooseRead *goose.Provider // reads the migration state only
	gooseDB   *sql.DB
	gooseErr  error

	jobs jobState // the River job queue (jobs.go)
}

// Open connects a pool to the database at databaseURL and checks it answers.
// It fails with an unavailable error when the server does not answer.
func Open(ctx context.Context, databaseURL string, log *slog.Logger) (*DB, error) {
	db, err := New(databaseURL, log)
	if err != nil {
		return nil, err
	}
	if err := db.Pool.Ping(ctx); err != nil {
		db.Pool.Close()
		return nil, graph.Unavailable("postgres", fmt.Errorf("ping %s: %w", Redact(databaseURL), err))
	}
	return db, nil
}

// New returns a pool for databaseURL without connecting: connections are
// made on first use, so a server that is down now can come up later (the
// readiness probe reports it meanwhile). It fails only on a bad URL.
func New(databaseURL string, log *slog.Logger) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", redactErr(err))
	}
	if log == nil {
		log = slog.Default()
	}
	if cfg.MaxConns < 16 {
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, graph.Unavailable("postgres", err)
	}
	ccfg := cfg.Copy()
	ccfg.MaxConns = max(cfg.MaxConns/2, 4)
	ccfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	counters, err := pgxpool.NewWithConfig(context.Background(), ccfg)
	if err != nil {
		pool.Close()
		return nil, graph.Unavailable("postgres", err)
	}
	db := &DB{Pool: pool, counters: counters, log: log}
	db.keys = &batcher[[]byte, keyFound]{max: 256, inFlight: 2, run: db.keysByHash}
	db.gcra = &batcher[gcraReq, gcraRes]{max: 256, inFlight: 2, run: db.allowBatch}
	db.quota = &batcher[string, quotaRes]{max: 256, inFlight: 2, run: db.quotaBatch}
	return db, nil
}

// Close closes the pool, waiting for connections in use to be released.
func (db *DB) Close() {
	if db.gooseDB != nil {
		db.gooseDB.Close()
	}
	db.keys.wait()
	db.gcra.wait()
	db.quota.wait()
	db.counters.Close()
	db.Pool.Close()
}

// Ping checks the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.Pool.Ping(ctx) }

// EnsureDatabase creates the database named in databaseURL when it does not
// exist, connecting to the server's "postgres" database to do so. It fails
// when the server cannot be reached or the role may not create databases.
func EnsureDatabase(ctx context.Context, databaseURL string) error {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", redactErr(err))
	}
	name := cfg.Database
	if name == "" || name == "postgres" {
		return nil
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return graph.Unavailable("postgres", fmt.Errorf("connect %s: %w", Redact(databaseURL), err))
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // created meanwhile by another process
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

// provider returns the goose provider, made once, over a database/sql handle
// on the pool. When locked, it takes a Postgres advisory lock while it
// migrates, so concurrent migrators take turns; the unlocked one only reads
// the migration state, and may run concurrently with anything.
func (db *DB) provider(locked bool) (*goose.Provider, error) {
	db.gooseOnce.Do(func() {
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			db.gooseErr = err
			return
		}
		db.gooseDB = stdlib.OpenDBFromPool(db.Pool)
		db.goose, db.gooseErr = goose.NewProvider(goose.DialectPostgres, db.gooseDB, Migrations(),
			goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
		if db.gooseErr == nil {
			db.gooseRead, db.gooseErr = goose.NewProvider(goose.DialectPostgres, db.gooseDB, Migrations(),
				goose.WithDisableGlobalRegistry(true))
		}
	})
	if locked {
		return db.goose, db.gooseErr
	}
	return db.gooseRead, db.gooseErr
}

// Migrate applies every pending migration, then River's, and returns the
// names applied.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	p, err := db.provider(true)
	if err != nil {
		return nil, err
	}
	results, err := p.Up(ctx)
	var names []string
	for _, r := range results {
		if r.Error == nil {
			names = append(names, r.Source.Path)
		}
	}
	if err != nil {
		return names, fmt.Errorf("migrate postgres: %w", err)
	}
	river, err := db.migrateRiver(ctx) // the job queue's own tables
	return append(names, river...), err
}

// PendingMigrations returns the names of migrations not yet applied,
// River's included.
func (db *DB) PendingMigrations(ctx context.Context) ([]string, error) {
	p, err := db.provider(false)
	if err != nil {
		return nil, err
	}
	status, err := p.Status(ctx)
	if err != nil {
		return nil, err
	}
	var pending []string
	for _, s := range status {
		if s.State == goose.StatePending {
			pending = append(pending, s.Source.Path)
		}
	}
	river, err := db.pendingRiver(ctx)
	return append(pending, river...), err
}

// Redact returns databaseURL with its password replaced by "xxxxx", for
// logs and error messages.
func Redact(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil || u.User == nil {
		if strings.Contains(databaseURL, "password=") {
			return "(connection string with password)"
		}
		return databaseURL
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// redactErr replaces a configuration parse error, whose text can quote the
// connection string and its password, with a generic one.
func redactErr(error) error {
	return errors.New("invalid connection string")
}

// Migrations returns the embedded migration files, named NNNNN_name.sql.
func Migrations() fs.FS {
	sub, _ := fs.Sub(migrations, "migrations")
	return sub
}

// TryLock takes the session-level advisory lock named name on a dedicated
// connection, without waiting. It reports whether it got the lock; release
// unlocks it and returns the connection.
func (db *DB) TryLock(ctx context.Context, name string) (bool, func(), error) {
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return false, nil, err
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(74023118, hashtext($1))`, name).Scan(&ok); err != nil || !ok {
		conn.Release()
		return false, nil, err
	}
	return true, func() {
		conn.Exec(context.Background(), `SELECT pg_advisory_unlock(74023118, hashtext($1))`, name)
		conn.Release()
	}, nil
}

// scanned adapts a scan function over one row (the package's scanX
// functions, shared with QueryRow) to pgx.CollectRows.
func scanned[T any](scan func(pgx.Row) (T, error)) pgx.RowToFunc[T] {
	return func(r pgx.CollectableRow) (T, error) { return scan(r) }
}
