package sanctions

import (
	"slices"
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

// ExactListed finds entries by the exact normalized key of a primary name
// or an alias, never by a fuzzy or partial match, and only while loaded.
func TestScreenerExactListed(t *testing.T) {
	s := &Screener{}
	if got := s.ExactListed([]string{"Central Bank of Iran"}); got != nil || s.ListLoaded(ListUSSDN) {
		t.Errorf("ExactListed before any load = %v, loaded %v", got, s.ListLoaded(ListUSSDN))
	}
	s.Replace([]ListState{{ID: ListUSSDN, Rows: 3}}, []Entry{
		{List: ListUSSDN, SourceID: "4632", Kind: Entity, Name: "BANK MARKAZI JOMHOURI ISLAMI IRAN", Aliases: []Alias{{Name: "CENTRAL BANK OF IRAN"}}},
		{List: ListUSSDN, SourceID: "7", Kind: Entity, Name: "ALPHA PETROLEUM TRADING LLC", Aliases: []Alias{{Name: "APT", Weak: true}}},
		{List: ListUSSDN, SourceID: "8", Kind: Person, Name: "CENTRAL BANK OF IRAN"}, // a namesake entry: both are returned
	})
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"primary name", []string{"Bank Markazi Jomhouri Islami Iran"}, []string{"us_sdn:4632"}},
		{"alias of the entry", []string{"central bank of iran"}, []string{"us_sdn:4632", "us_sdn:8"}},
		{"alias of the record", []string{"Central Bank Iran Holding", "Alpha Petroleum Trading"}, []string{"us_sdn:7"}},
		{"weak alias", []string{"A.P.T."}, []string{"us_sdn:7"}},
		{"substring is no match", []string{"Central Bank"}, nil},
		{"one letter off is no match", []string{"Central Bank of Iram"}, nil},
		{"no names", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.ExactListed(tt.names); !slices.Equal(got, tt.want) {
				t.Errorf("ExactListed(%q) = %v, want %v", tt.names, got, tt.want)
			}
		})
	}
	if !s.ListLoaded(ListUSSDN) || s.ListLoaded(ListUN) {
		t.Errorf("ListLoaded(us_sdn, un) = %v, %v, want true, false", s.ListLoaded(ListUSSDN), s.ListLoaded(ListUN))
	}
}
