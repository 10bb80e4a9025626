package sanctionstest

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph/sanctions"
)

// Loaded is every list of the shared data set, indexed, with what loading
// and building cost.
type Loaded struct {
	Dir          string
	Lists        Lists
	All          []sanctions.Entry
	Index        *sanctions.Index
	Bench        []BenchSet
	Load, Build  time.Duration
	EntriesHeap  uint64 // bytes of heap the loaded entries hold
	IndexHeap    uint64 // bytes of heap the index holds beside the entries
	TotalHeapNow uint64 // heap in use after building (entries, index and the rest of the process)
}

// Load reads every list and the benchmarks from dir and builds the index,
// measuring time and heap (after a GC) of each step.
func Load(dir string) (*Loaded, error) {
	l := &Loaded{Dir: dir}
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	var err error
	if l.Lists, err = LoadAll(dir); err != nil {
		return nil, err
	}
	l.All = l.Lists.All()
	l.Load = time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	t1 := time.Now()
	l.Index = sanctions.NewIndex(l.All)
	l.Build = time.Since(t1)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	l.EntriesHeap = m1.HeapAlloc - min(m0.HeapAlloc, m1.HeapAlloc)
	l.IndexHeap = m2.HeapAlloc - min(m1.HeapAlloc, m2.HeapAlloc)
	l.TotalHeapNow = m2.HeapAlloc
	if l.Bench, err = LoadBenchmarks(dir); err != nil {
		return nil, err
	}
	return l, nil
}

// LatencyClass is the timing of one class of queries.
type LatencyClass struct {
	Name    string
	Times   []time.Duration // one per query, in query order
	Matched int             // queries with at least one match
}

// Pct returns the p-th percentile (0 < p <= 1) of the times.
func (c LatencyClass) Pct(p float64) time.Duration { return pct(c.Times, p) }

func pct(ts []time.Duration, p float64) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

// LatencyReport is the timing of every class, one query at a time.
type LatencyReport struct {
	Classes []LatencyClass
}

// All returns every class's times together.
func (r LatencyReport) All() LatencyClass {
	all := LatencyClass{Name: "all"}
	for _, c := range r.Classes {
		all.Times = append(all.Times, c.Times...)
		all.Matched += c.Matched
	}
	return all
}

// Class returns the named class, or an empty one.
func (r LatencyReport) Class(name string) LatencyClass {
	for _, c := range r.Classes {
		if c.Name == name {
			return c
		}
	}
	return LatencyClass{Name: name}
}

// String prints p50, p90, p99 and max per class and overall.
func (r LatencyReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %6s %10s %10s %10s %10s %8s\n", "class", "n", "p50", "p90", "p99", "max", "matched")
	for _, c := range append(slices.Clone(r.Classes), r.All()) {
		fmt.Fprintf(&b, "%-18s %6d %10s %10s %10s %10s %8d\n", c.Name, len(c.Times),
			c.Pct(.5).Round(time.Microsecond), c.Pct(.9).Round(time.Microsecond),
			c.Pct(.99).Round(time.Microsecond), c.Pct(1).Round(time.Microsecond), c.Matched)
	}
	return b.String()
}

// LatencyMix returns the classes of queries the latency harness times, in
// order: yente's benchmark sets (with their qualifiers) and 600 names with a
// typo in every word that share no exact token with any listed name
// ("typo_every_token", watchman's slow path).
func (l *Loaded) LatencyMix() []BenchSet {
	mix := slices.Clone(l.Bench)
	mix = append(mix, BenchSet{Name: "typo_every_token", Positive: true, Queries: TypoQueries(l.All, 600, 8)})
	return mix
}

// Latency times every query of mix one at a time (Search at the default
// threshold and limit), after a short warm-up.
func Latency(ix *sanctions.Index, mix []BenchSet) LatencyReport {
	for _, s := range mix {
		for i, q := range s.Queries {
			if i == 20 {
				break
			}
			ix.Search(q)
		}
	}
	var r LatencyReport
	for _, s := range mix {
		c := LatencyClass{Name: s.Name}
		for _, q := range s.Queries {
			t0 := time.Now()
			ms := ix.Search(q)
			c.Times = append(c.Times, time.Since(t0))
			if len(ms) > 0 {
				c.Matched++
			}
		}
		r.Classes = append(r.Classes, c)
	}
	return r
}

// WriteReport loads every list of the shared data set in dir, builds the
// index and writes the whole measurement to w: load and build time and
// heap, yente's benchmark sweep with qualifiers and by name alone, the
// cross-script sets, and search latency percentiles. It returns the first
// load error.
func WriteReport(w io.Writer, dir string) error {
	l, err := Load(dir)
	if err != nil {
		return err
	}
	entries, names := l.Index.Len()
	fmt.Fprintf(w, "lists: %d entries (", entries)
	for i, id := range listOrder {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %d", id, len(l.Lists[id]))
	}
	fmt.Fprintf(w, "), %d names indexed\n", names)
	fmt.Fprintf(w, "load %s (%d MB heap); build %s (%d MB heap for the index); heap in use %d MB\n\n",
		l.Load.Round(time.Millisecond), l.EntriesHeap>>20, l.Build.Round(time.Millisecond), l.IndexHeap>>20, l.TotalHeapNow>>20)

	fmt.Fprintf(w, "yente benchmark, qualifiers as the files give them (dob, nationality, kind person); recall / false-positive rate:\n%s\n",
		sanctions.QualityReport(l.Index, QualitySets(l.Bench), nil))
	fmt.Fprintf(w, "the same by name alone:\n%s\n", sanctions.QualityReport(l.Index, NameOnlySets(l.Bench), nil))

	latinOnly, scriptOnly, fw, rv := CrossScript(l.All)
	sweep := []float64{0.70, 0.75, sanctions.DefaultThreshold}
	fmt.Fprintf(w, "cross-script: non-Latin alias → its entry, found by the entry's Latin names alone:\n%s\n",
		sanctions.QualityReport(sanctions.NewIndex(latinOnly), fw, sweep))
	fmt.Fprintf(w, "cross-script: Latin name → its entry, found by the entry's non-Latin names alone:\n%s\n",
		sanctions.QualityReport(sanctions.NewIndex(scriptOnly), rv, sweep))

	runtime.GC()
	fmt.Fprintf(w, "search latency, one query at a time, all lists:\n%s", Latency(l.Index, l.LatencyMix()))
	return nil
}
