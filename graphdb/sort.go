package graphdb

import (
	"cmp"
	"slices"
)

// Results are sorted in Go: NornicDB ignores ORDER BY after UNWIND
// (README, "The local Bolt server").

func sortLinked(s []LinkedEntry) {
	slices.SortFunc(s, func(a, b LinkedEntry) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Quoted, b.Quoted))
	})
}
