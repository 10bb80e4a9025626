package relational

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

var (
	_ cluster.Store           = (*DB)(nil)
	_ cluster.ProtectedSource = (*DB)(nil)
)

// clusterLockKey namespaces the advisory lock that serializes registry
// writes (imports and triage), so slugs and versions never race.
const clusterLockKey int32 = 740231182

const recordColumns = `r.id::text, r.slug, r.entity_name, r.severity, r.country, COALESCE(g.slug, ''), COALESCE(g.id::text, ''),
	r.added_at, r.updated_at, r.source, r.sanctions_source, r.protected`

// storedRecord is a record as stored.
type storedRecord struct {
	cluster.Record
}

func scanRecord(row pgx.Row) (storedRecord, error) {
	var r storedRecord
	var sev string
	err := row.Scan(&r.ID, &r.Slug, &r.EntityName, &sev, &r.Country, &r.Group, &r.GroupID,
		&r.AddedAt, &r.UpdatedAt, &r.Source, &r.SanctionsSource, &r.Protected)
	r.Severity = cluster.Severity(sev)
	r.AddedAt, r.UpdatedAt = r.AddedAt.UTC(), r.UpdatedAt.UTC()
	r.Aliases = []string{}
	return r, err
}

// queryRecords runs a select of recordColumns (FROM cluster_records r LEFT
// JOIN cluster_groups g) and fills in every record's aliases.
func queryRecords(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, sql string, args ...any) ([]storedRecord, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	var out []storedRecord
	byID := map[string]int{}
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		byID[r.ID] = len(out)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	ids := make([]string, len(out))
	for i, r := range out {
		ids[i] = r.ID
	}
	arows, err := q.Query(ctx, `SELECT record_id::text, alias FROM cluster_aliases WHERE record_id = ANY($1::uuid[]) ORDER BY record_id, position`, ids)
	if err != nil {
		return nil, err
	}
	defer arows.Close()
	for arows.Next() {
		var id, alias string
		if err := arows.Scan(&id, &alias); err != nil {
			return nil, err
		}
		i := byID[id]
		out[i].Aliases = append(out[i].Aliases, alias)
	}
	return out, arows.Err()
}

func records(rs []storedRecord) []cluster.Record {
	out := make([]cluster.Record, len(rs))
	for i, r := range rs {
		out[i] = r.Record
	}
	return out
}

// RegistryVersion returns the registry's version: it increases with every
// change of records or aliases.
func (db *DB) RegistryVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := db.Pool.QueryRow(ctx, `SELECT version FROM cluster_registry_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("cluster registry version: %w", err)
	}
	return v, nil
}

// AllRecords returns every record with its aliases, and the registry
// version they are as of, read in one repeatable-read snapshot.
func (db *DB) AllRecords(ctx context.Context) ([]cluster.Record, int64, error) {
	var out []cluster.Record
	var v int64
	err := pgx.BeginTxFunc(ctx, db.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT version FROM cluster_registry_version`).Scan(&v); err != nil {
			return err
		}
		rs, err := queryRecords(ctx, tx, `SELECT `+recordColumns+` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id ORDER BY r.slug`)
		out = records(rs)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("cluster records: %w", err)
	}
	return out, v, nil
}

// ListRecords returns the records f selects, newest first.
func (db *DB) ListRecords(ctx context.Context, f cluster.Filter) ([]cluster.Record, error) {
	var since *time.Time
	if !f.Since.IsZero() {
		since = &f.Since
	}
	rs, err := queryRecords(ctx, db.Pool, `SELECT `+recordColumns+` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id
		WHERE ($1 = '' OR r.severity = $1) AND ($2 = '' OR r.country = $2) AND ($3::timestamptz IS NULL OR r.added_at > $3)
		ORDER BY r.added_at DESC, r.slug`, string(f.Severity), f.Country, since)
	if err != nil {
		return nil, fmt.Errorf("list cluster records: %w", err)
	}
	return records(rs), nil
}

// ProtectedEntities returns the records under the protected-entity policy,
// ordered by slug.
func (db *DB) ProtectedEntities(ctx context.Context) ([]cluster.Record, error) {
	rs, err := queryRecords(ctx, db.Pool, `SELECT `+recordColumns+` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id
		WHERE r.protected ORDER BY r.slug`)
	if err != nil {
		return nil, fmt.Errorf("protected cluster records: %w", err)
	}
	return records(rs), nil
}

// RecordsByID returns the records with ids, with their aliases, ordered by
// slug; ids naming no record are skipped (cluster.Networks reads the
// aliases of a network's records here: the graph mirror holds none).
func (db *DB) RecordsByID(ctx context.Context, ids []string) ([]cluster.Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rs, err := queryRecords(ctx, db.Pool, `SELECT `+recordColumns+` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id
		WHERE r.id = ANY($1::uuid[]) ORDER BY r.slug`, ids)
	if err != nil {
		return nil, fmt.Errorf("cluster records by id: %w", err)
	}
	return records(rs), nil
}

// RecordsBySlug returns the record with the entity slug, or every record of
// the group with that slug (ordered by slug); none when the slug names
// neither. isGroup reports which it named.
func (db *DB) RecordsBySlug(ctx context.Context, slug string) (recs []cluster.Record, groupID string, isGroup bool, err error) {
	rs, err := queryRecords(ctx, db.Pool, `SELECT `+recordColumns+` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id
		WHERE r.slug = $1`, slug)
	if err != nil {
		return nil, "", false, fmt.Errorf("cluster record by slug: %w", err)
	}
	if len(rs) == 1 {
		return records(rs), rs[0].GroupID, false, nil
	}
	rs, err = queryRecords(ctx, db.Pool, `SELECT `+recordColumns+` FROM cluster_records r JOIN cluster_groups g ON g.id = r.group_id
		WHERE g.slug = $1 ORDER BY r.slug`, slug)
	if err != nil {
		return nil, "", false, fmt.Errorf("cluster group by slug: %w", err)
	}
	if len(rs) == 0 {
		return nil, "", false, nil
	}
	return records(rs), rs[0].GroupID, true, nil
}

// ImportRecords adds or updates recs by slug in one transaction under the
// registry lock, records cluster.entity_added for each new record and
// cluster.entity_severity_changed for each severity change (fanned out to
// every member subscribed), and bumps the registry version when anything
// changed. Identical records change nothing and emit nothing.
func (db *DB) ImportRecords(ctx context.Context, recs []cluster.Record, now time.Time) (cluster.ImportResult, error) {
	res := cluster.ImportResult{Records: len(recs)}
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		res = cluster.ImportResult{Records: len(recs)}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, 0)`, clusterLockKey); err != nil {
			return err
		}
		var events []graph.Event
		for _, rec := range recs {
			ev, change, err := upsertRecordTx(ctx, tx, rec, now)
			if err != nil {
				return err
			}
			switch change {
			case changeAdded:
				res.Added++
			case changeUpdated:
				res.Updated++
			case changeSeverity:
				res.Updated++
				res.SeverityChanged++
			default:
				res.Unchanged++
			}
			if ev != nil {
				events = append(events, *ev)
			}
		}
		if err := slugClashTx(ctx, tx, recs); err != nil {
			return err
		}
		v, err := bumpVersionTx(ctx, tx, res.Added+res.Updated > 0)
		if err != nil {
			return err
		}
		res.Version = v
		return db.publishTx(ctx, tx, events...)
	})
	if err != nil {
		return cluster.ImportResult{}, fmt.Errorf("import cluster records: %w", err)
	}
	return res, nil
}

// slugClashTx fails with invalid naming slug when a record of recs has a
// group's slug, or a group of recs a record's: /clusters/{slug}/graph
// tries the record first, so the group's network could not be reached.
func slugClashTx(ctx context.Context, tx pgx.Tx, recs []cluster.Record) error {
	var slugs, groups []string
	for _, r := range recs {
		slugs = append(slugs, r.Slug)
		if r.Group != "" {
			groups = append(groups, r.Group)
		}
	}
	var clash string
	err := tx.QueryRow(ctx, `SELECT slug FROM cluster_groups WHERE slug = ANY($1)
		UNION ALL SELECT slug FROM cluster_records WHERE slug = ANY($2) LIMIT 1`, slugs, groups).Scan(&clash)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return graph.Invalid("slug", "%q is both a record's slug and a group's: the group's graph could not be reached at /api/v1/clusters/%s/graph; rename one", clash, clash)
}

// bumpVersionTx increments the registry version when changed and returns
// the version.
func bumpVersionTx(ctx context.Context, tx pgx.Tx, changed bool) (int64, error) {
	var v int64
	var err error
	if changed {
		err = tx.QueryRow(ctx, `UPDATE cluster_registry_version SET version = version + 1, changed_at = now() RETURNING version`).Scan(&v)
	} else {
		err = tx.QueryRow(ctx, `SELECT version FROM cluster_registry_version`).Scan(&v)
	}
	return v, err
}

type change int

const (
	changeNone change = iota
	changeAdded
	changeUpdated
	changeSeverity
)

// groupIDTx returns the id of the group with slug, creating it.
func groupIDTx(ctx context.Context, tx pgx.Tx, slug string) (string, error) {
	if slug == "" {
		return "", nil
	}
	var id string
	err := tx.QueryRow(ctx, `WITH ins AS (
			INSERT INTO cluster_groups (id, slug) VALUES (gen_random_uuid(), $1) ON CONFLICT (slug) DO NOTHING RETURNING id)
		SELECT id::text FROM ins UNION ALL SELECT id::text FROM cluster_groups WHERE slug = $1`, slug).Scan(&id)
	return id, err
}

// upsertRecordTx inserts rec, or updates the stored imported record with
// its slug when any field differs, and returns the event the change causes
// (nil for none). An investigator record (origin 'triage', an accepted
// submission) is never updated by an import: when it holds rec's slug or
// rec's group's slug it is moved to a free one first (see
// moveTriageRecordTx).
func upsertRecordTx(ctx context.Context, tx pgx.Tx, rec cluster.Record, now time.Time) (*graph.Event, change, error) {
	now = now.UTC().Truncate(time.Microsecond)
	groupID, err := groupIDTx(ctx, tx, rec.Group)
	if err != nil {
		return nil, changeNone, err
	}
	var gid any
	if groupID != "" {
		gid = groupID
	}
	// An investigator record on the slug of rec or of its group (which no
	// file can rename) is moved aside.
	for _, slug := range []string{rec.Slug, rec.Group} {
		if slug == "" {
			continue
		}
		if err := moveTriageRecordTx(ctx, tx, slug, now); err != nil {
			return nil, changeNone, err
		}
	}
	old, err := queryRecords(ctx, tx, `SELECT `+recordColumns+` FROM cluster_records r LEFT JOIN cluster_groups g ON g.id = r.group_id
		WHERE r.slug = $1 AND r.origin = 'import' FOR UPDATE OF r`, rec.Slug)
	if err != nil {
		return nil, changeNone, err
	}
	if len(old) == 0 {
		rec.ID = graph.NewID()
		if rec.AddedAt.IsZero() {
			rec.AddedAt = now
		}
		rec.AddedAt = rec.AddedAt.UTC().Truncate(time.Microsecond)
		_, err := tx.Exec(ctx, `INSERT INTO cluster_records (id, slug, entity_name, name_key, severity, country, group_id, added_at, updated_at,
				source, sanctions_source, protected) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			rec.ID, rec.Slug, rec.EntityName, cluster.Normalize(rec.EntityName), string(rec.Severity), rec.Country, gid, rec.AddedAt, now,
			rec.Source, rec.SanctionsSource, rec.Protected)
		if err != nil {
			return nil, changeNone, err
		}
		if err := writeAliasesTx(ctx, tx, rec.ID, rec.Aliases); err != nil {
			return nil, changeNone, err
		}
		ev := clusterEvent(graph.EventClusterEntityAdded, groupID, rec, "", now)
		return &ev, changeAdded, nil
	}
	cur := old[0]
	rec.ID = cur.ID
	if rec.AddedAt.IsZero() {
		rec.AddedAt = cur.AddedAt
	}
	rec.AddedAt = rec.AddedAt.UTC().Truncate(time.Microsecond)
	same := cur.EntityName == rec.EntityName && cur.Severity == rec.Severity && cur.Country == rec.Country &&
		cur.Group == rec.Group && cur.Source == rec.Source && cur.SanctionsSource == rec.SanctionsSource &&
		cur.Protected == rec.Protected && cur.AddedAt.Equal(rec.AddedAt) && slices.Equal(cur.Aliases, rec.Aliases)
	if same {
		return nil, changeNone, nil
	}
	_, err = tx.Exec(ctx, `UPDATE cluster_records SET entity_name = $2, name_key = $3, severity = $4, country = $5, group_id = $6,
			added_at = $7, updated_at = $8, source = $9, sanctions_source = $10, protected = $11 WHERE id = $1`,
		rec.ID, rec.EntityName, cluster.Normalize(rec.EntityName), string(rec.Severity), rec.Country, gid, rec.AddedAt, now,
		rec.Source, rec.SanctionsSource, rec.Protected)
	if err != nil {
		return nil, changeNone, err
	}
	if !slices.Equal(cur.Aliases, rec.Aliases) {
		if _, err := tx.Exec(ctx, `DELETE FROM cluster_aliases WHERE record_id = $1`, rec.ID); err != nil {
			return nil, changeNone, err
		}
		if err := writeAliasesTx(ctx, tx, rec.ID, rec.Aliases); err != nil {
			return nil, changeNone, err
		}
	}
	if cur.Severity != rec.Severity {
		ev := clusterEvent(graph.EventClusterEntitySeverityChanged, groupID, rec, cur.Severity, now)
		return &ev, changeSeverity, nil
	}
	return nil, changeUpdated, nil
}

// moveTriageRecordTx moves the investigator record with slug, if any, to
// the first free slug slug-2, slug-3 ..., so that an imported line claiming
// the slug adds its own record rather than overwriting the investigator's.
// The record keeps its id (which submissions link to), severity and source.
func moveTriageRecordTx(ctx context.Context, tx pgx.Tx, slug string, now time.Time) error {
	var id string
	err := tx.QueryRow(ctx, `SELECT id::text FROM cluster_records WHERE slug = $1 AND origin = 'triage' FOR UPDATE`, slug).Scan(&id)
	if errNoRows(err) {
		return nil
	}
	if err != nil {
		return err
	}
	free, err := freeSlugTx(ctx, tx, slug)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE cluster_records SET slug = $2, updated_at = $3 WHERE id = $1`, id, free, now)
	return err
}

// writeAliasesTx stores aliases of a record, skipping those whose key
// repeats an earlier one or is too short.
func writeAliasesTx(ctx context.Context, tx pgx.Tx, id string, aliases []string) error {
	var seen []string
	for i, a := range aliases {
		k := cluster.Normalize(a)
		if len([]rune(k)) < cluster.MinCheckChars || slices.Contains(seen, k) {
			continue
		}
		seen = append(seen, k)
		if _, err := tx.Exec(ctx, `INSERT INTO cluster_aliases (record_id, alias, alias_key, position) VALUES ($1, $2, $3, $4)`,
			id, a, k, i); err != nil {
			return err
		}
	}
	return nil
}

// clusterEvent is a registry-wide cluster event (no member: it fans out to
// every subscribed member). cluster_id is the record's teardown group's id,
// or the record's own id when it has no group.
func clusterEvent(typ, groupID string, rec cluster.Record, previous cluster.Severity, at time.Time) graph.Event {
	cid := groupID
	if cid == "" {
		cid = rec.ID
	}
	return graph.Event{
		ID: graph.NewID(), Type: typ, OccurredAt: at,
		Data: webhooks.ClusterEntityData{
			ClusterID: cid, EntityID: rec.ID, EntityName: rec.EntityName,
			PreviousSeverity: string(previous), Severity: string(rec.Severity), At: at,
		},
	}
}

// errNoRows reports whether err is pgx's no-rows error.
func errNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
