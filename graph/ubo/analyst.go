package ubo

import (
	"cmp"
	"context"
	"slices"

	"github.com/tradecompliance/compliance/graph/ownership"
)

// Link is one neighbour of an entity with the edge that joins them.
type Link struct {
	Node ownership.Node
	Edge ownership.Edge
}

// OwnershipGraph is what the GraphQL analyst fields read (graphdb.DB is
// one). The batched methods take any number of ids and answer in a bounded
// number of round trips, for dataloaders.
type OwnershipGraph interface {
	OwnershipStore
	// Upstream returns the owners and controllers of root up to maxHops.
	Upstream(ctx context.Context, root string, maxHops int) (ownership.Subgraph, error)
	// Entity returns the entity with id, or not_found.
	Entity(ctx context.Context, id string) (ownership.Node, error)
	// EntitiesIn returns the stored entities among ids, keyed by id.
	EntitiesIn(ctx context.Context, ids []string) (map[string]ownership.Node, error)
}

// WalkMany traverses from every root at once, frontier by frontier, up to
// maxHops hops (upstream: owners; downstream: subsidiaries), with one
// Neighbours call per level for the union of the roots' frontiers, plus
// one to learn whether any frontier goes on (Truncated). roots maps each
// root id to its node; the subgraphs are built as ownership.Subgraph with
// the same contents and order as graphdb's Upstream and Downstream.
func WalkMany(ctx context.Context, g OwnershipStore, roots map[string]ownership.Node, maxHops int, upstream bool) (map[string]ownership.Subgraph, error) {
	dir := "downstream"
	if upstream {
		dir = "upstream"
	}
	type walk struct {
		sub      ownership.Subgraph
		seen     map[string]bool
		edgeSeen map[string]bool
		frontier []string
	}
	walks := map[string]*walk{}
	for id, n := range roots {
		walks[id] = &walk{
			sub:      ownership.Subgraph{Root: id, Direction: dir, MaxHops: maxHops, Nodes: []ownership.Node{n}, Edges: []ownership.Edge{}},
			seen:     map[string]bool{id: true},
			edgeSeen: map[string]bool{},
			frontier: []string{id},
		}
	}
	cache := map[string][]Link{}
	fetched := map[string]bool{}
	for level := 0; level <= maxHops; level++ {
		var need []string
		for _, w := range walks {
			for _, id := range w.frontier {
				if !fetched[id] {
					fetched[id] = true
					need = append(need, id)
				}
			}
		}
		if len(need) == 0 {
			break
		}
		slices.Sort(need)
		got, err := g.Neighbours(ctx, need, upstream)
		if err != nil {
			return nil, err
		}
		for id, links := range got {
			cache[id] = links
		}
		for _, w := range walks {
			if level == maxHops {
				for _, id := range w.frontier {
					if len(cache[id]) > 0 {
						w.sub.Truncated = true
						w.sub.Frontier = append(w.sub.Frontier, id)
					}
				}
				continue
			}
			var next []string
			for _, id := range w.frontier {
				for _, l := range cache[id] {
					if !w.edgeSeen[l.Edge.Key] {
						w.edgeSeen[l.Edge.Key] = true
						w.sub.Edges = append(w.sub.Edges, l.Edge)
					}
					if !w.seen[l.Node.ID] {
						w.seen[l.Node.ID] = true
						w.sub.Nodes = append(w.sub.Nodes, l.Node)
						next = append(next, l.Node.ID)
					}
				}
			}
			slices.Sort(next)
			w.frontier = next
		}
	}
	out := make(map[string]ownership.Subgraph, len(walks))
	for id, w := range walks {
		s := w.sub
		slices.SortFunc(s.Nodes[1:], func(a, b ownership.Node) int { return cmp.Compare(a.ID, b.ID) })
		slices.SortFunc(s.Edges, func(a, b ownership.Edge) int {
			return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Key, b.Key))
		})
		slices.Sort(s.Frontier)
		out[id] = s
	}
	return out, nil
}
