package sanctions

import "testing"

func TestZZDebug2(t *testing.T) {
	ix := NewIndex([]Entry{{List: "un", SourceID: "1", Kind: Person, Name: "ABDUL GHANI BARADAR ABDUL AHMAD TURK"}, {List: "un", SourceID: "2", Kind: Person, Name: "RAHMATULLAH KAKAZADA"}})
	for _, q := range []string{"عبدالغنی برادر عبد الاحمد ترک", "رحمت الله کاکا زاده"} {
		ms := ix.Search(Query{Name: q, Threshold: 0.1})
		for _, m := range ms {
			t.Logf("  %.3f %s %s", m.Score, m.Explanation.MatchedName, m.Explanation.Tokens)
		}
	}
}
