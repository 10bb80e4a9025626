package sanctions_test

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/sanctionstest"
)

// latencyMix is the query mix the latency harness times, by class.
func latencyMix(tb testing.TB) map[string][]sanctions.Query {
	loadShared(tb)
	mix := map[string][]sanctions.Query{}
	for _, s := range shared.LatencyMix() {
		mix[s.Name] = s.Queries
	}
	return mix
}

// TestSearchLatency times every query of the latency mix (yente's sets
// with their qualifiers, and names with a typo in every word that share no
// exact token with any listed name: over 5,000 queries) one at a time
// against every list, at the default threshold and limit, and prints p50,
// p90, p99 and max per class and overall. It holds the overall and the
// no-shared-token p50 under 1 ms and p99 under 5 ms (the issue's
// targets); under the race detector it only reports.
func TestSearchLatency(t *testing.T) {
	if os.Getenv("COMPLIANCE_BENCH") != "1" {
		t.Skip("a timing: run by scripts/bench (COMPLIANCE_BENCH=1), not by the test suite")
	}
	loadShared(t)
	mix := shared.LatencyMix()
	check := func(r sanctionstest.LatencyReport) []string {
		var fails []string
		for _, c := range []sanctionstest.LatencyClass{r.All(), r.Class("typo_every_token")} {
			if p := c.Pct(.5); p > time.Millisecond {
				fails = append(fails, fmt.Sprintf("p50(%s) = %s, want under 1ms", c.Name, p))
			}
			if p := c.Pct(.99); p > 5*time.Millisecond {
				fails = append(fails, fmt.Sprintf("p99(%s) = %s, want under 5ms", c.Name, p))
			}
		}
		return fails
	}
	runtime.GC()
	r := sanctionstest.Latency(shared.ix, mix)
	t.Logf("Search latency, one query at a time, %d entries:\n%s", len(shared.all), r)
	if n := len(r.All().Times); n < 2000 {
		t.Errorf("timed %d queries, want at least 2000", n)
	}
	if raceEnabled {
		t.Log("race detector on: latency targets not asserted")
		return
	}
	fails := check(r)
	if len(fails) > 0 {
		// A shared machine can stall a run; one more decides.
		t.Logf("over target (%s); measuring again", strings.Join(fails, "; "))
		runtime.GC()
		r = sanctionstest.Latency(shared.ix, mix)
		t.Logf("again:\n%s", r)
		fails = check(r)
	}
	for _, f := range fails {
		t.Error(f)
	}
}

// BenchmarkSearch times Search per query class against every list.
func BenchmarkSearch(b *testing.B) {
	mix := latencyMix(b)
	for _, c := range []string{"un_untreated", "un_treated", "neg_global", "us_congress", "typo_every_token"} {
		qs := mix[c]
		b.Run(c, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				shared.ix.Search(qs[i%len(qs)])
				i++
			}
		})
	}
}

// BenchmarkSearchParallel times Search from all cores at once.
func BenchmarkSearchParallel(b *testing.B) {
	mix := latencyMix(b)
	qs := append(slices.Clone(mix["un_treated"]), mix["neg_us"]...)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			shared.ix.Search(qs[i%len(qs)])
			i++
		}
	})
}

// BenchmarkNewIndex times building the index over every list.
func BenchmarkNewIndex(b *testing.B) {
	loadShared(b)
	b.ReportAllocs()
	for b.Loop() {
		sanctions.NewIndex(shared.all)
	}
}
