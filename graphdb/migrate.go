package graphdb

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	mathrand "math/rand/v2"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tradecompliance/compliance/graph"
)

// Migrations are the files migrations/NNNN_name.cypher, numbered from 0001
// without gaps. A file holds one or more statements, each ended by a
// semicolon at the end of a line; lines starting with // are comments. Each
// statement runs in its own auto-commit transaction, so a file may mix
// schema and data statements. Schema statements must say IF NOT EXISTS (or
// IF EXISTS for DROP) and data statements must be idempotent (MERGE), so
// that re-running a migration interrupted by a crash is harmless.
//
// An applied migration is recorded as (:SchemaMigration {name, version,
// applied_at, run}); its name is therefore permanent. The log has a plain
// index but no uniqueness constraint: NornicDB does not enforce uniqueness
// under concurrent writes, and one duplicate would then make creating the
// constraint fail on every later start. A duplicate record is harmless, as
// the log is read as a set.
//
//go:embed migrations/*.cypher
var migrationFiles embed.FS

var embedded, embeddedErr = loadMigrations(migrationFiles, "migrations")

// A migration is one numbered file of Cypher statements.
type migration struct {
	version    int
	name       string // file name without .cypher, e.g. 0001_entities
	statements []string
}

var (
	qMigrationLogIndex = register("migration_log_index",
		`CREATE INDEX schema_migration_name IF NOT EXISTS
		 FOR (m:SchemaMigration) ON (m.name)`)
	qMigrationsApplied = register("migrations_applied",
		`UNWIND $names AS n
		 MATCH (m:SchemaMigration {name: n})
		 RETURN m.name AS name`)
	qMigrationRecord = register("migration_record",
		`MERGE (m:SchemaMigration {name: $name})
		 ON CREATE SET m.version = $version, m.applied_at = $applied_at, m.run = $run
		 RETURN m.run = $run AS created`)
)

// Migrate applies the embedded migrations not yet recorded in the database,
// in order, and returns the names of those it applied. Several processes may
// call Migrate at once: the statements are idempotent, and a migration is
// reported by the caller that recorded it (on NornicDB, racing callers may
// both report it). On failure Migrate returns the names applied so far and
// an internal or unavailable error; the failed migration stays pending.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	if embeddedErr != nil {
		return nil, graph.Internal(embeddedErr)
	}
	return db.migrate(ctx, embedded)
}

// PendingMigrations returns the names of the embedded migrations not yet
// recorded in the database, in order; none when the schema is current. It
// changes nothing. On failure it returns an internal or unavailable error.
func (db *DB) PendingMigrations(ctx context.Context) ([]string, error) {
	if embeddedErr != nil {
		return nil, graph.Internal(embeddedErr)
	}
	return db.pending(ctx, embedded)
}

func (db *DB) migrate(ctx context.Context, set []migration) ([]string, error) {
	applied, err := db.applied(ctx, set)
	if err != nil {
		return nil, err
	}
	if len(applied) == len(set) {
		return nil, nil // current: no schema statement at all
	}
	if _, err := db.autocommit(ctx, qMigrationLogIndex, nil); err != nil {
		return nil, err
	}
	run, err := runToken()
	if err != nil {
		return nil, graph.Internal(err)
	}
	var done []string
	for _, m := range set {
		if applied[m.name] {
			continue
		}
		for i, stmt := range m.statements {
			if _, err := db.runRetrying(ctx, stmt, nil); err != nil {
				return done, db.wrap(ctx, fmt.Sprintf("migration %s statement %d", m.name, i+1), err)
			}
		}
		created, err := db.record(ctx, m, run)
		if err != nil {
			return done, err
		}
		if created {
			done = append(done, m.name)
		}
	}
	return done, nil
}

func (db *DB) pending(ctx context.Context, set []migration) ([]string, error) {
	applied, err := db.applied(ctx, set)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range set {
		if !applied[m.name] {
			names = append(names, m.name)
		}
	}
	return names, nil
}

// applied returns the set of names in set that are recorded as applied.
func (db *DB) applied(ctx context.Context, set []migration) (map[string]bool, error) {
	recs, err := db.read(ctx, qMigrationsApplied, map[string]any{"names": migrationNames(set)})
	if err != nil {
		return nil, err
	}
	applied := make(map[string]bool, len(recs))
	for _, r := range recs {
		if name, ok := r.Values[0].(string); ok {
			applied[name] = true
		}
	}
	return applied, nil
}

// record records m as applied and reports whether this call created the
// record, as opposed to finding one left by a concurrent Migrate.
func (db *DB) record(ctx context.Context, m migration, run string) (bool, error) {
	recs, err := db.runRetrying(ctx, qMigrationRecord.cypher, map[string]any{
		"name":       m.name,
		"version":    int64(m.version),
		"applied_at": time.Now().UTC().Format(time.RFC3339Nano),
		"run":        run,
	})
	if err != nil {
		// A concurrent Migrate may have recorded it.
		if applied, aerr := db.applied(ctx, []migration{m}); aerr == nil && applied[m.name] {
			return false, nil
		}
		return false, db.wrap(ctx, qMigrationRecord.name, err)
	}
	if len(recs) != 1 {
		return false, graph.Internal(fmt.Errorf("graphdb: recording migration %s returned %d rows", m.name, len(recs)))
	}
	created, _ := recs[0].Values[0].(bool)
	return created, nil
}

// runRetrying runs an idempotent statement in an auto-commit transaction
// and returns its records and the raw driver error. It retries transient
// errors, as the driver does for managed transactions, and the errors of
// racing with another Migrate, after which the statement finds the work
// done: on Neo4j, creating the same schema rule at once; on NornicDB,
// MERGEs of one constrained node, which do not wait for each other but fail
// with Neo.TransientError.Transaction.Outdated or with a "constraint
// violation" coded as a syntax error.
func (db *DB) runRetrying(ctx context.Context, cypher string, params map[string]any) ([]*neo4j.Record, error) {
	const attempts = 6
	delay := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		recs, err := db.runAutocommit(ctx, cypher, params)
		if err == nil || attempt == attempts || !(neo4j.IsRetryable(err) || raced(err)) {
			return recs, err
		}
		jitter := time.Duration(mathrand.Int64N(int64(delay)))
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(delay + jitter):
		}
		delay *= 2
	}
}

// raced reports whether err may come from racing a concurrent writer of the
// same schema rule or node: a schema rule that already exists or a
// constraint violation.
func raced(err error) bool {
	var nerr *neo4j.Neo4jError
	if !errors.As(err, &nerr) {
		return false
	}
	return nerr.Code == "Neo.ClientError.Schema.ConstraintValidationFailed" ||
		strings.HasPrefix(nerr.Code, "Neo.ClientError.Schema.") && strings.HasSuffix(nerr.Code, "AlreadyExists") ||
		strings.Contains(strings.ToLower(nerr.Msg), "constraint violation")
}

// runToken returns a random token that identifies one Migrate call.
func runToken() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("graphdb: run token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

var (
	migrationFileName = regexp.MustCompile(`^([0-9]{4})_([a-z0-9_]+)\.cypher$`)
	schemaCreate      = regexp.MustCompile(`(?i)^CREATE\s+(\w+\s+)?(INDEX|CONSTRAINT)\b`)
	schemaDrop        = regexp.MustCompile(`(?i)^DROP\s+(INDEX|CONSTRAINT)\b`)
	ifNotExists       = regexp.MustCompile(`(?i)\bIF\s+NOT\s+EXISTS\b`)
	ifExists          = regexp.MustCompile(`(?i)\bIF\s+EXISTS\b`)
)

// loadMigrations reads the migrations in dir of fsys. It returns an error if
// a file is misnamed, the numbering has a gap, a file has no statement, or a
// schema statement is not idempotent.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("graphdb: reading migrations: %w", err)
	}
	var set []migration
	for _, e := range entries { // sorted by name
		match := migrationFileName.FindStringSubmatch(e.Name())
		if match == nil || e.IsDir() {
			return nil, fmt.Errorf("graphdb: migration %s: name is not NNNN_name.cypher", e.Name())
		}
		version, _ := strconv.Atoi(match[1])
		if want := len(set) + 1; version != want {
			return nil, fmt.Errorf("graphdb: migration %s: want number %04d (numbers start at 0001 without gaps)", e.Name(), want)
		}
		src, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("graphdb: reading migration %s: %w", e.Name(), err)
		}
		stmts := splitStatements(string(src))
		if len(stmts) == 0 {
			return nil, fmt.Errorf("graphdb: migration %s has no statement", e.Name())
		}
		for i, s := range stmts {
			if err := checkIdempotent(s); err != nil {
				return nil, fmt.Errorf("graphdb: migration %s statement %d: %w", e.Name(), i+1, err)
			}
		}
		set = append(set, migration{
			version:    version,
			name:       strings.TrimSuffix(e.Name(), ".cypher"),
			statements: stmts,
		})
	}
	return set, nil
}

// splitStatements splits src into statements, each ended by a semicolon at
// the end of a line (or by the end of src), dropping comment lines and
// blank statements.
func splitStatements(src string) []string {
	var stmts, cur []string
	flush := func() {
		if s := strings.TrimSpace(strings.Join(cur, "\n")); s != "" {
			stmts = append(stmts, s)
		}
		cur = cur[:0]
	}
	for line := range strings.Lines(src) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "//") {
			continue
		}
		body := strings.TrimRight(line, " \t\r\n")
		if s, ok := strings.CutSuffix(body, ";"); ok {
			cur = append(cur, s)
			flush()
			continue
		}
		cur = append(cur, body)
	}
	flush()
	return stmts
}

// checkIdempotent returns an error if stmt is a schema statement without IF
// NOT EXISTS (CREATE) or IF EXISTS (DROP).
func checkIdempotent(stmt string) error {
	switch {
	case schemaCreate.MatchString(stmt) && !ifNotExists.MatchString(stmt):
		return errors.New("schema statement without IF NOT EXISTS")
	case schemaDrop.MatchString(stmt) && !ifExists.MatchString(stmt):
		return errors.New("schema statement without IF EXISTS")
	}
	return nil
}

// migrationNames returns the names of set, in order.
func migrationNames(set []migration) []string {
	names := make([]string, len(set))
	for i, m := range set {
		names[i] = m.name
	}
	return names
}
