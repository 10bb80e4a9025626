package ubo

import (
	"context"
	"math"
	"slices"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/ownership"
)

// KYCExposure is the KYC pipeline's ownership lookup (kyc.OwnershipLookup)
// over a Builder: each call builds the company's UBO graph afresh (no
// cache) and reports its listed owners and OFAC 50 percent status.
type KYCExposure struct {
	Builder *Builder
	// MaxHops bounds the traversal; 0 means MaxHops (6), the deepest walk,
	// since owners beyond the bound make the answer not assessed.
	MaxHops int
}

// Exposure builds the UBO graph of company in country (ISO alpha-2, "" for
// any) and maps it: Found is the root's; BlockedOwners are the owners and
// controllers the core sanctions predicate lists (Confirmed on an exact
// normalized name or identifier, else a fuzzy lead), each with its minimum
// effective share (summed over its simple OWNS paths to the company within
// the built graph, whatever owns it in turn) and a path down to the
// company; AggregateBlockedShare sums the confirmed owners' shares,
// counting a path only at the confirmed owner nearest the company; the OFAC 50 status is
// blocked, possibly_blocked, below_threshold (not blocked with listed
// owners), no_blocked_owners (not blocked, nobody listed, nothing
// truncated) or not_assessed (not found, screening degraded, or owners
// beyond MaxHops). It fails with unavailable when the build fails.
func (k KYCExposure) Exposure(ctx context.Context, company, country string) (kyc.OwnershipExposure, error) {
	hops := k.MaxHops
	if hops <= 0 {
		hops = MaxHops
	}
	res, err := k.Builder.Build(ctx, Request{RootEntityName: company, RootJurisdiction: country, MaxHops: hops})
	if err != nil {
		return kyc.OwnershipExposure{}, graph.Unavailable("the ownership graph", err)
	}
	return exposureOf(res), nil
}

// exposureOf maps a fresh build's result to the KYC step's evidence.
func exposureOf(res *Result) kyc.OwnershipExposure {
	x := kyc.OwnershipExposure{
		Found: res.RootFound, EntityID: res.RootEntityID, BlockedOwners: []kyc.ExposedOwner{},
		OFAC50Rule: kyc.OFAC50NotAssessed, Evidence: slices.Clone(res.OFAC50.Evidence), Coverage: graph.CaveatUBOPartial,
	}
	if x.Evidence == nil {
		x.Evidence = []string{}
	}
	if !res.RootFound {
		x.Evidence = append(x.Evidence, "the ownership graph holds no entity of that name")
		return x
	}
	names := map[string]string{}
	for _, n := range res.Nodes {
		names[n.ID] = n.Name
	}
	ex := res.exposure
	confirmed := map[string]bool{}
	for _, ne := range ex.Nodes {
		for _, l := range ne.Listings {
			confirmed[ne.Node.ID] = confirmed[ne.Node.ID] || (l.Confirmed && ne.Node.ID != res.RootEntityID)
		}
	}
	eff := pathShares(ex.Paths, nil)
	// The aggregate counts a path once: at the confirmed owner nearest
	// the company, not again at a confirmed owner above it.
	for id, v := range pathShares(ex.Paths, confirmed) {
		if confirmed[id] {
			x.AggregateBlockedShare += v
		}
	}
	for _, ne := range ex.Nodes {
		if len(ne.Listings) == 0 || ne.Node.ID == res.RootEntityID {
			continue // blocked only through its owners, or the company itself
		}
		o := kyc.ExposedOwner{EntityID: ne.Node.ID, Name: ne.Node.Name, Lists: []string{}, EffectiveShare: eff[ne.Node.ID], Path: []string{}}
		for _, l := range ne.Listings {
			o.Confirmed = o.Confirmed || l.Confirmed
		}
		for _, l := range ne.Listings {
			if l.Confirmed == o.Confirmed && !slices.Contains(o.Lists, l.List) {
				o.Lists = append(o.Lists, l.List)
			}
		}
		o.Path = pathNames(ex.Paths, ne.Node.ID, names)
		x.BlockedOwners = append(x.BlockedOwners, o)
	}
	x.AggregateBlockedShare = math.Round(min(x.AggregateBlockedShare, 1)*1e9) / 1e9
	switch res.OFAC50.Status {
	case OFACBlocked:
		x.OFAC50Rule = kyc.OFAC50Blocked
	case OFACPossiblyBlocked:
		x.OFAC50Rule = kyc.OFAC50PossiblyBlocked
	case OFACNotBlocked:
		switch {
		case res.Truncated:
			x.Evidence = append(x.Evidence, "the traversal stopped at max_hops with owners beyond: not blocked cannot be stated")
		case len(x.BlockedOwners) > 0:
			x.OFAC50Rule = kyc.OFAC50BelowThreshold
		default:
			x.OFAC50Rule = kyc.OFAC50Clear
		}
	}
	return x
}

// pathShares returns, per owner, the sum over its all-OWNS paths to the
// root of each path's minimum share, as a fraction capped at 1, leaving
// out paths that pass through a node in skip below the owner. The paths
// are the simple paths within the built subgraph, so a listed company
// that has owners of its own counts too (its effective share in
// ownership.Compute exists only for persons and chain tops).
func pathShares(paths []ownership.Path, skip map[string]bool) map[string]float64 {
	eff := map[string]float64{}
	for _, p := range paths {
		if len(p.Hops) == 0 || !allOwns(p.Hops) ||
			slices.ContainsFunc(p.Hops[1:], func(h ownership.Hop) bool { return skip[h.From] }) {
			continue
		}
		eff[p.Owner] += p.Share.Min / 100
	}
	for id, v := range eff {
		eff[id] = math.Round(min(v, 1)*1e9) / 1e9
	}
	return eff
}

// pathNames returns the names along owner's shortest all-OWNS path to the
// root (else its shortest path), owner first; empty when the path search
// stopped before reaching it.
func pathNames(paths []ownership.Path, owner string, names map[string]string) []string {
	var best *ownership.Path
	for i, p := range paths {
		if p.Owner != owner || len(p.Hops) == 0 {
			continue
		}
		if best == nil || (allOwns(p.Hops) && !allOwns(best.Hops)) {
			best = &paths[i]
		}
	}
	if best == nil {
		return []string{}
	}
	out := []string{names[best.Hops[0].From]}
	for _, h := range best.Hops {
		out = append(out, names[h.To])
	}
	return out
}

func allOwns(hops []ownership.Hop) bool {
	for _, h := range hops {
		if h.Relation != ownership.Owns {
			return false
		}
	}
	return true
}
