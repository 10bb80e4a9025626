// Package graphdb is the Neo4j adapter of the compliance service: it owns the
// driver, the numbered schema migrations and every Cypher statement the
// service runs.
//
// The Cypher here is portable: it gives the same answers on Neo4j 5 and on
// NornicDB, the Bolt server used for development and CI (DESIGN.md section
// 4). Every statement is declared once with register, and the conformance
// test runs each of them against the server NEO4J_URI names.
//
// Errors returned by this package are *graph.Error values: unavailable when
// the database cannot be reached, internal otherwise. Driver messages and
// Cypher are kept in the wrapped cause, for the log only.
package graphdb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tradecompliance/compliance/graph"
)

// dependency names the database in errors shown to clients.
const dependency = "graph database"

// Config says how to reach the graph database.
type Config struct {
	URI      string // e.g. bolt://127.0.0.1:7687 or neo4j+s://host
	User     string // empty for no authentication
	Password string
	Database string // empty for the server's default database
}

// DB is a connection pool to the graph database. It is safe for concurrent
// use.
type DB struct {
	driver   neo4j.DriverWithContext
	database string
	uri      string // without credentials, for errors
}

// Open creates the driver for cfg and verifies that the database answers,
// within the deadline of ctx. On failure it returns an unavailable error
// whose cause names the URI without credentials.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	db, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if err := db.driver.VerifyConnectivity(ctx); err != nil {
		_ = db.driver.Close(context.WithoutCancel(ctx))
		return nil, graph.Unavailable(dependency, fmt.Errorf("graphdb: connecting to %s: %w", db.uri, err))
	}
	if err := db.Ping(ctx); err != nil {
		_ = db.driver.Close(context.WithoutCancel(ctx))
		return nil, graph.Unavailable(dependency, fmt.Errorf("graphdb: connecting to %s: %w", db.uri, err))
	}
	return db, nil
}

// New creates the driver for cfg without connecting: connections are made
// on first use, so a database that is down now can come up later (the
// readiness probe reports it meanwhile). It fails only on a bad URI.
func New(cfg Config) (*DB, error) {
	uri := redactURI(cfg.URI)
	if strings.TrimSpace(cfg.URI) == "" {
		return nil, graph.Unavailable(dependency, errors.New("graphdb: no URI configured"))
	}
	auth := neo4j.NoAuth()
	if cfg.User != "" {
		auth = neo4j.BasicAuth(cfg.User, cfg.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(cfg.URI, auth)
	if err != nil {
		// The driver's message may quote the URI, credentials included.
		msg := strings.ReplaceAll(err.Error(), cfg.URI, uri)
		return nil, graph.Unavailable(dependency, fmt.Errorf("graphdb: invalid URI %s: %s", uri, msg))
	}
	return &DB{driver: driver, database: cfg.Database, uri: uri}, nil
}

// Close closes the driver and its connections. It returns an internal error
// if the driver fails to close.
func (db *DB) Close(ctx context.Context) error {
	if err := db.driver.Close(ctx); err != nil {
		return graph.Internal(fmt.Errorf("graphdb: closing driver: %w", err))
	}
	return nil
}

var qPing = register("ping", `RETURN 1 AS one`)

// Ping makes one round trip to the database. It returns an unavailable
// error if the database does not answer within the deadline of ctx.
func (db *DB) Ping(ctx context.Context) error {
	recs, err := db.autocommit(ctx, qPing, nil)
	if err != nil {
		return err
	}
	if len(recs) != 1 {
		return graph.Unavailable(dependency, fmt.Errorf("graphdb: ping returned %d rows", len(recs)))
	}
	if one, _ := recs[0].Get("one"); one != int64(1) {
		return graph.Unavailable(dependency, fmt.Errorf("graphdb: ping returned %v", one))
	}
	return nil
}

// read runs q in a managed read transaction, retried on transient errors,
// and returns its records.
func (db *DB) read(ctx context.Context, q query, params map[string]any) ([]*neo4j.Record, error) {
	opts := []neo4j.ExecuteQueryConfigurationOption{neo4j.ExecuteQueryWithReadersRouting()}
	if db.database != "" {
		opts = append(opts, neo4j.ExecuteQueryWithDatabase(db.database))
	}
	res, err := neo4j.ExecuteQuery(ctx, db.driver, q.cypher, params, neo4j.EagerResultTransformer, opts...)
	if err != nil {
		return nil, db.wrap(ctx, q.name, err)
	}
	return res.Records, nil
}

// autocommit runs q in its own auto-commit transaction, without retries, and
// returns its records.
func (db *DB) autocommit(ctx context.Context, q query, params map[string]any) ([]*neo4j.Record, error) {
	recs, err := db.runAutocommit(ctx, q.cypher, params)
	if err != nil {
		return nil, db.wrap(ctx, q.name, err)
	}
	return recs, nil
}

// runAutocommit runs cypher in its own auto-commit transaction and returns
// its records and the raw driver error. Schema statements need this: Neo4j
// refuses schema and data writes in one transaction.
func (db *DB) runAutocommit(ctx context.Context, cypher string, params map[string]any) (recs []*neo4j.Record, err error) {
	session := db.driver.NewSession(ctx, neo4j.SessionConfig{
		AccessMode:   neo4j.AccessModeWrite,
		DatabaseName: db.database,
	})
	defer func() {
		if cerr := session.Close(ctx); err == nil && cerr != nil {
			err = cerr
		}
	}()
	res, err := session.Run(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	recs, err = res.Collect(ctx)
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// wrap turns a driver error from the statement named what into a
// *graph.Error: unavailable when the database could not be reached or the
// deadline passed, internal otherwise.
func (db *DB) wrap(ctx context.Context, what string, err error) error {
	cause := fmt.Errorf("graphdb: %s on %s: %w", what, db.uri, err)
	if unavailable(ctx, err) {
		return graph.Unavailable(dependency, cause)
	}
	return graph.Internal(cause)
}

// unavailable reports whether err means the database could not be used,
// rather than that a statement was wrong.
func unavailable(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	if neo4j.IsConnectivityError(err) || neo4j.IsTransactionExecutionLimit(err) {
		return true
	}
	var nerr *neo4j.Neo4jError
	if errors.As(err, &nerr) {
		code := nerr.Code
		return strings.HasPrefix(code, "Neo.TransientError.") ||
			strings.HasPrefix(code, "Neo.ClientError.Security.") ||
			code == "Neo.ClientError.Database.DatabaseNotFound"
	}
	return false
}

// redactURI returns uri without its user information, for messages.
func redactURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "<unparsable URI>"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}
