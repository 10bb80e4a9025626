package ubo

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/ownership"
)

// kycSub builds a subgraph from "A>B 60" (OWNS) and "A>B ctl" (CONTROLS,
// board appointment) edges; ids starting with P are persons.
func kycSub(root string, edges ...string) ownership.Subgraph {
	sub := ownership.Subgraph{Root: root, MaxHops: 6}
	seen := map[string]bool{}
	node := func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		kind := ownership.Company
		if strings.HasPrefix(id, "P") {
			kind = ownership.Person
		}
		sub.Nodes = append(sub.Nodes, ownership.Node{ID: id, Kind: kind, Name: id})
	}
	node(root)
	for _, s := range edges {
		pair, share, _ := strings.Cut(s, " ")
		from, to, _ := strings.Cut(pair, ">")
		node(from)
		node(to)
		e := ownership.Edge{Relation: ownership.Owns, From: from, To: to}
		if share == "ctl" {
			e.Relation, e.Role = ownership.Controls, ownership.BoardAppointment
		} else {
			var v float64
			for _, c := range share {
				v = v*10 + float64(c-'0')
			}
			e.Pct = &v
		}
		e.Key = ownership.EdgeKey(e.Relation, from, to, e.Role)
		sub.Edges = append(sub.Edges, e)
	}
	return sub
}

// TestExposureOfListedCompanyWithOwners checks the KYC effective shares
// against hand-computed path sums: a listed company with owners of its
// own has no effective share in ownership.Compute, yet its holding counts.
func TestExposureOfListedCompanyWithOwners(t *testing.T) {
	tests := []struct {
		name      string
		sub       ownership.Subgraph
		listed    []string
		shares    map[string]float64
		aggregate float64
		ofac      string
	}{
		{name: "listed L owned by P: 60% x 60% = 0.36", sub: kycSub("R", "P1>L 100", "L>X 60", "X>R 60"),
			listed: []string{"L"}, shares: map[string]float64{"L": 0.36}, aggregate: 0.36, ofac: kyc.OFAC50Blocked},
		{name: "two paths summed: 0.6 x 0.6 + 0.1 = 0.46", sub: kycSub("R", "P1>L 100", "L>X 60", "X>R 60", "L>R 10"),
			listed: []string{"L"}, shares: map[string]float64{"L": 0.46}, aggregate: 0.46, ofac: kyc.OFAC50Blocked},
		{name: "listed L and its listed owner P: 0.36 each, aggregate counts the chain once (0.36)", sub: kycSub("R", "P1>L 100", "L>X 60", "X>R 60"),
			listed: []string{"L", "P1"}, shares: map[string]float64{"L": 0.36, "P1": 0.36}, aggregate: 0.36, ofac: kyc.OFAC50Blocked},
		{name: "listed P through listed L and directly: P 0.46, aggregate 0.36 + 0.10", sub: kycSub("R", "P1>L 100", "L>X 60", "X>R 60", "P1>R 10"),
			listed: []string{"L", "P1"}, shares: map[string]float64{"L": 0.36, "P1": 0.46}, aggregate: 0.46, ofac: kyc.OFAC50Blocked},
		{name: "two independent listed owners: 0.30 + 0.25", sub: kycSub("R", "P1>R 30", "P2>R 25", "P3>R 45"),
			listed: []string{"P1", "P2"}, shares: map[string]float64{"P1": 0.3, "P2": 0.25}, aggregate: 0.55, ofac: kyc.OFAC50Blocked},
		{name: "cycle counted once: L 30% of R, R 20% of L", sub: kycSub("R", "P1>L 80", "L>R 30", "R>L 20"),
			listed: []string{"L"}, shares: map[string]float64{"L": 0.3}, aggregate: 0.3, ofac: kyc.OFAC50BelowThreshold},
		{name: "control only: share 0", sub: kycSub("R", "P1>L 100", "L>R ctl", "P2>R 100"),
			listed: []string{"L"}, shares: map[string]float64{"L": 0}, aggregate: 0, ofac: kyc.OFAC50BelowThreshold},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex := ownership.Screen(tc.sub, tc.sub.Root, func(n ownership.Node) (ownership.Check, error) {
				for _, id := range tc.listed {
					if id == n.ID {
						return ownership.Check{Listings: []ownership.Listing{{List: "us_ofac_sdn", Name: n.Name, Score: 1, Confirmed: true}}}, nil
					}
				}
				return ownership.Check{}, nil
			})
			res := &Result{RootEntityID: tc.sub.Root, RootFound: true, OFAC50: OFAC50{Status: ex.Status}, exposure: ex}
			// Effective shares on nodes as the builder sets them: persons
			// and chain tops only.
			cr := ownership.Compute(tc.sub, tc.sub.Root, ownership.Options{})
			eff := map[string]float64{}
			for _, o := range append(cr.Owners, cr.Unidentified...) {
				eff[o.Node.ID] = o.Share.Min
			}
			for _, n := range tc.sub.Nodes {
				nd := Node{ID: n.ID, Kind: string(n.Kind), Name: n.Name}
				if v, ok := eff[n.ID]; ok {
					nd.EffectiveMin, nd.EffectiveMax = &v, &v
				}
				res.Nodes = append(res.Nodes, nd)
			}
			x := exposureOf(res)
			got := map[string]float64{}
			for _, o := range x.BlockedOwners {
				got[o.EntityID] = o.EffectiveShare
			}
			if !reflect.DeepEqual(got, tc.shares) {
				t.Errorf("effective shares = %v, want %v", got, tc.shares)
			}
			if x.AggregateBlockedShare != tc.aggregate {
				t.Errorf("aggregate = %v, want %v", x.AggregateBlockedShare, tc.aggregate)
			}
			if x.OFAC50Rule != tc.ofac {
				t.Errorf("ofac_50_rule = %s, want %s", x.OFAC50Rule, tc.ofac)
			}
		})
	}
}
