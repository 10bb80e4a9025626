package cluster

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
)

// memGraph is the registry and its mirror in memory: the graph the real
// stores would hold for recs (records of one group share its id; records
// sharing a normalized name are alias-linked).
type memGraph struct {
	recs []Record
	fail error
	// mirror makes the graph reads return records without aliases, as the
	// graph mirror holds them (RecordsBySlug and RecordsByID, the registry
	// of record, keep them).
	mirror bool
}

func (m *memGraph) out(r Record) Record {
	if m.mirror {
		r.Aliases = nil
	}
	return r
}

func (m *memGraph) RecordsByID(_ context.Context, ids []string) ([]Record, error) {
	var out []Record
	for _, r := range m.recs {
		if slices.Contains(ids, r.ID) {
			out = append(out, r)
		}
	}
	return out, m.fail
}

func (m *memGraph) RecordsBySlug(_ context.Context, slug string) ([]Record, string, bool, error) {
	for _, r := range m.recs {
		if r.Slug == slug {
			return []Record{r}, r.GroupID, false, nil
		}
	}
	var out []Record
	for _, r := range m.recs {
		if r.Group == slug {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, "", false, nil
	}
	return out, out[0].GroupID, true, nil
}

func (m *memGraph) ClusterEntity(_ context.Context, id string) (Record, bool, error) {
	for _, r := range m.recs {
		if r.ID == id {
			return m.out(r), true, m.fail
		}
	}
	return Record{}, false, m.fail
}

func (m *memGraph) EntityGroups(_ context.Context, id string) ([]GroupRef, error) {
	for _, r := range m.recs {
		if r.ID == id && r.GroupID != "" {
			return []GroupRef{{ID: r.GroupID, Slug: r.Group}}, m.fail
		}
	}
	return nil, m.fail
}

func (m *memGraph) GroupMembers(_ context.Context, gid string) ([]Record, error) {
	var out []Record
	for _, r := range m.recs {
		if r.GroupID == gid {
			out = append(out, m.out(r))
		}
	}
	return out, m.fail
}

func (m *memGraph) ProtectedEntities(context.Context) ([]Record, error) {
	var out []Record
	for _, r := range m.recs {
		if r.Protected {
			out = append(out, r)
		}
	}
	return out, m.fail
}

func (m *memGraph) AliasNeighbours(_ context.Context, id string) ([]AliasLink, error) {
	var me Record
	for _, r := range m.recs {
		if r.ID == id {
			me = r
		}
	}
	var out []AliasLink
	for _, o := range m.recs {
		if o.ID == id {
			continue
		}
		for _, k := range me.Keys() {
			if slices.Contains(o.Keys(), k) {
				out = append(out, AliasLink{From: min(id, o.ID), To: max(id, o.ID), Other: m.out(o), Key: k, Name: k})
				break
			}
		}
	}
	return out, m.fail
}

// memSanctions lists names (exact normalized) with their linked members:
// entry "un:<key>" has primary name key; aliases maps an alias key to the
// primary key of its entry. As in the graph, ListedByName knows primary
// names only; memNames (the screener) knows aliases too.
type memSanctions struct {
	listed  map[string][]SanctionsMember
	aliases map[string]string
	entries map[string]int // entries of each list held
	missing []string       // entry ids the graph does not hold
	fail    error
}

func (s *memSanctions) EntryExists(_ context.Context, id string) (bool, error) {
	_, ok := s.listed[strings.TrimPrefix(id, "un:")]
	return ok && !slices.Contains(s.missing, id), s.fail
}

// memNames is the screener over the entries of memSanctions: primary
// names and aliases, exact normalized key.
type memNames struct {
	s      *memSanctions
	loaded map[string]bool
}

func (m *memNames) ExactListed(names []string) []string {
	var out []string
	for _, n := range names {
		k := Normalize(n)
		if p, ok := m.s.aliases[k]; ok {
			k = p
		}
		if _, ok := m.s.listed[k]; ok && !slices.Contains(out, "un:"+k) {
			out = append(out, "un:"+k)
		}
	}
	slices.Sort(out)
	return out
}

func (m *memNames) ListLoaded(list string) bool { return m.loaded[list] }

func (s *memSanctions) ListEntries(_ context.Context, list string) (int, error) {
	return s.entries[list], s.fail
}

func (s *memSanctions) ListedByName(_ context.Context, name string) ([]string, error) {
	if _, ok := s.listed[Normalize(name)]; ok {
		return []string{"un:" + Normalize(name)}, s.fail
	}
	return nil, s.fail
}

func (s *memSanctions) LinkedMembers(_ context.Context, id string) ([]SanctionsMember, error) {
	return s.listed[strings.TrimPrefix(id, "un:")], s.fail
}

func networkRecords() []Record {
	return []Record{
		{ID: "a", Slug: "demo-a", EntityName: "Demo A", Severity: Confirmed, Group: "ring", GroupID: "g1"},
		{ID: "b", Slug: "demo-b", EntityName: "Demo B", Severity: Suspected, Group: "ring", GroupID: "g1", Aliases: []string{"Shared Name"}},
		{ID: "c", Slug: "demo-c", EntityName: "Shared Name", Severity: Likely},
		{ID: "d", Slug: "demo-d", EntityName: "Demo D", Severity: Likely},
		{ID: "e", Slug: "listed-e", EntityName: "Listed Entity", Severity: Confirmed, Group: "listed", GroupID: "g2", SanctionsSource: "un"},
		{ID: "f", Slug: "demo-f", EntityName: "Demo F", Severity: Likely, Group: "listed", GroupID: "g2"},
		{ID: "p", Slug: "listed-p", EntityName: "Protected Entity", Severity: Confirmed, Group: "protected", GroupID: "g3", SanctionsSource: "un", Protected: true},
		{ID: "q", Slug: "demo-q", EntityName: "Demo Q", Severity: Likely, Group: "protected", GroupID: "g3"},
		{ID: "u", Slug: "unlisted-u", EntityName: "Unlisted U", Severity: Likely, Group: "unlisted", GroupID: "g4", SanctionsSource: "un"},
		{ID: "v", Slug: "demo-v", EntityName: "Demo V", Severity: Likely, Group: "unlisted", GroupID: "g4"},
		{ID: "s", Slug: "solo-s", EntityName: "Solo S", Severity: Likely, Group: "solo", GroupID: "g7"},
		{ID: "p2", Slug: "protected-two", EntityName: "Protected Two", Severity: Confirmed, Group: "mixed", GroupID: "g5", SanctionsSource: "un", Protected: true},
		{ID: "m2", Slug: "mixed-listed", EntityName: "Mixed Listed", Severity: Confirmed, Group: "mixed", GroupID: "g5", SanctionsSource: "un"},
		{ID: "p3", Slug: "protected-three", EntityName: "Protected Three", Severity: Confirmed, Group: "mixedplus", GroupID: "g6", SanctionsSource: "un", Protected: true},
		{ID: "m3", Slug: "mixed-plus", EntityName: "Mixed Plus", Severity: Confirmed, Group: "mixedplus", GroupID: "g6", SanctionsSource: "un"},
		// A listed record whose entry is linked to the protected record p's
		// entry, in a network p is not part of.
		{ID: "x", Slug: "cross-listed", EntityName: "Cross Listed", Severity: Confirmed, Group: "cross", GroupID: "g8", SanctionsSource: "un"},
		{ID: "y", Slug: "demo-y", EntityName: "Demo Y", Severity: Likely, Group: "cross", GroupID: "g8"},
		// Listed under an alias of an entry (the entry side), and under an
		// alias of the record (the record side).
		{ID: "ea", Slug: "entry-alias", EntityName: "Listed Entity AKA", Severity: Confirmed, Group: "entryalias", GroupID: "g9", SanctionsSource: "un"},
		{ID: "z", Slug: "demo-z", EntityName: "Demo Z", Severity: Likely, Group: "entryalias", GroupID: "g9"},
		{ID: "ra", Slug: "record-alias", EntityName: "Record Alias Trading", Aliases: []string{"Aliased Entry"}, Severity: Confirmed, Group: "recordalias", GroupID: "g10", SanctionsSource: "un"},
		{ID: "w", Slug: "demo-w", EntityName: "Demo W", Severity: Likely, Group: "recordalias", GroupID: "g10"},
	}
}

func testNetworks() (*Networks, *memGraph, *memSanctions, *SnapshotState) {
	g := &memGraph{recs: networkRecords()}
	s := &memSanctions{listed: map[string][]SanctionsMember{
		"listedentity":    {{EntityID: "un:QDe.1", List: "un", SourceID: "QDe.1", Name: "LINKED CO", Quoted: "Linked Co"}},
		"protectedentity": {{EntityID: "un:QDe.2", List: "un", SourceID: "QDe.2", Name: "OTHER CO", Quoted: "Other Co"}},
		// Links are returned in both directions: each of a linked pair
		// lists the other.
		"protectedtwo":   {{EntityID: "un:mixedlisted", List: "un", SourceID: "mixedlisted", Name: "MIXED LISTED", Quoted: "Mixed Listed"}},
		"mixedlisted":    {{EntityID: "un:protectedtwo", List: "un", SourceID: "protectedtwo", Name: "PROTECTED TWO", Quoted: "Protected Two"}},
		"protectedthree": {{EntityID: "un:mixedplus", List: "un", SourceID: "mixedplus", Name: "MIXED PLUS", Quoted: "Mixed Plus"}},
		"mixedplus": {
			{EntityID: "un:QDe.9", List: "un", SourceID: "QDe.9", Name: "THIRD CO", Quoted: "Third Co"},
			{EntityID: "un:protectedthree", List: "un", SourceID: "protectedthree", Name: "PROTECTED THREE", Quoted: "Protected Three"},
		},
		"aliasedentry": {{EntityID: "un:QDe.3", List: "un", SourceID: "QDe.3", Name: "THIRD LINKED CO", Quoted: "Third Linked Co"}},
		"crosslisted": {
			{EntityID: "un:QDe.7", List: "un", SourceID: "QDe.7", Name: "FOURTH CO", Quoted: "Fourth Co"},
			{EntityID: "un:protectedentity", List: "un", SourceID: "protectedentity", Name: "PROTECTED ENTITY", Quoted: "Protected Entity"},
		},
	}}
	s.aliases = map[string]string{"listedentityaka": "listedentity"}
	s.entries = map[string]int{"un": 2}
	snap := &SnapshotState{}
	n := &Networks{Slugs: g, Graph: g, Sanctions: s, Names: &memNames{s: s, loaded: map[string]bool{"un": true}}, Records: g, Protected: g,
		Snapshot: func() SnapshotState { return *snap }}
	return n, g, s, snap
}

func TestNetworkShape(t *testing.T) {
	n, _, _, _ := testNetworks()
	net, err := n.Network(context.Background(), "ring")
	if err != nil {
		t.Fatal(err)
	}
	var nodes, edges []string
	for _, nd := range net.Nodes {
		nodes = append(nodes, nd.Kind+":"+nd.Slug)
	}
	for _, e := range net.Edges {
		edges = append(edges, e.Kind+":"+e.From+">"+e.To)
	}
	if want := []string{"group:ring", "entity:demo-a", "entity:demo-b", "entity:demo-c"}; !slices.Equal(nodes, want) {
		t.Errorf("nodes = %v, want %v", nodes, want)
	}
	if want := []string{"hub:a>g1", "hub:b>g1", "cross_reference:b>c"}; !slices.Equal(edges, want) {
		t.Errorf("edges = %v, want %v", edges, want)
	}
	want := "Teardown group ring: 3 entities in 1 group (1 confirmed, 1 likely, 1 suspected); 2 hub edges (group membership), 1 cross-reference edge (shared alias). Sanctions network: not_screened."
	if net.Caption != want || net.Kind != NodeGroup {
		t.Errorf("caption = %q, want %q", net.Caption, want)
	}
	if !slices.Contains(net.Caveats, graph.CaveatSuspected) || !slices.Contains(net.Caveats, CaveatNoInferred) {
		t.Errorf("caveats = %v", net.Caveats)
	}
	// From the alias-linked entity, the same network.
	net2, err := n.Network(context.Background(), "demo-c")
	if err != nil || len(net2.Nodes) != 4 || len(net2.Edges) != 3 || net2.Kind != NodeEntity {
		t.Errorf("network of demo-c = %+v, %v", net2, err)
	}
	n.MaxNodes = 2
	net3, _ := n.Network(context.Background(), "ring")
	if !net3.Truncated || len(net3.Nodes) != 3 {
		t.Errorf("truncated network = %+v", net3)
	}
}

func TestNetworkErrors(t *testing.T) {
	n, g, _, _ := testNetworks()
	tests := []struct {
		name, slug string
		code       graph.Code
	}{
		{"single unlinked record", "demo-d", graph.CodeNotFound},
		{"group of one", "solo", graph.CodeNotFound},
		{"entity alone in its group", "solo-s", graph.CodeNotFound},
		{"nothing", "demo-none", graph.CodeNotFound},
		{"malformed", "Demo D", graph.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := n.Network(context.Background(), tt.slug); graph.ErrorCode(err) != tt.code {
				t.Errorf("Network(%q) = %v, want %s", tt.slug, err, tt.code)
			}
		})
	}
	up := &memGraph{recs: networkRecords()}
	g.fail = graph.Unavailable("graph database", errors.New("down"))
	if _, err := n.Network(context.Background(), "ring"); graph.ErrorCode(err) != graph.CodeUnavailable {
		t.Errorf("graph down: %v, want unavailable", err)
	}
	// With the registry as fallback: the same network, source registry,
	// the sanctions network unavailable and degraded.
	n.Fallback = up
	net, err := n.Network(context.Background(), "listed")
	if err != nil {
		t.Fatal(err)
	}
	sn := net.SanctionsNetwork
	if net.Source != SourceRegistry || len(net.Nodes) != 3 || len(net.Edges) != 2 || sn.Coverage != CoverageUnavailable || !sn.Degraded ||
		sn.Screened != 1 || net.Caveats[0] != CaveatDegraded {
		t.Errorf("network with the graph down = %+v", net)
	}
	for _, slug := range []string{"demo-d", "solo", "solo-s"} {
		if _, err := n.Network(context.Background(), slug); graph.ErrorCode(err) != graph.CodeNotFound {
			t.Errorf("%s with the graph down = %v, want not_found", slug, err)
		}
	}
}

func TestSanctionsNetworkStates(t *testing.T) {
	stale := 50
	loaded := map[string]int{"un": 2}
	tests := []struct {
		name     string
		slug     string
		snap     SnapshotState
		entries  map[string]int // entries per list held in the graph
		fail     bool
		coverage string
		degraded bool
		members  int
		stale    bool
	}{
		{"available", "listed", SnapshotState{}, loaded, false, CoverageAvailable, false, 1, false},
		{"withheld", "protected", SnapshotState{}, loaded, false, CoverageWithheld, false, 0, false},
		{"no links recorded", "unlisted", SnapshotState{}, loaded, false, CoverageNoLinks, false, 0, false},
		{"not screened", "ring", SnapshotState{}, loaded, false, CoverageNotScreened, false, 0, false},
		{"unavailable: no list in the graph", "listed", SnapshotState{}, nil, false, CoverageUnavailable, true, 0, false},
		{"unavailable: the record's own list not in the graph", "unlisted", SnapshotState{}, map[string]int{"ofac_sdn": 18000}, false, CoverageUnavailable, true, 0, false},
		{"unavailable: lookup failed", "listed", SnapshotState{}, loaded, true, CoverageUnavailable, true, 0, false},
		{"stale but available", "listed", SnapshotState{StaleHours: &stale}, loaded, false, CoverageAvailable, false, 1, true},
		{"stale and not screened", "ring", SnapshotState{StaleHours: &stale}, loaded, false, CoverageNotScreened, false, 0, true},
		{"stale and withheld", "protected", SnapshotState{StaleHours: &stale}, loaded, false, CoverageWithheld, false, 0, true},
		{"stale and no links recorded", "unlisted", SnapshotState{StaleHours: &stale}, loaded, false, CoverageNoLinks, false, 0, true},
		{"stale and unavailable", "listed", SnapshotState{StaleHours: &stale}, nil, false, CoverageUnavailable, true, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _, s, snap := testNetworks()
			*snap = tt.snap
			s.entries = tt.entries
			if tt.fail {
				s.fail = errors.New("bolt down")
			}
			net, err := n.Network(context.Background(), tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			sn := net.SanctionsNetwork
			if sn.Coverage != tt.coverage || sn.Degraded != tt.degraded || len(sn.Members) != tt.members || (sn.StaleHours != nil) != tt.stale {
				t.Errorf("sanctions network = %+v, want %s degraded %v members %d", sn, tt.coverage, tt.degraded, tt.members)
			}
			if tt.degraded != (net.Caveats[0] == CaveatDegraded) {
				t.Errorf("caveats = %v", net.Caveats)
			}
			if tt.members > 0 && (sn.Members[0].ClusterEntity != "listed-e" || sn.Members[0].EntityID != "un:QDe.1" || sn.Members[0].ListedEntryID != "un:listedentity") {
				t.Errorf("member = %+v", sn.Members[0])
			}
		})
	}
}

// TestSanctionsNetworkProtected checks that a protected record's entry is
// withheld whichever entry its link is found under.
func TestSanctionsNetworkProtected(t *testing.T) {
	tests := []struct {
		name     string
		slug     string
		coverage string
		members  []string // EntityID of the published members
		withheld int
	}{
		{"own links withheld", "protected", CoverageWithheld, nil, 1},
		{"protected entry linked from an unprotected record", "mixed", CoverageWithheld, nil, 1},
		{"other links of the unprotected record published", "mixedplus", CoverageAvailable, []string{"un:QDe.9"}, 1},
		{"no protected record", "listed", CoverageAvailable, []string{"un:QDe.1"}, 0},
		// The policy holds registry-wide: the protected record p is not in
		// this network, yet its entry's link is withheld here too.
		{"protected record of another network", "cross", CoverageAvailable, []string{"un:QDe.7"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _, _, _ := testNetworks()
			net, err := n.Network(context.Background(), tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			sn := net.SanctionsNetwork
			var got []string
			for _, m := range sn.Members {
				got = append(got, m.EntityID)
				if strings.Contains(strings.ToLower(m.Quoted), "protected") {
					t.Errorf("member %+v quotes a protected entry", m)
				}
			}
			if sn.Coverage != tt.coverage || !slices.Equal(got, tt.members) || sn.Withheld != tt.withheld {
				t.Errorf("sanctions network = %+v, want %s members %v withheld %d", sn, tt.coverage, tt.members, tt.withheld)
			}
		})
	}
}

// TestSanctionsNetworkAliases checks that a record is found listed by its
// entity name or an alias against an entry's primary name or alias, exactly
// (the graph mirror's records carry no aliases: they are read from the
// registry of record), and that an incomplete lookup is never a clean
// result.
func TestSanctionsNetworkAliases(t *testing.T) {
	tests := []struct {
		name     string
		slug     string
		setup    func(n *Networks, g *memGraph, s *memSanctions)
		coverage string
		member   string // EntityID of the only member
		listed   string // its ListedEntryID
		entity   string // its ClusterEntity
	}{
		{"alias on the entry side", "entry-alias", nil, CoverageAvailable, "un:QDe.1", "un:listedentity", "entry-alias"},
		{"alias on the record side, reached through the graph", "demo-w", nil, CoverageAvailable, "un:QDe.3", "un:aliasedentry", "record-alias"},
		{"alias on the record side, named by the slug", "record-alias", nil, CoverageAvailable, "un:QDe.3", "un:aliasedentry", "record-alias"},
		{"record-side alias without the screener (graph primary names)", "demo-w",
			func(n *Networks, _ *memGraph, _ *memSanctions) { n.Names = nil }, CoverageAvailable, "un:QDe.3", "un:aliasedentry", "record-alias"},
		{"entry missing from the graph", "entry-alias",
			func(_ *Networks, _ *memGraph, s *memSanctions) { s.missing = []string{"un:listedentity"} }, CoverageUnavailable, "", "", ""},
		{"record's list not loaded in the screener", "entry-alias",
			func(n *Networks, _ *memGraph, s *memSanctions) { n.Names = &memNames{s: s} }, CoverageUnavailable, "", "", ""},
		{"registry of record unreachable for the aliases", "demo-w",
			func(n *Networks, _ *memGraph, _ *memSanctions) { n.Records = failingRecords{} }, CoverageUnavailable, "", "", ""},
		{"no alias match is no substring match", "unlisted", nil, CoverageNoLinks, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, g, s, _ := testNetworks()
			g.mirror = true
			if tt.setup != nil {
				tt.setup(n, g, s)
			}
			net, err := n.Network(context.Background(), tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			sn := net.SanctionsNetwork
			if sn.Coverage != tt.coverage || sn.Degraded != (tt.coverage == CoverageUnavailable) {
				t.Fatalf("Network(%s).SanctionsNetwork = %+v, want %s", tt.slug, sn, tt.coverage)
			}
			if tt.member != "" && (len(sn.Members) != 1 || sn.Members[0].EntityID != tt.member ||
				sn.Members[0].ListedEntryID != tt.listed || sn.Members[0].ClusterEntity != tt.entity) {
				t.Errorf("Network(%s) members = %+v, want %s under %s for %s", tt.slug, sn.Members, tt.member, tt.listed, tt.entity)
			}
		})
	}
}

// TestSanctionsNetworkProtectedAlias checks that a protected record listed
// under an alias has its entry withheld from other networks too.
func TestSanctionsNetworkProtectedAlias(t *testing.T) {
	n, g, _, _ := testNetworks()
	g.mirror = true
	for i, r := range g.recs {
		if r.ID == "p" { // the protected record, now listed by an alias only
			g.recs[i].EntityName, g.recs[i].Aliases = "Protected Renamed", []string{"Protected Entity"}
		}
	}
	net, err := n.Network(context.Background(), "cross")
	if err != nil {
		t.Fatal(err)
	}
	sn := net.SanctionsNetwork
	if sn.Coverage != CoverageAvailable || len(sn.Members) != 1 || sn.Members[0].EntityID != "un:QDe.7" || sn.Withheld != 1 {
		t.Errorf("Network(cross).SanctionsNetwork = %+v, want un:QDe.7 only and 1 withheld", sn)
	}
}

type failingRecords struct{}

func (failingRecords) RecordsByID(context.Context, []string) ([]Record, error) {
	return nil, errors.New("postgres down")
}

// TestSanctionsNetworkProtectedSharedEntry: an unprotected record listed
// under the same entry as a protected record (here by an alias) must not
// publish that entry's links: they are the protected entity's links.
func TestSanctionsNetworkProtectedSharedEntry(t *testing.T) {
	n, g, _, _ := testNetworks()
	g.recs = append(g.recs,
		Record{ID: "se", Slug: "shared-entry", EntityName: "Shared Entry Trading", Aliases: []string{"Protected Entity"}, Severity: Confirmed,
			Group: "sharedentry", GroupID: "g11", SanctionsSource: "un"},
		Record{ID: "se2", Slug: "demo-se", EntityName: "Demo SE", Severity: Likely, Group: "sharedentry", GroupID: "g11"})
	net, err := n.Network(context.Background(), "sharedentry")
	if err != nil {
		t.Fatal(err)
	}
	sn := net.SanctionsNetwork
	for _, m := range sn.Members {
		if m.ListedEntryID == "un:protectedentity" {
			t.Errorf("member %+v published: a link of the protected record's entry", m)
		}
	}
	if sn.Coverage != CoverageWithheld || sn.Withheld != 1 {
		t.Errorf("sanctions network = %+v, want withheld, 1 withheld", sn)
	}
}

// TestSanctionsNetworkProtectedUnsourced: a protected record not sourced
// from a sanctions list is still listed by its name; its entry is withheld
// wherever it appears, in its own network or another.
func TestSanctionsNetworkProtectedUnsourced(t *testing.T) {
	n, g, _, _ := testNetworks()
	for i, r := range g.recs {
		if r.ID == "p" {
			g.recs[i].SanctionsSource = ""
		}
	}
	net, err := n.Network(context.Background(), "cross")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range net.SanctionsNetwork.Members {
		if m.EntityID == "un:protectedentity" {
			t.Errorf("member %+v published: the protected record's entry", m)
		}
	}
	if sn := net.SanctionsNetwork; sn.Withheld != 1 {
		t.Errorf("sanctions network = %+v, want 1 withheld", sn)
	}
}

// staleNames is a screener whose index predates an entry the graph holds
// (its rebuild runs up to SANCTIONS_RELOAD_INTERVAL later, or failed).
type staleNames struct {
	*memNames
	unknown string // the key of the entry it does not hold yet
}

func (s staleNames) ExactListed(names []string) []string {
	var out []string
	for _, id := range s.memNames.ExactListed(names) {
		if id != "un:"+s.unknown {
			out = append(out, id)
		}
	}
	return out
}

// TestSanctionsNetworkStaleScreener: an entry the graph holds under the
// record's own name is found even when the in-process screener has not
// indexed it yet: never a clean no_links_recorded (the graph was the only
// source before the screener was consulted for aliases).
func TestSanctionsNetworkStaleScreener(t *testing.T) {
	n, _, s, _ := testNetworks()
	n.Names = staleNames{memNames: &memNames{s: s, loaded: map[string]bool{"un": true}}, unknown: "listedentity"}
	net, err := n.Network(context.Background(), "listed")
	if err != nil {
		t.Fatal(err)
	}
	if sn := net.SanctionsNetwork; sn.Coverage != CoverageAvailable || len(sn.Members) != 1 || sn.Members[0].EntityID != "un:QDe.1" {
		t.Errorf("sanctions network with a screener behind the graph = %+v, want un:QDe.1", sn)
	}
}
