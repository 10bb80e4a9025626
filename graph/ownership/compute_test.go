package ownership

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func p(v float64) *float64 { return &v }

// g builds a subgraph from a compact spec: nodes "P:person" (default
// company) and edges "A>B 60", "A>B 25-50", "A>B ?" (unknown), "A>B
// ctl:board_appointment", "A>B ctl:voting_rights 20" (a stated share).
func g(root string, hops int, nodes []string, edges ...string) Subgraph {
	sub := Subgraph{Root: root, MaxHops: hops}
	for _, n := range nodes {
		id, kind, ok := strings.Cut(n, ":")
		if !ok {
			kind = string(Company)
		}
		sub.Nodes = append(sub.Nodes, Node{ID: id, Kind: Kind(kind), Name: id})
	}
	for _, s := range edges {
		pair, share, _ := strings.Cut(s, " ")
		from, to, _ := strings.Cut(pair, ">")
		e := Edge{Relation: Owns, From: from, To: to, Source: "hand"}
		switch {
		case strings.HasPrefix(share, "ctl:"):
			role, pct, ok := strings.Cut(strings.TrimPrefix(share, "ctl:"), " ")
			e.Relation, e.Role = Controls, Role(role)
			if ok {
				e.Pct = p(atof(pct))
			}
		case share == "?":
		case strings.Contains(share, "-"):
			lo, hi, _ := strings.Cut(share, "-")
			e.PctMin, e.PctMax = p(atof(lo)), p(atof(hi))
		default:
			e.Pct = p(atof(share))
		}
		e.Key = EdgeKey(e.Relation, from, to, e.Role)
		sub.Edges = append(sub.Edges, e)
	}
	return sub
}

func atof(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return f
}

// summary is "ID min-max status npaths".
func summary(os []Owner) []string {
	out := []string{}
	for _, o := range os {
		out = append(out, o.Node.ID+" "+o.Share.String()+" "+o.Status+" "+itoa(len(o.Paths)))
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCompute(t *testing.T) {
	people := []string{"P:person", "Q:person", "S:person"}
	tests := []struct {
		name        string
		sub         Subgraph
		threshold   float64
		owners      []string
		bo          []string
		controlOnly []string
		unident     []string
		caveat      string
	}{
		{name: "chain 60% x 50% = 30%", sub: g("R", 3, append(people, "R", "A"), "P>A 60", "A>R 50"),
			owners: []string{"P 30% beneficial_owner 1"}, bo: []string{"P"}},
		{name: "diamond: two paths summed", sub: g("R", 3, append(people, "R", "A", "B"),
			"P>A 100", "P>B 100", "A>R 20", "B>R 10"),
			owners: []string{"P 30% beneficial_owner 2"}, bo: []string{"P"}},
		{name: "diamond through a shared parent", sub: g("R", 3, append(people, "R", "A", "B", "C"),
			"P>C 50", "C>A 100", "C>B 100", "A>R 30", "B>R 30"),
			owners: []string{"P 30% beneficial_owner 2"}, bo: []string{"P"}},
		{name: "cycle A owns B owns A: simple paths only", sub: g("B", 6, append(people, "A", "B"),
			"A>B 50", "B>A 50", "P>A 60"),
			owners: []string{"P 30% beneficial_owner 1"}, bo: []string{"P"}, caveat: CaveatCycles},
		{name: "band 25-50 x 100%", sub: g("R", 3, append(people, "R", "A"), "P>A 25-50", "A>R 100"),
			owners: []string{"P 25-50% beneficial_owner 1"}, bo: []string{"P"}},
		{name: "band straddling the threshold is possible", sub: g("R", 3, append(people, "R", "A"), "P>A 25-50", "A>R 80"),
			owners: []string{"P 20-40% possible 1"}, bo: []string{"P"}},
		{name: "unknown pct is 0-100, not zero", sub: g("R", 3, append(people, "R", "A"), "P>A ?", "A>R 40"),
			owners: []string{"P unknown possible 1"}, bo: []string{"P"}, caveat: CaveatUnknownShare},
		{name: "below threshold", sub: g("R", 3, append(people, "R"), "P>R 24.9"),
			owners: []string{"P 24.9% below_threshold 1"}, bo: []string{}},
		{name: "threshold configurable: 10%", sub: g("R", 3, append(people, "R"), "P>R 12"), threshold: 10,
			owners: []string{"P 12% beneficial_owner 1"}, bo: []string{"P"}},
		{name: "max hops bounds the walk", sub: g("R", 2, append(people, "R", "A", "B"), "P>B 100", "B>A 100", "A>R 100"),
			owners: []string{}, bo: []string{}, unident: []string{}},
		{name: "control only listed separately", sub: g("R", 3, append(people, "R", "A"),
			"P>R 10", "P>R ctl:board_appointment", "Q>A 51", "A>R ctl:voting_rights", "S>R 40"),
			owners: []string{"S 40% beneficial_owner 1", "P 10% below_threshold 1"}, bo: []string{"S"},
			controlOnly: []string{"P", "Q"}},
		{name: "majority chain is control", sub: g("R", 3, append(people, "R", "A", "B"), "P>A 51", "A>B 51", "B>R 51"),
			owners: []string{"P 13.2651% below_threshold 1"}, bo: []string{}, controlOnly: []string{"P"}},
		{name: "unidentified top entity", sub: g("R", 3, append(people, "R", "A", "X"), "X>R 70", "P>A 100", "A>R 30"),
			owners: []string{"P 30% beneficial_owner 1"}, bo: []string{"P"}, unident: []string{"X 70% beneficial_owner 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Compute(tc.sub, tc.sub.Root, Options{Threshold: tc.threshold})
			if got := summary(res.Owners); !reflect.DeepEqual(got, tc.owners) {
				t.Errorf("owners = %q, want %q", got, tc.owners)
			}
			var bo []string
			for _, o := range res.BeneficialOwners {
				bo = append(bo, o.Node.ID)
			}
			if bo == nil {
				bo = []string{}
			}
			if !reflect.DeepEqual(bo, tc.bo) {
				t.Errorf("beneficial owners = %q, want %q", bo, tc.bo)
			}
			var co []string
			for _, c := range res.ControlOnly {
				co = append(co, c.Node.ID)
			}
			if !reflect.DeepEqual(co, tc.controlOnly) {
				t.Errorf("control only = %q, want %q", co, tc.controlOnly)
			}
			if tc.unident != nil {
				if got := summary(res.Unidentified); !reflect.DeepEqual(got, tc.unident) {
					t.Errorf("unidentified = %q, want %q", got, tc.unident)
				}
			}
			if tc.caveat != "" && !slices.Contains(res.Caveats, tc.caveat) {
				t.Errorf("caveats %q lack %q", res.Caveats, tc.caveat)
			}
			if !slices.Contains(res.Caveats, CaveatPartial) {
				t.Errorf("caveats %q lack the partial-coverage caveat", res.Caveats)
			}
		})
	}
}

func TestComputeEvidence(t *testing.T) {
	res := Compute(g("R", 3, []string{"P:person", "R", "A"}, "P>A 60", "A>R 25-50"), "R", Options{})
	want := []Path{{Owner: "P", Share: Band(15, 30), Hops: []Hop{
		{Key: "OWNS|P|A", Relation: Owns, From: "P", To: "A", Share: Exact(60), Source: "hand"},
		{Key: "OWNS|A|R", Relation: Owns, From: "A", To: "R", Share: Band(25, 50), Source: "hand"},
	}}}
	if len(res.Owners) != 1 || !reflect.DeepEqual(res.Owners[0].Paths, want) {
		t.Errorf("paths = %+v, want %+v", res.Owners, want)
	}
	if res.Owners[0].Status != StatusPossible {
		t.Errorf("status = %s, want possible", res.Owners[0].Status)
	}
}

func TestComputePathLimit(t *testing.T) {
	res := Compute(g("R", 3, []string{"P:person", "R", "A", "B"}, "P>A 50", "P>B 50", "A>R 50", "B>R 50"), "R", Options{MaxPaths: 3})
	if !res.PathsTruncated || !slices.Contains(res.Caveats, CaveatPaths) {
		t.Errorf("PathsTruncated = %v, caveats %q; want true with CaveatPaths", res.PathsTruncated, res.Caveats)
	}
}

// A node reached near the root and again by a path of exactly MaxHops has
// its owners in the subgraph, yet the longer path stops there: the result
// is marked truncated with the caveat, since the figures understate.
//
// Hand computed, MaxHops 2: P owns N 100%; N owns R 10% and C 100%; C owns
// R 90%. P's paths: P>N>R = 10% (walked), P>N>C>R = 90% (3 hops, cut at N).
// P's true share is 100%; the walk sees 10%.
func TestComputeHopLimitCut(t *testing.T) {
	tests := []struct {
		name      string
		sub       Subgraph
		owners    []string
		truncated bool
	}{
		{"node with owners cut at the hop limit", g("R", 2, []string{"P:person", "R", "N", "C"}, "P>N 100", "N>R 10", "N>C 100", "C>R 90"),
			[]string{"P 10% below_threshold 1"}, true},
		{"same graph within the hop limit", g("R", 3, []string{"P:person", "R", "N", "C"}, "P>N 100", "N>R 10", "N>C 100", "C>R 90"),
			[]string{"P 100% beneficial_owner 2"}, false},
		{"node cut at the hop limit with only control owners", g("R", 1, []string{"P:person", "R", "A"}, "A>R 60", "P>A ctl:board_appointment"),
			[]string{}, false},
		{"ownerless node at the hop limit", g("R", 2, []string{"P:person", "R", "A"}, "P>A 100", "A>R 60"),
			[]string{"P 60% beneficial_owner 1"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Compute(tc.sub, tc.sub.Root, Options{})
			if got := summary(res.Owners); !reflect.DeepEqual(got, tc.owners) {
				t.Errorf("owners = %q, want %q", got, tc.owners)
			}
			if res.Truncated != tc.truncated || slices.Contains(res.Caveats, CaveatTruncated) != tc.truncated {
				t.Errorf("Truncated = %v, caveats %q; want truncated %v with the caveat iff truncated", res.Truncated, res.Caveats, tc.truncated)
			}
		})
	}
}

// listedSet is a predicate: ids confirmed listed, ids with a "?" suffix
// possibly listed.
func listedSet(ids ...string) Predicate {
	return func(n Node) (Check, error) {
		for _, id := range ids {
			if id == n.ID {
				return Check{Listings: []Listing{{List: "us_ofac_sdn", EntryID: "us_ofac_sdn:" + id, Name: id, Score: 1, Confirmed: true}}}, nil
			}
			if id == n.ID+"?" {
				return Check{Listings: []Listing{{List: "us_ofac_sdn", EntryID: "us_ofac_sdn:" + id, Name: id, Score: 0.85}}}, nil
			}
		}
		return Check{}, nil
	}
}

func TestScreenOFAC50(t *testing.T) {
	tests := []struct {
		name        string
		sub         Subgraph
		listed      []string
		root        string
		statuses    map[string]string // non-not_blocked nodes
		controlOnly []string
	}{
		{name: "two SDNs 25% each aggregate to blocked", sub: g("X", 3, []string{"S1:person", "S2:person", "X"}, "S1>X 25", "S2>X 25"),
			listed: []string{"S1", "S2"}, root: Blocked, statuses: map[string]string{"S1": Blocked, "S2": Blocked, "X": Blocked}},
		{name: "one SDN 25% is not enough", sub: g("X", 3, []string{"S1:person", "S2:person", "X"}, "S1>X 25", "S2>X 25"),
			listed: []string{"S1"}, root: NotBlocked, statuses: map[string]string{"S1": Blocked}},
		{name: "SDN 50% of X, X 50% of Y: Y blocked though the product is 25%",
			sub:    g("Y", 3, []string{"S:person", "X", "Y"}, "S>X 50", "X>Y 50"),
			listed: []string{"S"}, root: Blocked, statuses: map[string]string{"S": Blocked, "X": Blocked, "Y": Blocked}},
		{name: "SDN 40% of X: X not blocked, so X's 60% of Y does not count",
			sub:    g("Y", 3, []string{"S:person", "X", "Y"}, "S>X 40", "X>Y 60", "S>Y 10"),
			listed: []string{"S"}, root: NotBlocked, statuses: map[string]string{"S": Blocked}},
		{name: "direct and via blocked subsidiary aggregate",
			sub:    g("Y", 3, []string{"S:person", "X", "Y"}, "S>X 60", "X>Y 30", "S>Y 20"),
			listed: []string{"S"}, root: Blocked, statuses: map[string]string{"S": Blocked, "X": Blocked, "Y": Blocked}},
		{name: "control only never blocks", sub: g("X", 3, []string{"S:person", "X"}, "S>X ctl:board_appointment", "S>X ctl:voting_rights"),
			listed: []string{"S"}, root: NotBlocked, statuses: map[string]string{"S": Blocked}, controlOnly: []string{"S"}},
		{name: "band reaching 50 only at max is possibly blocked", sub: g("X", 3, []string{"S:person", "X"}, "S>X 25-50"),
			listed: []string{"S"}, root: PossiblyBlocked, statuses: map[string]string{"S": Blocked, "X": PossiblyBlocked}},
		{name: "band with min at 50 is blocked", sub: g("X", 3, []string{"S:person", "X"}, "S>X 50-75"),
			listed: []string{"S"}, root: Blocked, statuses: map[string]string{"S": Blocked, "X": Blocked}},
		{name: "unknown share of an SDN is possibly blocked", sub: g("X", 3, []string{"S:person", "X"}, "S>X ?"),
			listed: []string{"S"}, root: PossiblyBlocked, statuses: map[string]string{"S": Blocked, "X": PossiblyBlocked}},
		{name: "unconfirmed listing is possibly blocked", sub: g("X", 3, []string{"S:person", "X"}, "S>X 100"),
			listed: []string{"S?"}, root: PossiblyBlocked, statuses: map[string]string{"S": PossiblyBlocked, "X": PossiblyBlocked}},
		{name: "cycle terminates", sub: g("B", 3, []string{"S:person", "A", "B"}, "A>B 50", "B>A 50", "S>A 50"),
			listed: []string{"S"}, root: Blocked, statuses: map[string]string{"S": Blocked, "A": Blocked, "B": Blocked}},
		{name: "nothing listed", sub: g("X", 3, []string{"P:person", "X"}, "P>X 100"),
			root: NotBlocked, statuses: map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex := Screen(tc.sub, tc.sub.Root, listedSet(tc.listed...))
			if ex.Status != tc.root {
				t.Errorf("root status = %s, want %s", ex.Status, tc.root)
			}
			got := map[string]string{}
			for _, n := range ex.Nodes {
				got[n.Node.ID] = n.Status
			}
			if !reflect.DeepEqual(got, tc.statuses) {
				t.Errorf("statuses = %v, want %v", got, tc.statuses)
			}
			co := ex.ControlOnly
			if len(co) == 0 {
				co = nil
			}
			if !reflect.DeepEqual(co, tc.controlOnly) {
				t.Errorf("control only = %v, want %v", ex.ControlOnly, tc.controlOnly)
			}
			if !slices.Contains(ex.Caveats, CaveatOFAC50) {
				t.Errorf("caveats %q lack the OFAC caveat", ex.Caveats)
			}
		})
	}
}

func TestScreenEvidence(t *testing.T) {
	ex := Screen(g("Y", 3, []string{"S:person", "X", "Y"}, "S>X 50", "X>Y 50"), "Y", listedSet("S"))
	var y NodeExposure
	for _, n := range ex.Nodes {
		if n.Node.ID == "Y" {
			y = n
		}
	}
	if y.BlockedShare != Exact(50) || len(y.Holdings) != 1 || y.Holdings[0].Owner != "X" || y.Holdings[0].OwnerStatus != Blocked {
		t.Errorf("Y exposure = %+v, want 50%% held by blocked X", y)
	}
	if len(ex.Paths) != 1 || ex.Paths[0].Owner != "S" || ex.Paths[0].Share != Exact(25) || len(ex.Paths[0].Hops) != 2 {
		t.Errorf("paths = %+v, want S>X>Y at 25%%", ex.Paths)
	}
}

func TestScreenLookupFailureDegrades(t *testing.T) {
	fail := func(n Node) (Check, error) {
		if n.ID == "S" {
			return Check{}, errTest
		}
		return Check{}, nil
	}
	ex := Screen(g("X", 3, []string{"S:person", "X"}, "S>X 100"), "X", fail)
	if !ex.Degraded || !reflect.DeepEqual(ex.Unscreened, []string{"S"}) || !slices.Contains(ex.Caveats, CaveatScreenDegraded) {
		t.Errorf("Screen with a failed lookup = degraded %v unscreened %v caveats %q", ex.Degraded, ex.Unscreened, ex.Caveats)
	}
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("lookup failed")

// Voting rights confer control only as a stated majority (minimum above
// 50 %) or when no share is stated; they are never ownership. Hand
// computed from the Danish BODS shape: minority holders with 20 %
// shares and 20 % voting rights control nothing.
func TestComputeVotingRights(t *testing.T) {
	people := []string{"P:person", "Q:person", "S:person"}
	tests := []struct {
		name        string
		sub         Subgraph
		owners      []string
		controllers []string // "ID means,..."
		controlOnly []string
	}{
		{name: "Danish sample: 20% + 20% voting minorities, 60% + 60% majority", sub: g("R", 3, append(people, "R"),
			"P>R 20", "P>R ctl:voting_rights 20", "Q>R 20", "Q>R ctl:voting_rights 20", "S>R 60", "S>R ctl:voting_rights 60"),
			owners:      []string{"S 60% beneficial_owner 1", "P 20% below_threshold 1", "Q 20% below_threshold 1"},
			controllers: []string{"S majority_ownership,voting_rights"}, controlOnly: []string{}},
		{name: "10% voting rights alone: no control, no ownership", sub: g("R", 3, append(people, "R"), "P>R ctl:voting_rights 10"),
			owners: []string{}, controllers: []string{}, controlOnly: []string{}},
		{name: "exactly 50% voting rights is not control", sub: g("R", 3, append(people, "R"), "P>R ctl:voting_rights 50"),
			owners: []string{}, controllers: []string{}, controlOnly: []string{}},
		{name: "51% voting rights is control, not ownership", sub: g("R", 3, append(people, "R"), "P>R ctl:voting_rights 51"),
			owners: []string{}, controllers: []string{"P voting_rights"}, controlOnly: []string{"P"}},
		{name: "voting rights with no stated share count as control", sub: g("R", 3, append(people, "R"), "P>R ctl:voting_rights"),
			owners: []string{}, controllers: []string{"P voting_rights"}, controlOnly: []string{"P"}},
		{name: "20% voting rights held through a wholly owned company", sub: g("R", 3, append(people, "R", "A"),
			"P>A 100", "A>R ctl:voting_rights 20"),
			owners: []string{}, controllers: []string{}, controlOnly: []string{}},
		{name: "person with 20% voting rights in the majority owner", sub: g("R", 3, append(people, "R", "A"),
			"P>A ctl:voting_rights 20", "A>R 80"),
			owners: []string{}, controllers: []string{}, controlOnly: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Compute(tc.sub, tc.sub.Root, Options{})
			if got := summary(res.Owners); !reflect.DeepEqual(got, tc.owners) {
				t.Errorf("owners = %q, want %q", got, tc.owners)
			}
			ctl := []string{}
			for _, c := range res.Controllers {
				ctl = append(ctl, c.Node.ID+" "+strings.Join(c.Means, ","))
			}
			if !reflect.DeepEqual(ctl, tc.controllers) {
				t.Errorf("controllers = %q, want %q", ctl, tc.controllers)
			}
			co := []string{}
			for _, c := range res.ControlOnly {
				co = append(co, c.Node.ID)
			}
			if !reflect.DeepEqual(co, tc.controlOnly) {
				t.Errorf("control only = %q, want %q", co, tc.controlOnly)
			}
		})
	}
}

// A non-person is an unidentified top when it has no OWNS owner off the
// current path: CONTROLS edges into it do not make its owners known, and
// companies that only own each other in a cycle end the chain. Hand
// computed; each top carries the share that reaches it.
func TestComputeUnidentifiedTops(t *testing.T) {
	people := []string{"P:person", "Q:person"}
	tests := []struct {
		name    string
		sub     Subgraph
		owners  []string
		unident []string
	}{
		{name: "company held only through a CONTROLS edge", sub: g("R", 3, append(people, "R", "A"),
			"A>R 70", "P>A ctl:board_appointment", "Q>R 30"),
			owners: []string{"Q 30% beneficial_owner 1"}, unident: []string{"A 70% beneficial_owner 1"}},
		{name: "company with an OWNS owner beside a CONTROLS edge is not a top", sub: g("R", 3, append(people, "R", "A"),
			"A>R 60", "P>A 40", "Q>A ctl:board_appointment"),
			owners: []string{"P 24% below_threshold 1"}, unident: []string{}},
		{name: "two companies owning each other: B at 50% x 60% = 30%", sub: g("R", 4, append(people, "R", "A", "B"),
			"A>R 60", "B>A 50", "A>B 50"),
			owners: []string{}, unident: []string{"B 30% beneficial_owner 1"}},
		{name: "cycle with an outside person owner has no top", sub: g("R", 4, append(people, "R", "A", "B"),
			"A>R 60", "B>A 50", "A>B 50", "P>B 100"),
			owners: []string{"P 30% beneficial_owner 1"}, unident: []string{}},
		{name: "top owned back by the root", sub: g("R", 3, append(people, "R", "A"), "A>R 60", "R>A 50"),
			owners: []string{}, unident: []string{"A 60% beneficial_owner 1"}},
		{name: "three-company cycle: C at 50% x 40% x 80% = 16%", sub: g("R", 5, append(people, "R", "A", "B", "C"),
			"A>R 80", "B>A 40", "C>B 50", "A>C 100"),
			owners: []string{}, unident: []string{"C 16% below_threshold 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Compute(tc.sub, tc.sub.Root, Options{})
			if got := summary(res.Owners); !reflect.DeepEqual(got, tc.owners) {
				t.Errorf("owners = %q, want %q", got, tc.owners)
			}
			if got := summary(res.Unidentified); !reflect.DeepEqual(got, tc.unident) {
				t.Errorf("unidentified = %q, want %q", got, tc.unident)
			}
		})
	}
}
