package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/relational"
)

// graphResult is what loading one list into the graph did.
type graphResult struct {
	List       string `json:"list"`
	SnapshotID string `json:"snapshot_id"`
	graphdb.LinkStats
}

// loadSanctionsGraph makes the graph hold the current snapshot of each of
// lists (every list when lists is empty): entries as SanctionsEntry nodes
// and their "linked to" relations as edges. It fails when either store
// cannot be reached; the screening snapshots are unaffected.
func loadSanctionsGraph(ctx context.Context, cfg Config, log *slog.Logger, db *relational.DB, lists []string) ([]graphResult, error) {
	if cfg.Neo4j.URI == "" {
		log.Warn("no graph database configured: sanctions links not loaded into the graph")
		return nil, nil
	}
	start := time.Now()
	defer func() { log.Info("sanctions graph load done", "duration_ms", time.Since(start).Milliseconds()) }()
	neo, err := graphdb.Open(ctx, cfg.Neo4j)
	if err != nil {
		return nil, fmt.Errorf("neo4j at %s: %w", cfg.Neo4j.URI, err)
	}
	defer neo.Close(context.Background())
	st, err := db.ListFreshness(ctx)
	if err != nil {
		return nil, err
	}
	snaps, err := db.CurrentSnapshots(ctx)
	if err != nil {
		return nil, err
	}
	var out []graphResult
	for _, s := range st {
		if s.SnapshotID == "" || (len(lists) > 0 && !slices.Contains(lists, s.List)) {
			continue
		}
		i := slices.IndexFunc(snaps, func(sn sanctions.Snapshot) bool { return sn.List == s.List })
		if i < 0 {
			continue
		}
		ls, err := neo.ReplaceSanctionsList(ctx, s.SnapshotID, s.List, snaps[i].Entries)
		if err != nil {
			return out, fmt.Errorf("load %s into the graph: %w", s.List, err)
		}
		log.Info("sanctions list loaded into the graph", "list", s.List, "entries", ls.Entries, "links", ls.Links, "unresolved", ls.Unresolved, "ambiguous", ls.Ambiguous)
		out = append(out, graphResult{List: s.List, SnapshotID: s.SnapshotID, LinkStats: ls})
	}
	return out, nil
}
