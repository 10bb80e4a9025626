package sanctions

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// StaleAfter is the age past which a list's snapshot is flagged stale.
const StaleAfter = 48 * time.Hour

// ListState is one covered list as the screener holds it.
type ListState struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	SnapshotID string    `json:"snapshot_id,omitempty"`
	Source     string    `json:"source,omitempty"`
	Published  time.Time `json:"published,omitzero"`   // as the source states it
	IngestedAt time.Time `json:"ingested_at,omitzero"` // when this snapshot was taken
	CheckedAt  time.Time `json:"checked_at,omitzero"`  // last time the source was seen unchanged, if later
	Rows       int       `json:"rows"`
	SHA256     string    `json:"sha256,omitempty"`
	// StaleHours is the snapshot's age in hours once past 48, else nil.
	StaleHours *int `json:"stale_hours"`
	// Loaded is false when the list has no usable snapshot: it was never
	// ingested or its snapshot is empty.
	Loaded bool `json:"loaded"`
}

// Screener holds the match index over the current snapshot of every list
// and answers screenings with their coverage. It is safe for concurrent use;
// Replace swaps the index atomically.
type Screener struct {
	Now func() time.Time

	mu    sync.RWMutex
	idx   *Index
	lists map[string]ListState
}

func (s *Screener) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Replace builds an index over entries and makes it current, with states
// describing each list's snapshot. Lists without a state are reported as
// not loaded.
func (s *Screener) Replace(states []ListState, entries []Entry) {
	idx := NewIndex(entries)
	m := map[string]ListState{}
	for _, st := range states {
		st.Loaded = st.Rows > 0
		m[st.ID] = st
	}
	s.mu.Lock()
	s.idx, s.lists = idx, m
	s.mu.Unlock()
}

// Lists returns the state of each of the 8 covered lists, in the order of
// graph.SanctionsLists, with staleness computed now.
func (s *Screener) Lists() []ListState {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := s.now()
	out := make([]ListState, 0, len(graph.SanctionsLists))
	for _, l := range graph.SanctionsLists {
		st, ok := s.lists[l.ID]
		if !ok {
			st = ListState{ID: l.ID}
		}
		st.Name = l.Name
		st.StaleHours = staleHours(st, now)
		out = append(out, st)
	}
	return out
}

func staleHours(st ListState, now time.Time) *int {
	if !st.Loaded {
		return nil
	}
	fresh := st.IngestedAt
	if st.CheckedAt.After(fresh) {
		fresh = st.CheckedAt
	}
	if age := now.Sub(fresh); age > StaleAfter {
		h := int(age.Hours())
		return &h
	}
	return nil
}

// Screening is the answer to one screening question.
type Screening struct {
	Matches []Match `json:"matches"`
	// Coverage is "complete" (every list screened), "partial" (some lists
	// have no snapshot: they are named in ListsMissing) or "unavailable"
	// (no list could be screened).
	Coverage      string   `json:"coverage"`
	Degraded      bool     `json:"degraded"`
	ListsScreened []string `json:"lists_screened"`
	ListsMissing  []string `json:"lists_missing"`
	// StaleHours is the age of the oldest screened snapshot once past 48
	// hours; it qualifies the answer without withholding it.
	StaleHours *int     `json:"stale_hours"`
	Threshold  float64  `json:"threshold"`
	Caveats    []string `json:"caveats"`
}

// Degraded-result caveat.
const CaveatDegraded = "Degraded: not every sanctions list could be screened, so the absence of a match is not evidence of absence and must not be recorded as a clean screen."

// Screen answers q against the current index. It fails with invalid naming
// name when the query has no name, IMO number or identifier. Lists without
// a snapshot make the answer partial or unavailable and degraded: never a
// clean result.
func (s *Screener) Screen(q Query) (Screening, error) {
	if strings.TrimSpace(q.Name) == "" && strings.TrimSpace(q.IMO) == "" && len(q.Identifiers) == 0 {
		return Screening{}, graph.Invalid("name", "name is required (or an IMO number or identifier)")
	}
	if q.Threshold < 0 || q.Threshold > 1 {
		return Screening{}, graph.Invalid("threshold", "threshold must be between 0 and 1")
	}
	s.mu.RLock()
	idx := s.idx
	s.mu.RUnlock()
	out := Screening{Matches: []Match{}, ListsScreened: []string{}, ListsMissing: []string{}, Threshold: q.Threshold}
	if out.Threshold == 0 {
		out.Threshold = DefaultThreshold
	}
	var oldest *int
	for _, l := range s.Lists() {
		if !l.Loaded {
			out.ListsMissing = append(out.ListsMissing, l.ID)
			continue
		}
		out.ListsScreened = append(out.ListsScreened, l.ID)
		if l.StaleHours != nil && (oldest == nil || *l.StaleHours > *oldest) {
			oldest = l.StaleHours
		}
	}
	out.StaleHours = oldest
	switch {
	case idx == nil || len(out.ListsScreened) == 0:
		out.Coverage, out.Degraded = "unavailable", true
	case len(out.ListsMissing) > 0:
		out.Coverage, out.Degraded = "partial", true
	default:
		out.Coverage = "complete"
	}
	if idx != nil {
		out.Matches = append(out.Matches, idx.Search(q)...)
	}
	out.Caveats = graph.ServiceCoverage().Caveats
	if out.Degraded {
		out.Caveats = append([]string{CaveatDegraded}, out.Caveats...)
	}
	return out, nil
}

// UpdateStates refreshes the lists' states (check times, staleness) without
// rebuilding the index; states for other snapshots than the indexed ones
// are ignored.
func (s *Screener) UpdateStates(states []ListState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range states {
		if cur, ok := s.lists[st.ID]; ok && cur.SnapshotID == st.SnapshotID {
			st.Loaded = st.Rows > 0
			s.lists[st.ID] = st
		}
	}
}

// ExactListed returns the ids ("<list>:<source_id>") of the entries, of
// every loaded list, one of whose names (primary or alias) has the
// normalized key (NormalizeKey) of one of names: exact equality on both
// sides, never fuzzy or substring, so the answer is deterministic. The ids
// are sorted and distinct; none when no index is loaded.
func (s *Screener) ExactListed(names []string) []string {
	s.mu.RLock()
	idx := s.idx
	s.mu.RUnlock()
	if idx == nil {
		return nil
	}
	var out []string
	for _, n := range names {
		for _, e := range idx.ExactKey(NormalizeKey(n)) {
			if id := e.List + ":" + e.SourceID; e.SourceID != "" && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ListLoaded reports whether list has a usable snapshot in the index.
func (s *Screener) ListLoaded(list string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx != nil && s.lists[list].Loaded
}
