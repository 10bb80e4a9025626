package ownership

import (
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// ListedThreshold is the score from which ScreenerPredicate reports a
// listing: the screener's own default (sanctions.DefaultThreshold, 0.80).
const ListedThreshold = sanctions.DefaultThreshold

// ScreenerPredicate returns the production sanctions predicate: each node
// is screened with the in-process screener over the 8 lists (name, kind,
// jurisdiction as country, identifiers). A match is Confirmed when an
// identifier matched, or, for a company, trust or vessel, when the listed
// name (primary or alias) has the same normalized key as the node's name
// (sanctions.NormalizeKey: exact, never a substring). A person's exact
// name alone is not confirmation (people share names): it is reported
// unconfirmed, as is a fuzzy match at or above ListedThreshold; an
// unconfirmed listing makes the node possibly blocked, never blocked. The screener's degraded coverage (lists missing) makes the
// check Degraded.
//
// Why the screener rather than exact names in the graph (graphdb
// ListedByName): it is in memory (no round trip per node, which matters
// with 200 nodes per root), it knows aliases, transliterations and
// identifiers, and it reports coverage, so a missing list degrades the
// answer instead of passing as a clean screen.
func ScreenerPredicate(s *sanctions.Screener) Predicate {
	return func(n Node) (Check, error) {
		q := sanctions.Query{Name: n.Name, Country: n.Jurisdiction, Kind: screenKind(n.Kind), Threshold: ListedThreshold}
		for _, id := range n.Identifiers {
			q.Identifiers = append(q.Identifiers, id.ID)
		}
		res, err := s.Screen(q)
		if err != nil {
			return Check{}, err
		}
		c := Check{Degraded: res.Degraded}
		key := sanctions.NormalizeKey(n.Name)
		for _, m := range res.Matches {
			l := Listing{
				List: m.Entry.List, EntryID: m.Entry.List + ":" + m.Entry.SourceID, Name: m.Entry.Name,
				Score: m.Score, Reason: "fuzzy name match " + m.Explanation.NameType,
			}
			exact := key != "" && sanctions.NormalizeKey(m.Explanation.MatchedName) == key
			switch {
			case hasFeature(m.Explanation, "identifier"):
				l.Confirmed, l.Reason = true, "identifier"
			case exact && n.Kind == Person:
				l.Reason = "exact normalized name (" + m.Explanation.NameType + ") of a person without a matching identifier: a namesake is possible, not confirmed"
			case exact:
				l.Confirmed, l.Reason = true, "exact normalized name ("+m.Explanation.NameType+")"
			}
			c.Listings = append(c.Listings, l)
		}
		return c, nil
	}
}

func hasFeature(e sanctions.Explanation, name string) bool {
	for _, f := range e.Features {
		if f.Name == name && f.Delta > 0 {
			return true
		}
	}
	return false
}

// screenKind maps a node kind to the sanctions kind screened against.
func screenKind(k Kind) sanctions.Kind {
	switch k {
	case Person:
		return sanctions.Person
	case Vessel:
		return sanctions.Vessel
	}
	return sanctions.Entity
}
