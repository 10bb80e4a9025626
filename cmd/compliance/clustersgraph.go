package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/relational"
)

// mirrorClusterGraph writes the whole registry into the graph: entities,
// groups, MEMBER_OF and SHARES_ALIAS edges. It is idempotent. It fails when
// either store cannot be reached; Postgres is unaffected.
func mirrorClusterGraph(ctx context.Context, cfg Config, log *slog.Logger, db *relational.DB) (graphdb.MirrorStats, error) {
	if cfg.Neo4j.URI == "" {
		log.Warn("no graph database configured: cluster registry not mirrored into the graph")
		return graphdb.MirrorStats{}, nil
	}
	start := time.Now()
	neo, err := graphdb.Open(ctx, cfg.Neo4j)
	if err != nil {
		return graphdb.MirrorStats{}, fmt.Errorf("neo4j at %s: %w", cfg.Neo4j.URI, err)
	}
	defer neo.Close(context.Background())
	recs, _, err := db.AllRecords(ctx)
	if err != nil {
		return graphdb.MirrorStats{}, err
	}
	st, err := neo.MirrorClusters(ctx, recs)
	if err != nil {
		return st, fmt.Errorf("mirror the cluster registry into the graph: %w", err)
	}
	log.Info("cluster registry mirrored into the graph", "entities", st.Entities, "groups", st.Groups,
		"member_edges", st.MemberEdges, "alias_edges", st.AliasEdges, "duration_ms", time.Since(start).Milliseconds())
	return st, nil
}
