package sanctions

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// QualitySet is a labelled set of screening queries.
type QualitySet struct {
	Name string
	// Positive sets should match (their rate is recall); other sets should
	// not (their rate is the false-positive rate).
	Positive bool
	Queries  []Query
	// Expect, when set (one element per query), lists the entries a
	// positive query must find, as "list:source_id"; a match of another
	// entry does not count. Empty: any match counts.
	Expect [][]string
}

// QualityReportResult is the outcome of QualityReport: for each threshold,
// the share of each set's queries with a match at or above it.
type QualityReportResult struct {
	Sets       []QualitySet
	Thresholds []float64
	Rates      [][]float64 // [threshold][set]
	Default    float64     // DefaultThreshold
	// AtDefault lists, per set, the queries on the wrong side at
	// DefaultThreshold (positives missed, negatives matched), with the best
	// (expected) match, found at threshold 0.3 for a miss.
	AtDefault [][]QualityMiss
	Elapsed   time.Duration
	Queries   int
}

// QualityMiss is a query on the wrong side of the default threshold.
type QualityMiss struct {
	Query Query
	Best  *Match // nil when nothing scored even at 0.3
}

// DefaultSweep is the threshold sweep QualityReport uses when given none.
var DefaultSweep = []float64{0.70, 0.72, 0.74, 0.76, 0.78, 0.80, 0.82, 0.84, 0.86, 0.88, 0.90}

// QualityReport runs every query of sets against ix at each threshold of
// the sweep (DefaultSweep when thresholds is empty; DefaultThreshold is
// always added), exactly as Search runs at that threshold, and returns
// each set's match rate per threshold. Queries run on GOMAXPROCS
// goroutines. It never fails; an empty set has rate 0.
func QualityReport(ix *Index, sets []QualitySet, thresholds []float64) QualityReportResult {
	if len(thresholds) == 0 {
		thresholds = DefaultSweep
	}
	thresholds = slices.Clone(thresholds)
	if !slices.Contains(thresholds, DefaultThreshold) {
		thresholds = append(thresholds, DefaultThreshold)
	}
	slices.Sort(thresholds)
	thresholds = slices.Compact(thresholds)
	res := QualityReportResult{Sets: sets, Thresholds: thresholds, Default: DefaultThreshold}
	start := time.Now()
	res.Rates = make([][]float64, len(thresholds))
	res.AtDefault = make([][]QualityMiss, len(sets))
	for ti, t := range thresholds {
		res.Rates[ti] = make([]float64, len(sets))
		for si, set := range sets {
			hits := make([]*Match, len(set.Queries)) // the best expected match, nil when none
			parallel(len(set.Queries), func(qi int) {
				q := set.Queries[qi]
				q.Threshold = t
				q.Limit = 50
				var want []string
				if qi < len(set.Expect) {
					want = set.Expect[qi]
				}
				for _, m := range ix.Search(q) {
					if len(want) == 0 || slices.Contains(want, m.Entry.List+":"+m.Entry.SourceID) {
						hits[qi] = &m
						break
					}
				}
			})
			res.Queries += len(set.Queries)
			n := 0
			for _, h := range hits {
				if h != nil {
					n++
				}
			}
			if len(hits) > 0 {
				res.Rates[ti][si] = float64(n) / float64(len(hits))
			}
			if t != DefaultThreshold {
				continue
			}
			for qi, h := range hits {
				if (h != nil) == set.Positive {
					continue
				}
				miss := QualityMiss{Query: set.Queries[qi], Best: h}
				if h == nil {
					// the best match below the threshold, for the report
					q := set.Queries[qi]
					q.Threshold, q.Limit = 0.3, 50
					for _, m := range ix.Search(q) {
						var want []string
						if qi < len(set.Expect) {
							want = set.Expect[qi]
						}
						if len(want) == 0 || slices.Contains(want, m.Entry.List+":"+m.Entry.SourceID) {
							miss.Best = &m
							break
						}
					}
				}
				res.AtDefault[si] = append(res.AtDefault[si], miss)
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res
}

// parallel calls f(0..n-1) on GOMAXPROCS goroutines.
func parallel(n int, f func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// Rate returns the rate of the named set at threshold t, and false when
// either is not in the report.
func (r QualityReportResult) Rate(set string, t float64) (float64, bool) {
	ti := slices.Index(r.Thresholds, t)
	for si, s := range r.Sets {
		if s.Name == set && ti >= 0 {
			return r.Rates[ti][si], true
		}
	}
	return 0, false
}

// String prints the sweep as a table: one row per threshold, one column
// per set (recall for positive sets, false-positive rate for the others),
// the default threshold marked with *.
func (r QualityReportResult) String() string {
	var b strings.Builder
	heads := make([]string, len(r.Sets))
	for i, s := range r.Sets {
		kind := "FP"
		if s.Positive {
			kind = "recall"
		}
		heads[i] = fmt.Sprintf("%s %s n=%d", s.Name, kind, len(s.Queries))
	}
	fmt.Fprintf(&b, "%-10s", "threshold")
	for _, h := range heads {
		fmt.Fprintf(&b, " | %s", h)
	}
	b.WriteByte('\n')
	for ti, t := range r.Thresholds {
		mark := " "
		if t == r.Default {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s%-9.2f", mark, t)
		for si := range r.Sets {
			fmt.Fprintf(&b, " | %*.4f", max(len(heads[si]), 6), r.Rates[ti][si])
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d searches (each set at each threshold, limit 50) in %s\n", r.Queries, r.Elapsed.Round(time.Millisecond))
	return b.String()
}

// MissesString prints the queries on the wrong side of the default
// threshold, at most max per set.
func (r QualityReportResult) MissesString(max int) string {
	var b strings.Builder
	for si, s := range r.Sets {
		ms := r.AtDefault[si]
		if len(ms) == 0 {
			continue
		}
		what := "matched"
		if s.Positive {
			what = "missed"
		}
		fmt.Fprintf(&b, "%s: %d %s\n", s.Name, len(ms), what)
		for i, m := range ms {
			if i == max {
				fmt.Fprintf(&b, "  ...\n")
				break
			}
			fmt.Fprintf(&b, "  %q dob=%s country=%s", m.Query.Name, m.Query.DOB, m.Query.Country)
			if m.Best != nil {
				fmt.Fprintf(&b, " → %.3f %s:%s %q %v", m.Best.Score, m.Best.Entry.List, m.Best.Entry.SourceID,
					m.Best.Explanation.MatchedName, m.Best.Explanation.Map())
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}
