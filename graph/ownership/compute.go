package ownership

import (
	"cmp"
	"math"
	"slices"
)

// Hop is one edge of a path, as evidence: who holds what of whom, how
// sure, since when and according to which source.
type Hop struct {
	Key      string   `json:"key"`
	Relation Relation `json:"relation"`
	From     string   `json:"from"`
	To       string   `json:"to"`
	Share    Share    `json:"share"` // OWNS: the stated share; CONTROLS: 0..100 unknown unless stated
	Role     Role     `json:"role,omitempty"`
	AsOf     string   `json:"as_of,omitempty"`
	Source   string   `json:"source,omitempty"`
}

func hopOf(e Edge) Hop {
	return Hop{Key: e.Key, Relation: e.Relation, From: e.From, To: e.To, Share: e.Share(), Role: e.Role, AsOf: e.AsOf, Source: e.Source}
}

// Path is a simple chain of edges from an owner (Hops[0].From) down to the
// root (Hops[len-1].To). Share is the product of the hops' shares, min with
// min and max with max; it is meaningful only for ownership paths (every
// hop OWNS).
type Path struct {
	Owner string `json:"owner"`
	Hops  []Hop  `json:"hops"`
	Share Share  `json:"share"`
}

// Ownership status of a person against the threshold.
const (
	StatusBeneficialOwner = "beneficial_owner" // effective minimum >= threshold
	StatusPossible        = "possible"         // the band straddles the threshold (max >= threshold > min)
	StatusBelow           = "below_threshold"  // effective maximum < threshold
)

// Owner is one party's effective ownership of the root: the sum over all
// simple ownership paths of the product of shares along each path.
type Owner struct {
	Node   Node   `json:"node"`
	Share  Share  `json:"share"`
	Status string `json:"status"`
	Paths  []Path `json:"paths"`
}

// Controller is a natural person who controls the root: through a path
// with at least one CONTROLS edge whose OWNS hops, if any, are each a
// majority (minimum above 50 %), or through a chain of majority holdings
// alone. A voting_rights edge that states a share confers control only
// when its minimum is above 50 %; one without a share counts as control. Means lists the roles on those paths, plus "majority_ownership"
// for a chain of majority holdings.
type Controller struct {
	Node  Node     `json:"node"`
	Means []string `json:"means"`
	Paths []Path   `json:"paths"`
}

// Options tune Compute.
type Options struct {
	// Threshold is the beneficial-ownership threshold in percent; 0 means
	// DefaultThreshold (25 %, EU AMLR). A person owns "possibly" when the
	// band of their effective share straddles it.
	Threshold float64
	// MaxPaths bounds the number of simple paths enumerated; 0 means
	// DefaultMaxPaths. Past it the result is marked PathsTruncated.
	MaxPaths int
}

// Defaults of Options.
const (
	DefaultThreshold = 25.0
	DefaultMaxPaths  = 20000
)

// Result is the effective ownership of a root.
type Result struct {
	Root      string  `json:"root"`
	Threshold float64 `json:"threshold"`
	// Owners are the natural persons with an ownership path to the root,
	// highest effective share first.
	Owners []Owner `json:"owners"`
	// BeneficialOwners are the Owners with status beneficial_owner or
	// possible.
	BeneficialOwners []Owner `json:"beneficial_owners"`
	// ControlOnly are the controllers that are not beneficial owners by
	// ownership (status beneficial_owner), listed separately as AMLR asks.
	ControlOnly []Controller `json:"control_only"`
	// Controllers are every person that controls the root.
	Controllers []Controller `json:"controllers"`
	// Unidentified are the non-person owners at the top of ownership chains
	// (no OWNS owner in the data that is not already on the path, and not
	// cut off by the hop limit): the share that ends in a company, trust
	// or vessel whose owners are not known. A company held only through
	// CONTROLS edges, or the last company reached in an ownership cycle
	// with no outside owner, is such a top.
	Unidentified []Owner `json:"unidentified"`
	// Truncated is true when owners beyond MaxHops exist (Subgraph.Truncated)
	// or a path reached MaxHops at a node whose owners were not walked;
	// PathsTruncated when MaxPaths stopped the enumeration.
	Truncated      bool     `json:"truncated"`
	PathsTruncated bool     `json:"paths_truncated"`
	Caveats        []string `json:"caveats"`
}

// Caveats that results carry.
const (
	CaveatUnknownShare  = "Some ownership edges state no percentage; they are counted as an unknown band of 0-100%, so the affected figures are ranges and a person may be a 'possible' beneficial owner."
	CaveatTruncated     = "Owners exist beyond the hop limit and were not walked; effective ownership may be understated."
	CaveatPaths         = "The number of ownership paths exceeded the enumeration limit; figures count only the paths enumerated."
	CaveatCycles        = "Ownership cycles were found; each path is counted once as a simple path, so circular holdings are not compounded."
	CaveatOverallocated = "The stated owners of some entities hold more than 100% in sum (inconsistent or duplicated filings); path sums may overstate ownership."
	CaveatPartial       = "Beneficial-ownership coverage is partial: only imported registers and filings are known, and no functioning US domestic beneficial-ownership registry exists after March 2025."
)

// eps absorbs float error in threshold comparisons (percent units).
const eps = 1e-9

// graphIndex is a subgraph indexed for walking.
type graphIndex struct {
	nodes  map[string]Node
	owners map[string][]Edge // owned id -> edges into it, sorted by From, Relation, Key
}

func index(sub Subgraph) graphIndex {
	g := graphIndex{nodes: make(map[string]Node, len(sub.Nodes)), owners: map[string][]Edge{}}
	for _, n := range sub.Nodes {
		g.nodes[n.ID] = n
	}
	seen := map[string]bool{}
	for _, e := range sub.Edges {
		if seen[e.Key] {
			continue
		}
		seen[e.Key] = true
		g.owners[e.To] = append(g.owners[e.To], e)
	}
	for _, es := range g.owners {
		slices.SortFunc(es, func(a, b Edge) int {
			return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Relation, b.Relation), cmp.Compare(a.Key, b.Key))
		})
	}
	return g
}

// overallocated reports whether the minimum OWNS shares into any node sum
// to more than 100 %.
func (g graphIndex) overallocated() bool {
	for _, es := range g.owners {
		sum := 0.0
		for _, e := range es {
			if e.Relation == Owns {
				sum += e.Share().Min
			}
		}
		if sum > 100+1e-6 {
			return true
		}
	}
	return false
}

func (g graphIndex) node(id string) Node {
	if n, ok := g.nodes[id]; ok {
		return n
	}
	return Node{ID: id, Kind: Company, Name: id}
}

// walk enumerates the simple upstream paths from root, at most maxHops
// long (0: unbounded) and at most maxPaths in all, calling visit with each
// path (owner first) as it is reached. visit returns whether to continue
// above that owner. walk reports whether it stopped at maxPaths, whether
// it met a cycle, and whether maxHops cut a path at a node that has OWNS
// owners in the graph (a node reached closer to the root may have its
// owners fetched, yet a longer path to it stops there).
func (g graphIndex) walk(root string, maxHops, maxPaths int, visit func(hops []Edge) bool) (truncated, cycle, hopCut bool) {
	onPath := map[string]bool{root: true}
	var stack []Edge // root-first
	count := 0
	var rec func(id string) bool
	rec = func(id string) bool {
		if maxHops > 0 && len(stack) >= maxHops {
			for _, e := range g.owners[id] {
				if e.Relation == Owns {
					hopCut = true
					break
				}
			}
			return true
		}
		for _, e := range g.owners[id] {
			if onPath[e.From] {
				cycle = true
				continue
			}
			if count >= maxPaths {
				truncated = true
				return false
			}
			count++
			stack = append(stack, e)
			hops := make([]Edge, len(stack))
			for i, s := range stack { // owner first
				hops[len(stack)-1-i] = s
			}
			if visit(hops) {
				onPath[e.From] = true
				ok := rec(e.From)
				delete(onPath, e.From)
				if !ok {
					stack = stack[:len(stack)-1]
					return false
				}
			}
			stack = stack[:len(stack)-1]
		}
		return true
	}
	rec(root)
	return truncated, cycle, hopCut
}

// top reports whether the owner of hops (hops[0].From) is the top of its
// ownership chain: it has no OWNS owner that is not already on the path.
// CONTROLS edges into it do not count, and owners met again in a cycle
// lead nowhere new.
func (g graphIndex) top(hops []Edge) bool {
	from := hops[0].From
	for _, e := range g.owners[from] {
		if e.Relation != Owns || e.From == hops[len(hops)-1].To {
			continue
		}
		if !slices.ContainsFunc(hops, func(h Edge) bool { return h.From == e.From }) {
			return false
		}
	}
	return true
}

// product returns the share along hops: the products of the minima and of
// the maxima, unknown when any hop is.
func product(hops []Edge) Share {
	s := Share{Min: 100, Max: 100}
	for _, e := range hops {
		h := e.Share()
		s.Min = s.Min * h.Min / 100
		s.Max = s.Max * h.Max / 100
		s.Unknown = s.Unknown || h.Unknown
	}
	return round(s)
}

// round removes float noise below 1e-9 percent.
func round(s Share) Share {
	r := func(v float64) float64 { return math.Round(v*1e9) / 1e9 }
	s.Min, s.Max = r(s.Min), r(s.Max)
	return s
}

func pathOf(hops []Edge) Path {
	p := Path{Owner: hops[0].From, Hops: make([]Hop, len(hops)), Share: product(hops)}
	for i, e := range hops {
		p.Hops[i] = hopOf(e)
	}
	return p
}

func allOwns(hops []Edge) bool {
	for _, e := range hops {
		if e.Relation != Owns {
			return false
		}
	}
	return true
}

// controlMeans returns the means by which hops confer control, or nil when
// they do not: each OWNS hop must be a majority (minimum above 50 %), and
// so must each voting_rights hop that states a share. Voting rights with
// no stated share count as control (the model has no "possible" control).
func controlMeans(hops []Edge) []string {
	var means []string
	for _, e := range hops {
		switch e.Relation {
		case Owns:
			if e.Share().Min <= 50+eps {
				return nil
			}
		case Controls:
			if s := e.Share(); e.Role == VotingRights && !s.Unknown && s.Min <= 50+eps {
				return nil
			}
			if !slices.Contains(means, string(e.Role)) {
				means = append(means, string(e.Role))
			}
		}
	}
	if len(means) == 0 {
		means = []string{"majority_ownership"}
	}
	return means
}

// Compute returns the effective ownership of root within sub. Every figure
// carries its paths. A root absent from sub gives an empty result.
func Compute(sub Subgraph, root string, opts Options) Result {
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.MaxPaths <= 0 {
		opts.MaxPaths = DefaultMaxPaths
	}
	g := index(sub)
	res := Result{Root: root, Threshold: opts.Threshold, Owners: []Owner{}, BeneficialOwners: []Owner{},
		ControlOnly: []Controller{}, Controllers: []Controller{}, Unidentified: []Owner{}, Truncated: sub.Truncated}
	owners := map[string]*Owner{}
	ctrls := map[string]*Controller{}
	unident := map[string]*Owner{}
	add := func(m map[string]*Owner, id string, p Path) {
		o := m[id]
		if o == nil {
			o = &Owner{Node: g.node(id)}
			m[id] = o
		}
		o.Paths = append(o.Paths, p)
	}
	frontier := map[string]bool{}
	for _, id := range sub.Frontier {
		frontier[id] = true
	}
	unknown := false
	truncated, cycle, hopCut := g.walk(root, sub.MaxHops, opts.MaxPaths, func(hops []Edge) bool {
		from := hops[0].From
		n := g.node(from)
		own := allOwns(hops)
		if n.Kind == Person {
			if own {
				p := pathOf(hops)
				unknown = unknown || p.Share.Unknown
				add(owners, from, p)
			}
			if means := controlMeans(hops); means != nil {
				c := ctrls[from]
				if c == nil {
					c = &Controller{Node: n}
					ctrls[from] = c
				}
				for _, m := range means {
					if !slices.Contains(c.Means, m) {
						c.Means = append(c.Means, m)
					}
				}
				c.Paths = append(c.Paths, pathOf(hops))
			}
		} else if own && g.top(hops) && !frontier[from] {
			p := pathOf(hops)
			unknown = unknown || p.Share.Unknown
			add(unident, from, p)
		}
		return true
	})
	res.PathsTruncated = truncated
	res.Truncated = res.Truncated || hopCut
	for _, o := range owners {
		o.Share = sumPaths(o.Paths)
		o.Status = status(o.Share, opts.Threshold)
		res.Owners = append(res.Owners, *o)
	}
	for _, o := range unident {
		o.Share = sumPaths(o.Paths)
		o.Status = status(o.Share, opts.Threshold)
		res.Unidentified = append(res.Unidentified, *o)
	}
	sortOwners(res.Owners)
	sortOwners(res.Unidentified)
	for _, o := range res.Owners {
		if o.Status != StatusBelow {
			res.BeneficialOwners = append(res.BeneficialOwners, o)
		}
	}
	for _, c := range ctrls {
		slices.Sort(c.Means)
		res.Controllers = append(res.Controllers, *c)
	}
	slices.SortFunc(res.Controllers, func(a, b Controller) int { return cmp.Compare(a.Node.ID, b.Node.ID) })
	for _, c := range res.Controllers {
		if o, ok := owners[c.Node.ID]; !ok || o.Status != StatusBeneficialOwner {
			res.ControlOnly = append(res.ControlOnly, c)
		}
	}
	if unknown {
		res.Caveats = append(res.Caveats, CaveatUnknownShare)
	}
	if res.Truncated {
		res.Caveats = append(res.Caveats, CaveatTruncated)
	}
	if res.PathsTruncated {
		res.Caveats = append(res.Caveats, CaveatPaths)
	}
	if cycle {
		res.Caveats = append(res.Caveats, CaveatCycles)
	}
	if g.overallocated() {
		res.Caveats = append(res.Caveats, CaveatOverallocated)
	}
	res.Caveats = append(res.Caveats, CaveatPartial)
	return res
}

// sumPaths adds the paths' shares, each bound capped at 100.
func sumPaths(ps []Path) Share {
	var s Share
	for _, p := range ps {
		s.Min += p.Share.Min
		s.Max += p.Share.Max
		s.Unknown = s.Unknown || p.Share.Unknown
	}
	s.Min, s.Max = math.Min(s.Min, 100), math.Min(s.Max, 100)
	return round(s)
}

func status(s Share, threshold float64) string {
	switch {
	case s.Min >= threshold-eps:
		return StatusBeneficialOwner
	case s.Max >= threshold-eps:
		return StatusPossible
	}
	return StatusBelow
}

func sortOwners(os []Owner) {
	slices.SortFunc(os, func(a, b Owner) int {
		return cmp.Or(cmp.Compare(b.Share.Max, a.Share.Max), cmp.Compare(b.Share.Min, a.Share.Min), cmp.Compare(a.Node.ID, b.Node.ID))
	})
}
