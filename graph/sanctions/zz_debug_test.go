package sanctions_test

import (
	"testing"

	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/sanctionstest"
)

func TestZZDebug(t *testing.T) {
	loadShared(t)
	latinOnly, _, fw, _ := sanctionstest.CrossScript(shared.all)
	ix := sanctions.NewIndex(latinOnly)
	for _, s := range fw {
		if s.Name != "arabic→latin person" {
			continue
		}
		n := 0
		for i, q := range s.Queries {
			q.Threshold = 0.3
			q.Limit = 500
			for _, m := range ix.Search(q) {
				if m.Entry.List+":"+m.Entry.SourceID == s.Expect[i][0] && m.Score < 0.8 {
					t.Logf("%.3f %q [%s] → %q %s", m.Score, q.Name, sanctions.Normalize(q.Name), m.Explanation.MatchedName, m.Explanation.Tokens)
					n++
				}
			}
			if n > 45 {
				break
			}
		}
	}
}
