package ubo

import (
	"context"
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
// effective share and a path down to the company; the OFAC 50 status is
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
	eff := map[string]float64{}
	for _, n := range res.Nodes {
		names[n.ID] = n.Name
		if n.EffectiveMin != nil {
			eff[n.ID] = *n.EffectiveMin / 100
		}
	}
	ex := res.exposure
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
		if o.Confirmed {
			x.AggregateBlockedShare += o.EffectiveShare
		}
		x.BlockedOwners = append(x.BlockedOwners, o)
	}
	x.AggregateBlockedShare = min(x.AggregateBlockedShare, 1)
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
