package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graphdb"
)

// cmdOwnership measures the ownership graph on the Bolt server NEO4J_URI
// names (the two figures):
//
//   - O1 import: a synthetic, deterministic CSV of -edges ownership edges
//     (seeded PCG) imported with `compliance ownership import`, the CLI's own
//     code path; seconds and edges/s against 60 s;
//   - O2 effective ownership: a root with a 3-hop upstream of about 200
//     nodes with diamonds, imported the same way; -iterations runs of
//     graphdb Upstream (3 hops) plus ownership.Compute, p50/p95/p99
//     against 150 ms at p95, with a single anchored MATCH round trip
//     (graphdb Entity) as the same-run baseline.
func cmdOwnership(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("ownership", flag.ContinueOnError)
	c.register(fs, false)
	edges := fs.Int("edges", 100_000, "synthetic ownership edges to import")
	iterations := fs.Int("iterations", 200, "effective-ownership runs measured")
	seed := fs.Uint64("seed", 6, "generator seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(false); err != nil {
		return err
	}
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		return fmt.Errorf("NEO4J_URI is not set")
	}
	dir, err := os.MkdirTemp(c.logDir, "ownership")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	run := fmt.Sprintf("bench%d", time.Now().Unix())

	// O1: import.
	big := filepath.Join(dir, "edges.csv")
	nodes, err := writeSyntheticEdges(big, run, *edges, *seed)
	if err != nil {
		return err
	}
	say("ownership: importing %d synthetic edges among %d nodes through `compliance ownership import`", *edges, nodes)
	t0 := time.Now()
	if out, err := exec.CommandContext(ctx, c.bin, "ownership", "import", "--format", "csv", big).CombinedOutput(); err != nil {
		return fmt.Errorf("ownership import: %v\n%s", err, lastBytes(out))
	}
	secs := time.Since(t0).Seconds()
	say("ownership: imported in %.1f s", secs)

	// O2: effective ownership.
	eo := filepath.Join(dir, "eo.csv")
	root, eoNodes, eoEdges, err := writeEORoot(eo, run, *seed)
	if err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, c.bin, "ownership", "import", "--format", "csv", eo).CombinedOutput(); err != nil {
		return fmt.Errorf("ownership import (EO root): %v\n%s", err, lastBytes(out))
	}
	db, err := graphdb.Open(ctx, graphdb.Config{URI: uri, User: os.Getenv("NEO4J_USER"), Password: os.Getenv("NEO4J_PASSWORD"), Database: os.Getenv("NEO4J_DATABASE")})
	if err != nil {
		return err
	}
	defer db.Close(context.Background())
	sub, err := db.Upstream(ctx, root, 3)
	if err != nil {
		return err
	}
	res := ownership.Compute(sub, root, ownership.Options{})
	paths := 0
	for _, o := range res.Owners {
		paths += len(o.Paths)
	}
	say("ownership: EO root %s: upstream %d nodes, %d edges (generated %d/%d); %d person owners over %d paths, %d beneficial owners",
		root, len(sub.Nodes), len(sub.Edges), eoNodes, eoEdges, len(res.Owners), paths, len(res.BeneficialOwners))
	var eoTimes, baseTimes []time.Duration
	for i := 0; i < *iterations+10; i++ {
		t := time.Now()
		if _, err := db.Entity(ctx, root); err != nil {
			return err
		}
		b := time.Since(t)
		t = time.Now()
		sub, err := db.Upstream(ctx, root, 3)
		if err != nil {
			return err
		}
		ownership.Compute(sub, root, ownership.Options{})
		d := time.Since(t)
		if i >= 10 { // warm-up
			baseTimes = append(baseTimes, b)
			eoTimes = append(eoTimes, d)
		}
	}
	slices.Sort(eoTimes)
	slices.Sort(baseTimes)
	ms := func(ts []time.Duration, p float64) float64 {
		return float64(ts[min(len(ts)-1, int(p*float64(len(ts))))].Microseconds()) / 1000
	}
	base := fmt.Sprintf("anchored MATCH p50 %.2f ms, p95 %.2f ms", ms(baseTimes, 0.5), ms(baseTimes, 0.95))
	note := fmt.Sprintf("%d nodes / %d edges upstream; one anchored query per node within 2 hops, 8 at a time", len(sub.Nodes), len(sub.Edges))
	// The 60 s target is for 100,000 edges: a smaller import is reported
	// without a verdict, and O2 then runs on a less populated graph.
	importGoal, importTarget, importNote := Below, 60.0, "local Bolt server (NornicDB)"
	if *edges != 100000 {
		importGoal, importTarget = Info, 0
		importNote += fmt.Sprintf("; the 60 s target is for 100,000 edges, this run imported %d (no verdict), and O2 ran on that smaller graph", *edges)
	}
	return appendResults(c.out,
		Result{Section: "O1 ownership import", Name: fmt.Sprintf("import %d edges (%d nodes), CLI", *edges, nodes), Value: secs, Unit: "s", Goal: importGoal, Target: importTarget,
			Note: importNote},
		Result{Section: "O1 ownership import", Name: "import throughput", Value: float64(*edges) / secs, Unit: "edges/s", Goal: Info},
		Result{Section: "O2 effective ownership", Name: "Upstream(3 hops) + Compute p50", Value: ms(eoTimes, 0.5), Unit: "ms", Baseline: base, Goal: Info, Note: note},
		Result{Section: "O2 effective ownership", Name: "Upstream(3 hops) + Compute p95", Value: ms(eoTimes, 0.95), Unit: "ms", Baseline: base, Goal: Below, Target: 150},
		Result{Section: "O2 effective ownership", Name: "Upstream(3 hops) + Compute p99", Value: ms(eoTimes, 0.99), Unit: "ms", Baseline: base, Goal: Info},
	)
}

func lastBytes(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

const benchCSVHeader = "owner_id,owner_name,owner_kind,owned_id,owned_name,relation,pct,as_of,source\n"

// writeSyntheticEdges writes n OWNS edges: a fifth of the nodes are
// persons, the rest companies; each company gets five owners drawn from
// persons and earlier companies, with shares summing to at most 100. It
// returns the number of nodes.
func writeSyntheticEdges(path, run string, n int, seed uint64) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	w.WriteString(benchCSVHeader)
	r := rand.New(rand.NewPCG(seed, 1))
	const perCompany = 5
	companies := (n + perCompany - 1) / perCompany
	persons := companies / 4
	name := func(i int) (string, string, string) {
		if i < persons {
			return fmt.Sprintf("%s_p%d", run, i), fmt.Sprintf("Person %d %s", i, run), "person"
		}
		return fmt.Sprintf("%s_c%d", run, i-persons), fmt.Sprintf("Company %d %s", i-persons, run), "company"
	}
	written := 0
	for c := 0; c < companies && written < n; c++ {
		to, toName, _ := name(persons + c)
		used := map[int]bool{}
		left := 100.0
		for k := 0; k < perCompany && written < n; k++ {
			o := r.IntN(persons + c)
			for used[o] || o == persons+c {
				o = r.IntN(persons + c + 1)
			}
			used[o] = true
			from, fromName, kind := name(o)
			pct := float64(r.IntN(int(left/2)+1)) + 0.5
			left -= pct
			fmt.Fprintf(w, "%s,%s,%s,%s,%s,owns,%.1f,2026-01-01,bench\n", from, fromName, kind, to, toName, pct)
			written++
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return persons + companies, f.Close()
}

// writeEORoot writes a root with 6 owners, each with 6 owners, each with
// 4 or 5 owners (about 200 nodes within 3 hops), where every fifth
// third-level owner also owns a second second-level company (diamonds) and
// half the third level are persons. It returns the root id and counts.
func writeEORoot(path, run string, seed uint64) (string, int, int, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", 0, 0, err
	}
	w := bufio.NewWriter(f)
	w.WriteString(benchCSVHeader)
	r := rand.New(rand.NewPCG(seed, 2))
	root := run + "_eo_root"
	nodes, edges := 1, 0
	edge := func(from, fromName, kind, to, toName string, pct float64) {
		fmt.Fprintf(w, "%s,%s,%s,%s,%s,owns,%.2f,2026-01-01,bench\n", from, fromName, kind, to, toName, pct)
		edges++
	}
	var level2 []string
	for a := range 6 {
		l1 := fmt.Sprintf("%s_eo_%d", run, a)
		edge(l1, "EO L1 "+l1, "company", root, "EO Root "+run, 16)
		nodes++
		for b := range 6 {
			l2 := fmt.Sprintf("%s_%d", l1, b)
			edge(l2, "EO L2 "+l2, "company", l1, "", 15)
			nodes++
			level2 = append(level2, l2)
		}
	}
	for i, l2 := range level2 {
		k := 4 + i%2
		for c := range k {
			kind := "company"
			if c%2 == 0 {
				kind = "person"
			}
			l3 := fmt.Sprintf("%s_%d", l2, c)
			edge(l3, "EO L3 "+l3, kind, l2, "", float64(10+r.IntN(10)))
			nodes++
			if c == 0 && i%5 == 0 { // diamond: also owns the next second-level company
				edge(l3, "", "", level2[(i+1)%len(level2)], "", 5)
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", 0, 0, err
	}
	return root, nodes, edges, f.Close()
}
