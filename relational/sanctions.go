package relational

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// ListStatus is the freshness of one list: its current snapshot, if any.
type ListStatus struct {
	List       string `json:"list"`
	Name       string `json:"name"`
	SnapshotID string `json:"snapshot_id"` // "" when the list was never ingested
	Format     string `json:"format"`
	Source     string `json:"source"`
	// Published is the publication date the source states, nil when it
	// states none or the list was never ingested.
	Published *time.Time `json:"published"`
	// IngestedAt is when the current snapshot was stored; CheckedAt when a
	// sync (or an identical ingest) last found it still current.
	IngestedAt *time.Time `json:"ingested_at"`
	CheckedAt  *time.Time `json:"checked_at"`
	Rows       int        `json:"rows"`
	SHA256     string     `json:"sha256"`
}

// SaveSnapshot stores snap (with its entries) as a new snapshot of its list
// and makes it the list's current one, in one transaction: readers see the
// previous snapshot or the new one, never none and never a mix. The
// previous snapshots stay stored. Concurrent saves of one list take turns.
// It refuses an unknown list or a snapshot without entries (invalid), so an
// empty parse can never replace a live list.
func (db *DB) SaveSnapshot(ctx context.Context, snap sanctions.Snapshot) (string, error) {
	if !slices.ContainsFunc(graph.SanctionsLists, func(l graph.SanctionsList) bool { return l.ID == snap.List }) {
		return "", graph.Invalid("list", "unknown list %q", snap.List)
	}
	if len(snap.Entries) == 0 {
		return "", graph.Invalid("file", "snapshot of %s has no entries", snap.List)
	}
	if snap.SHA256 == "" || snap.Format == "" {
		return "", graph.Invalid("snapshot", "snapshot of %s lacks its sha256 or format", snap.List)
	}
	blob, err := encodeEntries(snap.Entries)
	if err != nil {
		return "", err
	}
	var published any
	if !snap.Published.IsZero() {
		published = snap.Published
	}
	id := graph.NewID()
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('sanctions_snapshot:' || $1, 0))`, snap.List); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE sanctions_snapshots SET is_current = false WHERE list = $1 AND is_current`, snap.List); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO sanctions_snapshots (id, list, source, format, published, sha256, row_count, is_current, entries_gz)
			VALUES ($1, $2, $3, $4, $5, $6, $7, true, $8)`,
			id, snap.List, snap.Source, snap.Format, published, snap.SHA256, len(snap.Entries), blob)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("save %s snapshot: %w", snap.List, err)
	}
	return id, nil
}

// TouchSnapshot records that list's current snapshot was found still
// current (a sync saw no change). It returns the snapshot's id, or "" when
// the list has none.
func (db *DB) TouchSnapshot(ctx context.Context, list string) (string, error) {
	var id string
	err := db.Pool.QueryRow(ctx, `UPDATE sanctions_snapshots SET checked_at = now() WHERE list = $1 AND is_current RETURNING id`, list).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("touch %s snapshot: %w", list, err)
	}
	return id, nil
}

// CurrentSnapshots returns the current snapshot of every list that has
// one, with its entries, in the order of graph.SanctionsLists: what the
// in-memory matching index is built from. Lists are decoded in parallel.
func (db *DB) CurrentSnapshots(ctx context.Context) ([]sanctions.Snapshot, error) {
	rows, err := db.Pool.Query(ctx, `
		SELECT list, source, format, published, sha256, entries_gz
		FROM sanctions_snapshots WHERE is_current`)
	if err != nil {
		return nil, fmt.Errorf("current snapshots: %w", err)
	}
	type raw struct {
		snap sanctions.Snapshot
		blob []byte
	}
	var raws []raw
	for rows.Next() {
		var r raw
		var published *time.Time
		if err := rows.Scan(&r.snap.List, &r.snap.Source, &r.snap.Format, &published, &r.snap.SHA256, &r.blob); err != nil {
			rows.Close()
			return nil, fmt.Errorf("current snapshots: %w", err)
		}
		if published != nil {
			r.snap.Published = published.UTC()
		}
		raws = append(raws, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("current snapshots: %w", err)
	}
	order := func(list string) int {
		return slices.IndexFunc(graph.SanctionsLists, func(l graph.SanctionsList) bool { return l.ID == list })
	}
	slices.SortFunc(raws, func(a, b raw) int { return order(a.snap.List) - order(b.snap.List) })
	out := make([]sanctions.Snapshot, len(raws))
	errs := make([]error, len(raws))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range raws {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			entries, err := decodeEntries(raws[i].blob)
			if err != nil {
				errs[i] = fmt.Errorf("decode %s snapshot: %w", raws[i].snap.List, err)
				return
			}
			out[i] = raws[i].snap
			out[i].Entries = entries
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// ListFreshness returns the status of each of the 8 lists, in the order of
// graph.SanctionsLists; a list never ingested has zero rows and no
// snapshot id.
func (db *DB) ListFreshness(ctx context.Context) ([]ListStatus, error) {
	rows, err := db.Pool.Query(ctx, `
		SELECT list, id, format, source, published, created_at, checked_at, row_count, sha256
		FROM sanctions_snapshots WHERE is_current`)
	if err != nil {
		return nil, fmt.Errorf("list freshness: %w", err)
	}
	current := map[string]ListStatus{}
	for rows.Next() {
		var s ListStatus
		var ingested, checked time.Time
		if err := rows.Scan(&s.List, &s.SnapshotID, &s.Format, &s.Source, &s.Published, &ingested, &checked, &s.Rows, &s.SHA256); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list freshness: %w", err)
		}
		ingested, checked = ingested.UTC(), checked.UTC()
		s.IngestedAt, s.CheckedAt = &ingested, &checked
		if s.Published != nil {
			p := s.Published.UTC()
			s.Published = &p
		}
		current[s.List] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list freshness: %w", err)
	}
	out := make([]ListStatus, len(graph.SanctionsLists))
	for i, l := range graph.SanctionsLists {
		s, ok := current[l.ID]
		if !ok {
			s = ListStatus{List: l.ID}
		}
		s.Name = l.Name
		out[i] = s
	}
	return out, nil
}

// FetchState is the conditional-request state of one URL a sync fetches.
type FetchState struct {
	URL          string
	List         string
	ETag         string
	LastModified string
	SHA256       string // of the body last stored
}

// FetchStates returns the stored state of each of urls that has one.
func (db *DB) FetchStates(ctx context.Context, urls []string) (map[string]FetchState, error) {
	rows, err := db.Pool.Query(ctx, `SELECT url, list, etag, last_modified, sha256 FROM sanctions_fetch_state WHERE url = ANY($1)`, urls)
	if err != nil {
		return nil, fmt.Errorf("fetch states: %w", err)
	}
	states, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (FetchState, error) {
		var s FetchState
		err := r.Scan(&s.URL, &s.List, &s.ETag, &s.LastModified, &s.SHA256)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("fetch states: %w", err)
	}
	out := make(map[string]FetchState, len(states))
	for _, s := range states {
		out[s.URL] = s
	}
	return out, nil
}

// SaveFetchStates stores the state of each URL, replacing what was stored.
func (db *DB) SaveFetchStates(ctx context.Context, states []FetchState) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		for _, s := range states {
			_, err := tx.Exec(ctx, `
				INSERT INTO sanctions_fetch_state (url, list, etag, last_modified, sha256, fetched_at)
				VALUES ($1, $2, $3, $4, $5, now())
				ON CONFLICT (url) DO UPDATE SET list = EXCLUDED.list, etag = EXCLUDED.etag,
					last_modified = EXCLUDED.last_modified, sha256 = EXCLUDED.sha256, fetched_at = now()`,
				s.URL, s.List, s.ETag, s.LastModified, s.SHA256)
			if err != nil {
				return fmt.Errorf("save fetch state: %w", err)
			}
		}
		return nil
	})
}

// encodeEntries writes entries as a gzip-compressed JSON array.
func encodeEntries(entries []sanctions.Entry) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if err := json.NewEncoder(zw).Encode(entries); err != nil {
		return nil, fmt.Errorf("encode entries: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeEntries(blob []byte) ([]sanctions.Entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var entries []sanctions.Entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, err
	}
	return entries, nil
}
