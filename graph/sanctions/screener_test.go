package sanctions

import (
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

func TestScreenerCoverage(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	entries := []Entry{{List: ListUSSDN, SourceID: "1", Kind: Entity, Name: "ALPHA PETROLEUM TRADING LLC"}}
	all := func(age time.Duration) []ListState {
		var st []ListState
		for _, l := range graph.SanctionsLists {
			st = append(st, ListState{ID: l.ID, Rows: 10, IngestedAt: now.Add(-age)})
		}
		return st
	}
	tests := []struct {
		name         string
		states       []ListState
		replace      bool
		wantCoverage string
		wantDegraded bool
		wantMissing  int
		wantStale    bool
	}{
		{"nothing loaded", nil, false, "unavailable", true, 8, false},
		{"all loaded, fresh", all(time.Hour), true, "complete", false, 0, false},
		{"all loaded, stale", all(72 * time.Hour), true, "complete", false, 0, true},
		{"one list missing", all(time.Hour)[1:], true, "partial", true, 1, false},
		{"one list empty", append(all(time.Hour)[1:], ListState{ID: ListUSSDN, Rows: 0, IngestedAt: now}), true, "partial", true, 1, false},
		{"no list has rows", []ListState{{ID: ListUN, Rows: 0}}, true, "unavailable", true, 8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Screener{Now: func() time.Time { return now }}
			if tt.replace {
				s.Replace(tt.states, entries)
			}
			got, err := s.Screen(Query{Name: "Alpha Petroleum Trading"})
			if err != nil {
				t.Fatal(err)
			}
			if got.Coverage != tt.wantCoverage || got.Degraded != tt.wantDegraded || len(got.ListsMissing) != tt.wantMissing || (got.StaleHours != nil) != tt.wantStale {
				t.Errorf("Screen() coverage=%s degraded=%v missing=%v stale=%v; want %s %v %d stale=%v",
					got.Coverage, got.Degraded, got.ListsMissing, got.StaleHours, tt.wantCoverage, tt.wantDegraded, tt.wantMissing, tt.wantStale)
			}
			if got.Degraded && (len(got.Caveats) == 0 || got.Caveats[0] != CaveatDegraded) {
				t.Errorf("a degraded answer must lead with the degraded caveat: %v", got.Caveats)
			}
			if len(got.Caveats) < 2 {
				t.Errorf("caveats = %v, want the coverage statement", got.Caveats)
			}
		})
	}
}

func TestScreenerRejectsEmptyQuery(t *testing.T) {
	s := &Screener{}
	for _, q := range []Query{{}, {Name: "   "}, {Name: "x", Threshold: 1.5}} {
		if _, err := s.Screen(q); graph.ErrorCode(err) != graph.CodeInvalid {
			t.Errorf("Screen(%+v) error = %v, want invalid", q, err)
		}
	}
}
