package main

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/relational"
)

// loadScreener builds the screener's index from the current snapshots. It
// fails when Postgres cannot be read; the screener then keeps what it had.
func loadScreener(ctx context.Context, db *relational.DB, sc *sanctions.Screener) (string, error) {
	st, err := db.ListFreshness(ctx)
	if err != nil {
		return "", err
	}
	snaps, err := db.CurrentSnapshots(ctx)
	if err != nil {
		return "", err
	}
	var entries []sanctions.Entry
	for _, s := range snaps {
		entries = append(entries, s.Entries...)
	}
	sc.Replace(listStates(st), entries)
	return snapshotKey(st), nil
}

func listStates(st []relational.ListStatus) []sanctions.ListState {
	out := make([]sanctions.ListState, 0, len(st))
	for _, s := range st {
		ls := sanctions.ListState{ID: s.List, SnapshotID: s.SnapshotID, Source: s.Source, Rows: s.Rows, SHA256: s.SHA256}
		if s.Published != nil {
			ls.Published = *s.Published
		}
		if s.IngestedAt != nil {
			ls.IngestedAt = *s.IngestedAt
		}
		if s.CheckedAt != nil {
			ls.CheckedAt = *s.CheckedAt
		}
		out = append(out, ls)
	}
	return out
}

// snapshotKey identifies the set of current snapshots.
func snapshotKey(st []relational.ListStatus) string {
	var b strings.Builder
	for _, s := range st {
		b.WriteString(s.List + "=" + s.SnapshotID + ";")
	}
	return b.String()
}

// watchSanctions loads the screener, then every interval rebuilds it when
// another process has switched a list's current snapshot, and refreshes
// the lists' check times otherwise. Every instance polls the same table, so
// all pick up a new snapshot within one interval.
func watchSanctions(ctx context.Context, db *relational.DB, sc *sanctions.Screener, every time.Duration, log *slog.Logger) {
	key := ""
	for {
		st, err := db.ListFreshness(ctx)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				log.Warn("sanctions lists unreadable; screening keeps its current index", "err", err)
			}
		case snapshotKey(st) != key:
			start := time.Now()
			k, err := loadScreener(ctx, db, sc)
			if err != nil {
				log.Warn("sanctions index not rebuilt", "err", err)
				break
			}
			key = k
			log.Info("sanctions index built", "duration_ms", time.Since(start).Milliseconds())
		default:
			sc.UpdateStates(listStates(st))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// scheduleSanctionsSync fetches the official lists every
// cfg.SanctionsSyncEvery. One instance at a time runs it (a Postgres
// advisory lock); a failed list keeps its current snapshot.
func scheduleSanctionsSync(ctx context.Context, cfg Config, db *relational.DB, log *slog.Logger) {
	t := time.NewTicker(cfg.SanctionsSyncEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, release, err := db.TryLock(ctx, "sanctions-sync")
		if err != nil || !ok {
			continue
		}
		results, err := syncSanctions(ctx, db, &http.Client{Timeout: 10 * time.Minute}, nil, environ, false, log)
		var updated []string
		for _, r := range results {
			if r.Status == "updated" {
				updated = append(updated, r.List)
			}
		}
		if err != nil {
			log.Warn("scheduled sanctions sync: some lists failed; they keep their snapshots", "err", err)
		}
		if len(updated) > 0 {
			if _, err := loadSanctionsGraph(ctx, cfg, log, db, updated); err != nil {
				log.Warn("scheduled sanctions sync: graph not updated", "err", err)
			}
		}
		release()
	}
}
