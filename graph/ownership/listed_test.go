package ownership

import (
	"errors"
	"sync"
	"testing"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/sanctionstest"
)

var (
	realOnce     sync.Once
	realScreener *sanctions.Screener
	realErr      error
)

// screenerWithRealLists returns a screener over the 8 real lists of the
// shared data set, or skips t when the data is absent.
func screenerWithRealLists(t *testing.T) *sanctions.Screener {
	t.Helper()
	realOnce.Do(func() {
		dir, err := sanctionstest.Dir()
		if err != nil {
			realErr = err
			return
		}
		lists, err := sanctionstest.LoadAll(dir)
		if err != nil {
			realErr = err
			return
		}
		var states []sanctions.ListState
		for _, l := range graph.SanctionsLists {
			states = append(states, sanctions.ListState{ID: l.ID, Rows: len(lists[l.ID])})
		}
		realScreener = &sanctions.Screener{}
		realScreener.Replace(states, lists.All())
	})
	if errors.Is(realErr, sanctionstest.ErrNoData) {
		t.Skipf("skipping: %v", realErr)
	}
	if realErr != nil {
		t.Fatal(realErr)
	}
	return realScreener
}

// TestScreenWithRealLists runs the OFAC 50% rule with the production
// predicate over the real lists: a hand-built structure under the listed
// National Iranian Oil Company (OFAC SDN 11317) and Nicolas Maduro Moros
// (SDN 22790, identified by his cedula).
func TestScreenWithRealLists(t *testing.T) {
	s := screenerWithRealLists(t)
	sub := Subgraph{Root: "Y", MaxHops: 3,
		Nodes: []Node{
			{ID: "NIOC", Kind: Company, Name: "National Iranian Oil Company", Jurisdiction: "IR"},
			// A person is confirmed listed only by an identifier (his
			// Venezuelan cedula, from the SDN remarks), never by name alone.
			{ID: "MM", Kind: Person, Name: "Nicolas Maduro Moros", Jurisdiction: "VE", Identifiers: []Identifier{{Scheme: "cedula", ID: "5892464"}}},
			{ID: "X", Kind: Company, Name: "Zeta Quartz Lubricants Holdings"},
			{ID: "Y", Kind: Company, Name: "Omicron Vellum Shipping Services"},
			{ID: "P", Kind: Person, Name: "Wilhelmina Q. Zastrow-Pennyfeather"},
		},
	}
	owns := func(from, to string, pct float64) Edge {
		return Edge{Key: EdgeKey(Owns, from, to, ""), Relation: Owns, From: from, To: to, Pct: &pct}
	}
	sub.Edges = []Edge{owns("NIOC", "X", 30), owns("MM", "X", 20), owns("X", "Y", 50), owns("P", "Y", 50),
		{Key: EdgeKey(Controls, "MM", "Y", BoardAppointment), Relation: Controls, From: "MM", To: "Y", Role: BoardAppointment}}
	ex := Screen(sub, "Y", ScreenerPredicate(s))
	if ex.Status != Blocked || ex.Degraded {
		t.Fatalf("Y status = %s degraded %v, want blocked (X is blocked by 30%% + 20%%, and owns 50%% of Y)", ex.Status, ex.Degraded)
	}
	got := map[string]string{}
	for _, n := range ex.Nodes {
		got[n.Node.ID] = n.Status
		if n.Node.ID == "NIOC" {
			found := false
			for _, l := range n.Listings {
				found = found || (l.EntryID == "us_sdn:11317" && l.Confirmed)
			}
			if !found {
				t.Errorf("NIOC listings %+v lack a confirmed us_sdn:11317", n.Listings)
			}
		}
	}
	want := map[string]string{"NIOC": Blocked, "MM": Blocked, "X": Blocked, "Y": Blocked}
	if len(got) != len(want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("%s status = %s, want %s", id, got[id], st)
		}
	}
	// MM reaches Y by ownership (through X) and by control: not control-only.
	if len(ex.ControlOnly) != 0 {
		t.Errorf("control only = %v, want none", ex.ControlOnly)
	}
}

// A person whose name is exactly a listed person's is possibly listed, not
// confirmed, without a matching identifier; companies are confirmed by an
// exact name as before.
func TestScreenerPredicateConfirmation(t *testing.T) {
	pred := ScreenerPredicate(screenerWithRealLists(t))
	tests := []struct {
		name      string
		node      Node
		entry     string
		confirmed bool
	}{
		{"person, exact name, no identifier", Node{ID: "MM", Kind: Person, Name: "Nicolas Maduro Moros", Jurisdiction: "VE"}, "us_sdn:22790", false},
		{"person, exact name and identifier", Node{ID: "MM", Kind: Person, Name: "Nicolas Maduro Moros", Jurisdiction: "VE",
			Identifiers: []Identifier{{Scheme: "cedula", ID: "5892464"}}}, "us_sdn:22790", true},
		{"company, exact name", Node{ID: "NIOC", Kind: Company, Name: "National Iranian Oil Company", Jurisdiction: "IR"}, "us_sdn:11317", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pred(tt.node)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range c.Listings {
				if l.EntryID == tt.entry {
					found = true
					if l.Confirmed != tt.confirmed {
						t.Errorf("%s confirmed = %v (%s), want %v", l.EntryID, l.Confirmed, l.Reason, tt.confirmed)
					}
				}
			}
			if !found {
				t.Errorf("listings %+v lack %s", c.Listings, tt.entry)
			}
		})
	}
}
