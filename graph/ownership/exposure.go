package ownership

import (
	"cmp"
	"slices"
)

// Listing is evidence that a node is on a sanctions list.
type Listing struct {
	List      string  `json:"list"`
	EntryID   string  `json:"entry_id"`  // "<list>:<source_id>"
	Name      string  `json:"name"`      // the listed name, verbatim
	Score     float64 `json:"score"`     // 1 for an exact normalized-name or identifier match
	Reason    string  `json:"reason"`    // how it matched, e.g. "exact normalized name"
	Confirmed bool    `json:"confirmed"` // exact match: the node is treated as listed; otherwise possibly listed
}

// Check is a sanctions predicate's answer for one node.
type Check struct {
	Listings []Listing
	// Degraded is true when not every list could be consulted: an empty
	// Listings is then not evidence of absence.
	Degraded bool
}

// Predicate decides whether a node is listed. It returns an error when the
// lookup itself failed; Screen then treats the node as unscreened.
type Predicate func(Node) (Check, error)

// Blocking status under the OFAC 50 percent rule.
const (
	Blocked         = "blocked"          // listed, or listed owners hold >= 50 % for certain
	PossiblyBlocked = "possibly_blocked" // possibly listed, or the band of blocked holdings reaches 50 % only at its maximum
	NotBlocked      = "not_blocked"
)

// Holding is one direct OWNS edge into a node from an owner that is
// blocked or possibly blocked, as evidence of that node's status.
type Holding struct {
	Owner       string `json:"owner"`
	OwnerStatus string `json:"owner_status"`
	Hop         Hop    `json:"hop"`
}

// NodeExposure is the status of one node under the 50 percent rule.
type NodeExposure struct {
	Node     Node      `json:"node"`
	Status   string    `json:"status"`
	Listings []Listing `json:"listings,omitempty"`
	// BlockedShare is the aggregate direct ownership held by blocked owners:
	// Min counts owners blocked for certain at their minimum share, Max
	// counts blocked and possibly blocked owners at their maximum.
	BlockedShare Share     `json:"blocked_share"`
	Holdings     []Holding `json:"holdings,omitempty"`
}

// Exposure is the sanctions exposure of a root through its owners.
type Exposure struct {
	Root   string `json:"root"`
	Status string `json:"status"` // the root's status
	// Nodes are every node whose status is not not_blocked, by id.
	Nodes []NodeExposure `json:"nodes"`
	// Paths are the simple paths (OWNS or CONTROLS) from each listed or
	// possibly listed node down to the root.
	Paths []Path `json:"paths"`
	// ControlOnly names listed parties whose every path to the root has a
	// CONTROLS edge: control never blocks under the 50 percent rule, but it
	// is reported.
	ControlOnly []string `json:"control_only"`
	// Unscreened names nodes whose lookup failed; Degraded is true when any
	// lookup failed or was itself degraded.
	Unscreened []string `json:"unscreened"`
	Degraded   bool     `json:"degraded"`
	Truncated  bool     `json:"truncated"`
	Caveats    []string `json:"caveats"`
}

// Exposure caveats.
const (
	CaveatOFAC50         = "OFAC 50% rule: an entity is treated as blocked when blocked persons together own 50% or more of it directly or indirectly (through entities that are themselves blocked); control without ownership does not block. This is decision support, not a legal determination."
	CaveatScreenDegraded = "Sanctions screening of some owners was degraded or failed; the absence of a blocked status is not evidence of absence."
)

// Screen applies the OFAC 50 percent rule to sub: each node is screened
// with listed; a listed node is blocked (possibly blocked for an
// unconfirmed listing); then, bottom-up from the owners, an entity is
// blocked when the sum of the direct OWNS shares held by blocked owners
// reaches 50 % (OFAC FAQ 401: aggregated across blocked owners, and an
// entity blocked this way blocks what it owns in turn). Shares are
// summed, not multiplied along paths: a blocked person owning 50 % of X
// which owns 50 % of Y blocks Y, although the path product is 25 %. With
// bands, an entity is blocked when the minimum reaches 50 and possibly
// blocked when only the maximum does. CONTROLS edges never block.
func Screen(sub Subgraph, root string, listed Predicate) Exposure {
	g := index(sub)
	ex := Exposure{Root: root, Nodes: []NodeExposure{}, Paths: []Path{}, ControlOnly: []string{}, Unscreened: []string{}, Truncated: sub.Truncated}
	listings := map[string][]Listing{}
	sure := map[string]bool{}  // blocked for certain
	maybe := map[string]bool{} // blocked or possibly blocked
	ids := make([]string, 0, len(g.nodes))
	for id := range g.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c, err := listed(g.nodes[id])
		if err != nil {
			ex.Unscreened = append(ex.Unscreened, id)
			ex.Degraded = true
			continue
		}
		ex.Degraded = ex.Degraded || c.Degraded
		if len(c.Listings) == 0 {
			continue
		}
		listings[id] = c.Listings
		maybe[id] = true
		for _, l := range c.Listings {
			if l.Confirmed {
				sure[id] = true
			}
		}
	}
	listedIDs := make([]string, 0, len(listings))
	for id := range listings {
		listedIDs = append(listedIDs, id)
	}
	slices.Sort(listedIDs)

	// Fixed points: sure grows with minimum shares of sure owners, maybe
	// with maximum shares of maybe owners. Both only grow, so each loop
	// ends after at most len(nodes) rounds, cycles included.
	propagate(g, ids, sure, func(s Share) float64 { return s.Min })
	propagate(g, ids, maybe, func(s Share) float64 { return s.Max })

	statusOf := func(id string) string {
		switch {
		case sure[id]:
			return Blocked
		case maybe[id]:
			return PossiblyBlocked
		}
		return NotBlocked
	}
	for _, id := range ids {
		st := statusOf(id)
		if st == NotBlocked {
			continue
		}
		ne := NodeExposure{Node: g.nodes[id], Status: st, Listings: listings[id]}
		for _, e := range g.owners[id] {
			if e.Relation != Owns || !maybe[e.From] {
				continue
			}
			sh := e.Share()
			if sure[e.From] {
				ne.BlockedShare.Min += sh.Min
			}
			ne.BlockedShare.Max += sh.Max
			ne.BlockedShare.Unknown = ne.BlockedShare.Unknown || sh.Unknown
			ne.Holdings = append(ne.Holdings, Holding{Owner: e.From, OwnerStatus: statusOf(e.From), Hop: hopOf(e)})
		}
		ne.BlockedShare.Min = min(ne.BlockedShare.Min, 100)
		ne.BlockedShare.Max = min(ne.BlockedShare.Max, 100)
		ne.BlockedShare = round(ne.BlockedShare)
		ex.Nodes = append(ex.Nodes, ne)
	}
	ex.Status = statusOf(root)

	// Evidence paths from each listed node to the root.
	ownsPath := map[string]bool{}
	anyPath := map[string]bool{}
	truncated, _, _ := g.walk(root, sub.MaxHops, DefaultMaxPaths, func(hops []Edge) bool {
		from := hops[0].From
		if _, ok := listings[from]; ok {
			ex.Paths = append(ex.Paths, pathOf(hops))
			anyPath[from] = true
			if allOwns(hops) {
				ownsPath[from] = true
			}
		}
		return true
	})
	for _, id := range listedIDs {
		if anyPath[id] && !ownsPath[id] {
			ex.ControlOnly = append(ex.ControlOnly, id)
		}
	}
	slices.SortStableFunc(ex.Paths, func(a, b Path) int {
		return cmp.Or(cmp.Compare(a.Owner, b.Owner), cmp.Compare(len(a.Hops), len(b.Hops)))
	})
	ex.Caveats = append(ex.Caveats, CaveatOFAC50)
	if ex.Degraded {
		ex.Caveats = append(ex.Caveats, CaveatScreenDegraded)
	}
	if ex.Truncated {
		ex.Caveats = append(ex.Caveats, CaveatTruncated)
	}
	if truncated {
		ex.Caveats = append(ex.Caveats, CaveatPaths)
	}
	ex.Caveats = append(ex.Caveats, CaveatPartial)
	return ex
}

// propagate grows set to its fixed point: a node joins when the OWNS
// shares (measured by bound) held by members reach 50 %.
func propagate(g graphIndex, ids []string, set map[string]bool, bound func(Share) float64) {
	for changed := true; changed; {
		changed = false
		for _, id := range ids {
			if set[id] {
				continue
			}
			sum := 0.0
			for _, e := range g.owners[id] {
				if e.Relation == Owns && set[e.From] {
					sum += bound(e.Share())
				}
			}
			if sum >= 50-eps {
				set[id] = true
				changed = true
			}
		}
	}
}
