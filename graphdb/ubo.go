package graphdb

import (
	"context"
	"slices"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/ubo"
)

// Batched reads for the GraphQL analyst fields' dataloaders: one query per
// batch of ids, whatever the batch size (at most MaxBatchIDs), so a nested
// query over N entities costs a bounded number of round trips.

// MaxBatchIDs bounds the ids of one batched read; longer batches are split.
const MaxBatchIDs = 500

var (
	qUBOEntitiesIn = register("ubo_entities_in", `
UNWIND $ids AS anchor
MATCH (e:Entity {id: anchor})
RETURN `+nodeColumns)

	qUBOOwnersOf = register("ubo_owners_of", `
UNWIND $ids AS anchor
MATCH (e:Entity {id: anchor})<-[r:OWNS|CONTROLS]-(o:Entity)
RETURN anchor AS near, `+hopColumns)

	qUBOOwnedBy = register("ubo_owned_by", `
UNWIND $ids AS anchor
MATCH (e:Entity {id: anchor})-[r:OWNS|CONTROLS]->(o:Entity)
RETURN anchor AS near, `+hopColumns)
)

var _ ubo.OwnershipGraph = (*DB)(nil)

// EntitiesIn returns the stored entities among ids, keyed by id, reading
// them in one query per MaxBatchIDs ids.
func (db *DB) EntitiesIn(ctx context.Context, ids []string) (map[string]ownership.Node, error) {
	out := make(map[string]ownership.Node, len(ids))
	for chunk := range slices.Chunk(ids, MaxBatchIDs) {
		recs, err := db.read(ctx, qUBOEntitiesIn, map[string]any{"ids": chunk})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			n := nodeOf(r)
			out[n.ID] = n
		}
	}
	return out, nil
}

// Neighbours returns, for each of ids, its direct owners and controllers
// (upstream) or what it owns and controls (downstream), each with the
// edge, in one query per MaxBatchIDs ids. Ids without neighbours, or not
// stored, are absent.
func (db *DB) Neighbours(ctx context.Context, ids []string, upstream bool) (map[string][]ubo.Link, error) {
	q := qUBOOwnedBy
	if upstream {
		q = qUBOOwnersOf
	}
	out := map[string][]ubo.Link{}
	for chunk := range slices.Chunk(ids, MaxBatchIDs) {
		recs, err := db.read(ctx, q, map[string]any{"ids": chunk})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			near := str(r.Get("near"))
			if near == "" {
				return nil, graph.Internal(errMissingNear)
			}
			n, e := hopOf(r, near, upstream)
			out[near] = append(out[near], ubo.Link{Node: n, Edge: e})
		}
	}
	return out, nil
}

type graphdbError string

func (e graphdbError) Error() string { return string(e) }

const errMissingNear = graphdbError("graphdb: batched neighbour row without its anchor id")
