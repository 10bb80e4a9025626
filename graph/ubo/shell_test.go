package ubo

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func day(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func pct(f float64) *float64 { return &f }

func co(id, jur string) Node {
	return Node{ID: id, Kind: KindCompany, Name: "Co " + id, Jurisdiction: jur}
}
func person(id string) Node { return Node{ID: id, Kind: KindPerson, Name: "Person " + id} }
func owns(from, to string, p float64) Edge {
	return Edge{From: from, To: to, Relation: RelOwns, Pct: pct(p)}
}

func signalSet(v Verdict) []string {
	var out []string
	for _, s := range v.Signals {
		out = append(out, s.Name)
	}
	return out
}

func TestShellSignals(t *testing.T) {
	tests := []struct {
		name     string
		nodes    []Node
		edges    []Edge
		entity   string
		frontier []string
		want     []string // signal names, in order
		verdict  string
		// evidence substrings, one per wanted signal
		evidence []string
	}{
		{
			name:     "person at the top: no signal",
			nodes:    []Node{co("A", "GB"), person("P")},
			edges:    []Edge{owns("P", "A", 100)},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name:     "secrecy jurisdiction only",
			nodes:    []Node{co("A", "VG"), person("P")},
			edges:    []Edge{owns("P", "A", 100)},
			entity:   "A",
			want:     []string{SignalSecrecyJurisdiction},
			verdict:  VerdictWeakSignals,
			evidence: []string{"British Virgin Islands (FSI 2022 rank 9)"},
		},
		{
			name:     "lower-case jurisdiction code still matches",
			nodes:    []Node{co("A", "ky"), person("P")},
			edges:    []Edge{owns("P", "A", 100)},
			entity:   "A",
			want:     []string{SignalSecrecyJurisdiction},
			verdict:  VerdictWeakSignals,
			evidence: []string{"Cayman Islands"},
		},
		{
			name:     "onshore FSI economy is not a secrecy jurisdiction here",
			nodes:    []Node{co("A", "US"), person("P")},
			edges:    []Edge{owns("P", "A", 100)},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name:     "no owner recorded",
			nodes:    []Node{co("A", "GB")},
			entity:   "A",
			want:     []string{SignalNoNaturalPersonAtTop},
			verdict:  VerdictWeakSignals,
			evidence: []string{"no owner recorded"},
		},
		{
			name:     "chain ends in a trust and a company",
			nodes:    []Node{co("A", "GB"), co("B", "GB"), {ID: "T", Kind: KindTrust, Name: "Family Trust"}},
			edges:    []Edge{owns("B", "A", 60), owns("T", "A", 40)},
			entity:   "A",
			want:     []string{SignalNoNaturalPersonAtTop},
			verdict:  VerdictWeakSignals,
			evidence: []string{"Co B (company), Family Trust (trust)"},
		},
		{
			name:     "chain cut by the hop limit may end in a person",
			nodes:    []Node{co("A", "GB"), co("B", "GB")},
			edges:    []Edge{owns("B", "A", 100)},
			frontier: []string{"B"},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name:     "person two hops up: no signal",
			nodes:    []Node{co("A", "GB"), co("B", "GB"), person("P")},
			edges:    []Edge{owns("B", "A", 100), owns("P", "B", 100)},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name:     "circular ownership A owns B owns A",
			nodes:    []Node{co("A", "GB"), co("B", "GB"), person("P")},
			edges:    []Edge{owns("A", "B", 50), owns("B", "A", 50), owns("P", "A", 50)},
			entity:   "A",
			want:     []string{SignalCircularOwnership},
			verdict:  VerdictPossibleShell,
			evidence: []string{"ownership cycle: Co A owns Co B owns Co A"},
		},
		{
			name:     "cycle above the entity is not through it",
			nodes:    []Node{co("A", "GB"), co("B", "GB"), co("C", "GB"), person("P")},
			edges:    []Edge{owns("B", "A", 100), owns("B", "C", 50), owns("C", "B", 50), owns("P", "C", 50)},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name: "mass-registration address shared by three",
			nodes: []Node{
				{ID: "A", Kind: KindCompany, Name: "A", Address: "Trident Chambers, P.O. Box 146, Road Town"},
				{ID: "B", Kind: KindCompany, Name: "B", Address: "TRIDENT CHAMBERS P O BOX 146 ROAD TOWN"},
				{ID: "C", Kind: KindCompany, Name: "C", Address: "Trident Chambers,  P.O. Box 146,  Road Town"},
				person("P"),
			},
			edges:    []Edge{owns("P", "A", 100), owns("P", "B", 100), owns("P", "C", 100)},
			entity:   "A",
			want:     []string{SignalMassRegistrationAddress},
			verdict:  VerdictPossibleShell,
			evidence: []string{"shared by 3 legal entities"},
		},
		{
			name: "address shared by two is below the threshold",
			nodes: []Node{
				{ID: "A", Kind: KindCompany, Name: "A", Address: "1 Main St"},
				{ID: "B", Kind: KindCompany, Name: "B", Address: "1 Main St"},
				{ID: "Q", Kind: KindPerson, Name: "Q", Address: "1 Main St"},
				person("P"),
			},
			edges:    []Edge{owns("P", "A", 100), owns("P", "B", 100)},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name:     "owner named as a nominee",
			nodes:    []Node{co("A", "GB"), {ID: "N", Kind: KindCompany, Name: "Alpha Nominees Limited"}, person("P")},
			edges:    []Edge{owns("N", "A", 100), owns("P", "N", 100)},
			entity:   "A",
			want:     []string{SignalNomineeOfficers},
			verdict:  VerdictPossibleShell,
			evidence: []string{"Alpha Nominees Limited (owns) is named as a nominee"},
		},
		{
			name:     "controller recorded as a nominee",
			nodes:    []Node{co("A", "GB"), {ID: "D", Kind: KindPerson, Name: "D", Nominee: true}, person("P")},
			edges:    []Edge{{From: "D", To: "A", Relation: RelControls, Role: "board_appointment"}, owns("P", "A", 100)},
			entity:   "A",
			want:     []string{SignalNomineeOfficers},
			verdict:  VerdictPossibleShell,
			evidence: []string{"D (controls) is recorded as a nominee"},
		},
		{
			name:     "nominee as part of a word does not count",
			nodes:    []Node{co("A", "GB"), {ID: "N", Kind: KindPerson, Name: "Nomineeva Anna"}},
			edges:    []Edge{owns("N", "A", 100)},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name:     "incorporated 3 months ago",
			nodes:    []Node{{ID: "A", Kind: KindCompany, Name: "A", Founded: day("2026-08-20")}, person("P")},
			edges:    []Edge{owns("P", "A", 100)},
			entity:   "A",
			want:     []string{SignalRecentIncorporation},
			verdict:  VerdictWeakSignals,
			evidence: []string{"incorporated 2026-08-20, within 12 months of the build (2026-11-21)"},
		},
		{
			name:     "incorporated 13 months ago",
			nodes:    []Node{{ID: "A", Kind: KindCompany, Name: "A", Founded: day("2025-10-01")}, person("P")},
			edges:    []Edge{owns("P", "A", 100)},
			entity:   "A",
			verdict:  VerdictNoSignals,
			evidence: nil,
		},
		{
			name: "likely shell: BVI, nominee owner, cycle",
			nodes: []Node{
				{ID: "A", Kind: KindCompany, Name: "A", Jurisdiction: "VG", Founded: day("2026-06-01")},
				{ID: "B", Kind: KindCompany, Name: "B Nominee Services", Jurisdiction: "PA"},
			},
			edges:    []Edge{owns("B", "A", 100), owns("A", "B", 10)},
			entity:   "A",
			want:     []string{SignalSecrecyJurisdiction, SignalNoNaturalPersonAtTop, SignalCircularOwnership, SignalNomineeOfficers, SignalRecentIncorporation},
			verdict:  VerdictLikelyShell,
			evidence: []string{"VG", "without a natural person", "A owns B Nominee Services owns A", "named as a nominee", "2026-06-01"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Shell(tt.nodes, tt.edges, tt.frontier, now)
			v, ok := got[tt.entity]
			if !ok {
				t.Fatalf("Shell: no verdict for %s; got %v", tt.entity, got)
			}
			if names := signalSet(v); !reflect.DeepEqual(names, tt.want) {
				t.Fatalf("Shell(%s) signals = %v, want %v (%+v)", tt.entity, names, tt.want, v.Signals)
			}
			if v.Verdict != tt.verdict {
				t.Errorf("Shell(%s) verdict = %s (score %d), want %s", tt.entity, v.Verdict, v.Score, tt.verdict)
			}
			for i, want := range tt.evidence {
				if !strings.Contains(v.Signals[i].Evidence, want) {
					t.Errorf("signal %s evidence = %q, want it to contain %q", v.Signals[i].Name, v.Signals[i].Evidence, want)
				}
			}
		})
	}
}

func TestShellVerdictsOnlyForLegalEntities(t *testing.T) {
	nodes := []Node{co("A", "GB"), person("P"), {ID: "V", Kind: KindVessel, Name: "MT Example"}, {ID: "T", Kind: KindTrust, Name: "T"}, {ID: "U", Name: "Unknown kind"}}
	got := Shell(nodes, []Edge{owns("P", "A", 100)}, nil, now)
	var ids []string
	for _, id := range sortedKeys(got) {
		ids = append(ids, id)
	}
	if want := []string{"A", "T", "U"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Shell verdict keys = %v, want %v", ids, want)
	}
}

// dense returns layers of width companies where each company owns every
// company of the layer below: width^layers upstream paths from L0-0, far
// too many to enumerate. top, when set, owns every company of the top
// layer.
func dense(layers, width int, top *Node) ([]Node, []Edge) {
	var nodes []Node
	var edges []Edge
	id := func(l, i int) string {
		return "L" + string(rune('0'+l/10)) + string(rune('0'+l%10)) + "-" + string(rune('0'+i))
	}
	for l := range layers {
		for i := range width {
			nodes = append(nodes, co(id(l, i), "GB"))
			if l > 0 {
				for j := range width {
					edges = append(edges, owns(id(l, i), id(l-1, j), 100/float64(width)))
				}
			}
		}
	}
	if top != nil {
		nodes = append(nodes, *top)
		for i := range width {
			edges = append(edges, owns(top.ID, id(layers-1, i), 100/float64(width)))
		}
	}
	return nodes, edges
}

// The no-natural-person check visits each entity once: a dense
// person-free graph of 8^20 upstream paths finishes with the same answer
// as the path enumeration it replaced.
func TestNoPersonSignalDenseGraph(t *testing.T) {
	p := person("P")
	tests := []struct {
		name     string
		top      *Node
		frontier []string
		fires    bool
		detail   string
	}{
		{name: "person-free: every chain ends in a company", fires: true,
			detail: "every upstream ownership chain ends without a natural person, at Co L19-0 (company), Co L19-1 (company), Co L19-2 (company), Co L19-3 (company), Co L19-4 (company), and 3 more"},
		{name: "a person above the top layer", top: &p, fires: false},
		{name: "a top-layer company beyond the hop limit", frontier: []string{"L19-5"}, fires: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, edges := dense(20, 8, tt.top)
			byID := map[string]*Node{}
			for i := range nodes {
				byID[nodes[i].ID] = &nodes[i]
			}
			owners := map[string][]Edge{}
			for _, e := range edges {
				owners[e.To] = append(owners[e.To], e)
			}
			beyond := map[string]bool{}
			for _, id := range tt.frontier {
				beyond[id] = true
			}
			s, ok := noPersonSignal("L00-0", owners, byID, beyond)
			if ok != tt.fires || (tt.fires && s.Evidence != tt.detail) {
				t.Errorf("noPersonSignal = %+v, %v; want fires %v with %q", s, ok, tt.fires, tt.detail)
			}
		})
	}
}
