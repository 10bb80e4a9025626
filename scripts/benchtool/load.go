package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// loadRun is what one load run measured.
type loadRun struct {
	label     string
	requests  int // 200s completed inside the window
	errors    int // non-200 answers and transport errors inside the window
	codes     map[int]int
	netErrs   int
	window    time.Duration
	lat       []time.Duration // sorted
	perSecond []time.Duration // p99 of each second of the window
	cpu       cpuShares
	serverCPU time.Duration // inside the window
	pgCPU     time.Duration
	auditRows int64 // rows the run added to audit_log (whole run)
	batches   int64 // estimated group-commit transactions among them
	answered  int   // every answer of the run, warm-up included
	pgXacts   int64 // transactions committed or rolled back in the database inside the window (pgStats)
	walSyncs  int64 // WAL syncs of the whole cluster inside the window (pgStats)
	perfOut   string
}

func (r loadRun) rps() float64 { return float64(r.requests) / r.window.Seconds() }

func (r loadRun) pct(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(r.lat)))
	if i >= len(r.lat) {
		i = len(r.lat) - 1
	}
	return r.lat[i]
}

// cmdLoad measures issue 3's authenticated-request target: GET
// /api/v1/keys at 64 keep-alive connections, each answer sent only after its
// audit row is committed; then the same against a server started with
// COMPLIANCE_BENCH_NO_AUDIT=true, the ceiling without auditing.
func cmdLoad(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	c.register(fs, true)
	conns := fs.Int("conns", 64, "concurrent keep-alive connections")
	warmup := fs.Duration("warmup", 3*time.Second, "warm-up before measuring")
	duration := fs.Duration("duration", 15*time.Second, "measured window")
	path := fs.String("path", "/api/v1/keys", "path to GET")
	perf := fs.Bool("perf", false, "record a system-wide `perf` CPU profile during the audited window (distorts the figures)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(true); err != nil {
		return err
	}
	ncpu := runtime.NumCPU()
	opts := loadOpts{conns: *conns, warmup: *warmup, duration: *duration, path: *path, key: c.key, ncpu: ncpu}

	opts.perf = *perf
	aud, err := runLoad(ctx, c, "audited", opts)
	if err != nil {
		return err
	}
	opts.perf = false
	ceil, err := runLoad(ctx, c, "ceiling", opts, "COMPLIANCE_BENCH_NO_AUDIT=true")
	if err != nil {
		return err
	}

	sec := "B3 authenticated request + audit row"
	cfg := fmt.Sprintf("GET %s, %d keep-alive connections, %s warm-up, %s measured", *path, *conns, *warmup, *duration)
	batchNote := "no rows"
	if aud.batches > 0 {
		batchNote = fmt.Sprintf("%d rows in about %d group commits (%.1f rows per commit, %.0f commits/s over the run)",
			aud.auditRows, aud.batches, float64(aud.auditRows)/float64(aud.batches), float64(aud.batches)/(*warmup+*duration).Seconds())
	}
	rs := []Result{
		{Section: sec, Name: "audited: throughput", Value: aud.rps(), Unit: "req/s",
			Baseline: "ceiling: " + fmtNum(ceil.rps(), "req/s"), Goal: AtLeast, Target: 3000, Note: cfg + "; answers are sent only after their audit row commits"},
		{Section: sec, Name: "audited: p99 latency", Value: ms(aud.pct(99)), Unit: "ms",
			Baseline: fmt.Sprintf("ceiling: %.1f ms", ms(ceil.pct(99))), Goal: AtMost, Target: 25},
		{Section: sec, Name: "audited: p50 latency", Value: ms(aud.pct(50)), Unit: "ms",
			Baseline: fmt.Sprintf("ceiling: %.1f ms", ms(ceil.pct(50))), Goal: Info,
			Note: fmt.Sprintf("p90 %.1f ms, p99.9 %.1f ms, max %.1f ms; p99 of each second of the window: %s ms (ceiling: %s ms)",
				ms(aud.pct(90)), ms(aud.pct(99.9)), ms(aud.pct(100)), spread(aud.perSecond), spread(ceil.perSecond))},
		{Section: sec, Name: "audited: errors (non-200 + transport)", Value: float64(aud.errors), Unit: "errors",
			Baseline: fmt.Sprintf("ceiling: %d", ceil.errors), Goal: Exactly, Target: 0, Note: codesNote(aud)},
		{Section: sec, Name: "audited / ceiling throughput", Value: aud.rps() / ceil.rps(), Unit: "x", Goal: Info,
			Note: fmt.Sprintf("ceiling = a second server with COMPLIANCE_BENCH_NO_AUDIT=true: %.0f req/s, p50 %.1f ms, p99 %.1f ms, %d errors",
				ceil.rps(), ms(ceil.pct(50)), ms(ceil.pct(99)), ceil.errors)},
		{Section: sec, Name: "audited: audit rows per group commit", Value: safeDiv(float64(aud.auditRows), float64(aud.batches)), Unit: "rows", Goal: Info,
			Baseline: fmt.Sprintf("%d answers", aud.answered), Note: batchNote + "; each commit is one WAL fsync"},
	}
	rs = append(rs, cpuResults(sec, "load generator = benchtool (scripts/benchtool: one goroutine per connection writing a prebuilt HTTP/1.1 request, http.ReadResponse); "+
		"share = CPU time / wall time / nproc, from getrusage(RUSAGE_SELF) for benchtool, /proc/PID/stat for the server, every process named postgres for postgres, /proc/stat for the machine", aud, ceil)...)
	if aud.perfOut != "" {
		rs[0].Note += "; a perf profile was recorded during the audited window, which costs CPU: " + aud.perfOut
	}
	return appendResults(c.out, rs...)
}

// otherNote warns when something besides the benchmark took a noticeable
// share of the machine during the window.
func otherNote(r loadRun) string {
	if r.cpu.other() < 10 {
		return ""
	}
	return fmt.Sprintf("other processes took %.0f%% of the machine during the %s window: the figures of this run are skewed; rerun on a quiet machine", r.cpu.other(), r.label)
}

// spread prints the smallest, median and largest of ds in ms.
func spread(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	return fmt.Sprintf("min %.1f, median %.1f, max %.1f", ms(slices.Min(ds)), ms(median(ds)), ms(slices.Max(ds)))
}

func noteIf(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func codesNote(r loadRun) string {
	if r.errors == 0 {
		return ""
	}
	var parts []string
	keys := make([]int, 0, len(r.codes))
	for k := range r.codes {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d x%d", k, r.codes[k]))
	}
	return fmt.Sprintf("statuses: %s; transport errors: %d", strings.Join(parts, ", "), r.netErrs)
}

type loadOpts struct {
	conns            int
	warmup, duration time.Duration
	path, key        string
	ncpu             int
	perf             bool
	// requests, when set, returns connection i's request source; when nil
	// every connection sends GET path with key.
	requests func(i int) requestSource
	// countAudit counts the audit rows and group commits the run adds.
	countAudit bool
	// pgStats reads the database's transactions and the cluster's WAL
	// syncs at the window's edges.
	pgStats bool
	// byCompletion counts every answer that arrives inside the window,
	// whenever its request was sent; by default only requests both sent
	// and answered inside it count, which under-counts a server whose
	// answers take a sizeable part of the window.
	byCompletion bool
}

// requestSource appends a connection's next request to dst and returns it.
// Each connection has its own, called from its goroutine only.
type requestSource func(dst []byte) []byte

// staticRequest returns a source that sends the same prebuilt request
// every time.
func staticRequest(req []byte) requestSource {
	return func(dst []byte) []byte { return append(dst, req...) }
}

// runLoad starts a server, drives it with opts.conns connections, and
// stops it.
func runLoad(ctx context.Context, c common, label string, o loadOpts, env ...string) (loadRun, error) {
	s, err := startServer(ctx, label, c.bin, c.logDir, env...)
	if err != nil {
		return loadRun{label: label}, err
	}
	defer s.stop()
	if err := checkOnce(ctx, s.base+o.path, o.key); err != nil {
		return loadRun{label: label}, err
	}
	o.countAudit = label == "audited"
	return driveLoad(ctx, c, s, label, o)
}

// driveLoad drives the running server s with o.conns connections: o.warmup
// unmeasured, then o.duration measured.
func driveLoad(ctx context.Context, c common, s *server, label string, o loadOpts) (loadRun, error) {
	r := loadRun{label: label, window: o.duration, codes: map[int]int{}}
	var err error
	var db *pgx.Conn
	var seq0 int64
	if o.countAudit || o.pgStats {
		db, err = pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
		if err != nil {
			return r, fmt.Errorf("connect to DATABASE_URL: %w", err)
		}
		defer db.Close(context.Background())
	}
	if o.countAudit {
		if err := db.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM audit_log`).Scan(&seq0); err != nil {
			return r, err
		}
	}

	addr := strings.TrimPrefix(s.base, "http://")
	requests := o.requests
	if requests == nil {
		req := staticRequest([]byte("GET " + o.path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + o.key +
			"\r\nUser-Agent: compliance-benchtool\r\nAccept: application/json\r\n\r\n"))
		requests = func(int) requestSource { return req }
	}
	start := time.Now()
	warmEnd := start.Add(o.warmup)
	end := warmEnd.Add(o.duration)
	say("load %s: %d connections, %s warm-up, %s measured against %s (pid %d)", label, o.conns, o.warmup, o.duration, s.base, s.pid)

	workers := make([]*loadWorker, o.conns)
	var wg sync.WaitGroup
	for i := range workers {
		w := &loadWorker{codes: map[int]int{}, lat: make([]time.Duration, 0, 4096), byCompletion: o.byCompletion}
		workers[i] = w
		next := requests(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx, addr, next, warmEnd, end)
		}()
	}

	// The CPU counters are read at the window's edges.
	var a, b cpuSnap
	var pgA, pgB pgSnap
	var perfDone chan string
	sleepUntil(ctx, warmEnd)
	a = snapCPU(s.pid)
	if o.pgStats {
		pgA = snapPG(ctx, db)
	}
	if o.perf {
		perfDone = make(chan string, 1)
		go func() { perfDone <- recordPerf(ctx, c.logDir, o.duration) }()
	}
	sleepUntil(ctx, end)
	b = snapCPU(s.pid)
	if o.pgStats {
		pgB = snapPG(ctx, db)
		r.pgXacts, r.walSyncs = pgB.xacts-pgA.xacts, pgB.walSyncs-pgA.walSyncs
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return r, err
	}
	if perfDone != nil {
		r.perfOut = <-perfDone
	}

	r.cpu = shares(a, b, o.ncpu)
	r.serverCPU = b.server - a.server
	for pid, t := range b.postgres {
		r.pgCPU += t - a.postgres[pid]
	}
	bySec := make([][]time.Duration, int((o.duration+time.Second-1)/time.Second))
	for _, w := range workers {
		for i, s := range w.sec {
			s = min(max(s, 0), int32(len(bySec)-1))
			bySec[s] = append(bySec[s], w.lat[i])
		}
		r.lat = append(r.lat, w.lat...)
		r.netErrs += w.netErrs
		r.answered += w.answered
		for k, v := range w.codes {
			r.codes[k] += v
			if k == http.StatusOK {
				r.requests += v
			} else {
				r.errors += v
			}
		}
	}
	r.errors += r.netErrs
	slices.Sort(r.lat)
	for _, l := range bySec {
		slices.Sort(l)
		r.perSecond = append(r.perSecond, loadRun{lat: l}.pct(99))
	}

	if o.countAudit {
		// Rows of one group commit share a start time and follow each other
		// by 1 us (relational/audit.go); a larger gap starts a new commit.
		err := db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE gap IS DISTINCT FROM interval '1 microsecond')
			FROM (SELECT logged_at - lag(logged_at) OVER (ORDER BY seq) AS gap FROM audit_log WHERE seq > $1) x`, seq0).Scan(&r.auditRows, &r.batches)
		if err != nil {
			return r, err
		}
	}
	say("load %s: %.0f req/s, p50 %.1f ms, p99 %.1f ms, %d errors; CPU: load generator %.0f%%, server %.0f%%, postgres %.0f%%, machine %.0f%%",
		label, r.rps(), ms(r.pct(50)), ms(r.pct(99)), r.errors, r.cpu.loadgen, r.cpu.server, r.cpu.postgres, r.cpu.machine)
	return r, nil
}

func sleepUntil(ctx context.Context, t time.Time) {
	select {
	case <-time.After(time.Until(t)):
	case <-ctx.Done():
	}
}

// checkOnce makes one request through net/http and checks that it is a 200
// with the keys list, so the raw client below measures the real thing.
func checkOnce(ctx context.Context, url, key string) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"keys"`) {
		return fmt.Errorf("GET %s: %s: %.300s", url, resp.Status, body)
	}
	return nil
}

// loadWorker drives one keep-alive connection: it writes the next request
// of its source (prebuilt, or assembled by appending into one buffer), reads
// the answer with http.ReadResponse and discards the body.
// No net/http Transport: its goroutines and channels would cost the load
// generator more CPU than the parsing itself.
type loadWorker struct {
	lat          []time.Duration
	sec          []int32 // second of the window each latency started in (ended in, byCompletion)
	codes        map[int]int
	netErrs      int
	answered     int
	byCompletion bool // see loadOpts
}

func (w *loadWorker) run(ctx context.Context, addr string, next requestSource, warmEnd, end time.Time) {
	var conn net.Conn
	var br *bufio.Reader
	req := make([]byte, 0, 1024)
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for ctx.Err() == nil {
		t := time.Now()
		if !t.Before(end) {
			return
		}
		inWindow := !t.Before(warmEnd)
		if conn == nil {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				if inWindow {
					w.netErrs++
				}
				time.Sleep(10 * time.Millisecond)
				continue
			}
			c.SetDeadline(end.Add(30 * time.Second))
			conn, br = c, bufio.NewReaderSize(c, 32<<10)
		}
		req = next(req[:0])
		_, err := conn.Write(req)
		var resp *http.Response
		if err == nil {
			resp, err = http.ReadResponse(br, nil)
		}
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		d := time.Since(t)
		at := t // the time the answer is filed under
		if w.byCompletion {
			at = t.Add(d)
			inWindow = !at.Before(warmEnd)
		}
		inWindow = inWindow && !t.Add(d).After(end)
		if err != nil {
			conn.Close()
			conn = nil
			if inWindow && !errors.Is(err, context.Canceled) {
				w.netErrs++
			}
			continue
		}
		w.answered++
		if inWindow {
			w.codes[resp.StatusCode]++
			if resp.StatusCode == http.StatusOK {
				w.lat = append(w.lat, d)
				w.sec = append(w.sec, int32(at.Sub(warmEnd)/time.Second))
			}
		}
		if resp.Close {
			conn.Close()
			conn = nil
		}
	}
}

// recordPerf records a system-wide CPU profile for d with perf and writes
// two reports next to the server logs. It returns where they are, or why
// there is none.
func recordPerf(ctx context.Context, dir string, d time.Duration) string {
	if _, err := exec.LookPath("perf"); err != nil {
		return "perf is not installed"
	}
	data := filepath.Join(dir, "perf.data")
	rec := exec.CommandContext(ctx, "perf", "record", "-q", "-F", "499", "-a", "-g", "-o", data, "--",
		"sleep", fmt.Sprintf("%.3f", d.Seconds()))
	if out, err := rec.CombinedOutput(); err != nil {
		return fmt.Sprintf("perf record failed: %v: %.200s", err, out)
	}
	byComm := filepath.Join(dir, "perf-by-process.txt")
	bySym := filepath.Join(dir, "perf-by-symbol.txt")
	for _, rep := range []struct {
		path string
		args []string
	}{
		{byComm, []string{"--sort", "comm,dso"}},
		{bySym, []string{"--sort", "comm,symbol", "--percent-limit", "0.5"}},
	} {
		args := append([]string{"report", "-i", data, "--stdio", "--no-children", "-g", "none"}, rep.args...)
		out, err := exec.CommandContext(ctx, "perf", args...).Output()
		if err != nil {
			return fmt.Sprintf("perf report failed: %v", err)
		}
		if err := os.WriteFile(rep.path, out, 0o644); err != nil {
			return err.Error()
		}
	}
	return byComm + " and " + bySym
}

// pgSnap is a reading of the statistics views behind loadRun.pgXacts and
// loadRun.walSyncs. Backends publish their counts about once a second, so
// over a window of seconds the differences are close but not exact.
type pgSnap struct {
	xacts, walSyncs int64
}

func snapPG(ctx context.Context, db *pgx.Conn) pgSnap {
	var p pgSnap
	db.QueryRow(ctx, `SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()),
		(SELECT wal_sync FROM pg_stat_wal)`).Scan(&p.xacts, &p.walSyncs)
	return p
}

// costResults reports where a keyed route's time goes, against the healthz
// baseline of the same server: Postgres transactions per request (with WAL
// syncs and audit rows per group commit), and each process's CPU share with
// its CPU time per request.
func costResults(sec string, chk, health loadRun) []Result {
	perOK := func(r loadRun, x int64) float64 { return safeDiv(float64(x), float64(r.requests)) }
	rs := []Result{
		{Section: sec, Name: "check: postgres transactions per request", Value: perOK(chk, chk.pgXacts), Unit: "xact/req", Goal: Info,
			Baseline: fmt.Sprintf("healthz: %.2f", perOK(health, health.pgXacts)),
			Note: fmt.Sprintf("pg_stat_database over the window (backends publish about once a second, so roughly); WAL syncs of the cluster: %.0f/s (healthz: %.0f/s); "+
				"audit rows per group commit over the run: %.1f (healthz: %.1f)",
				float64(chk.walSyncs)/chk.window.Seconds(), float64(health.walSyncs)/health.window.Seconds(),
				safeDiv(float64(chk.auditRows), float64(chk.batches)), safeDiv(float64(health.auditRows), float64(health.batches)))},
	}
	return append(rs, cpuResults(sec, cpuNote, chk, health)...)
}

// cpuNote explains the CPU shares of a section after B3's.
const cpuNote = "measured as in B3: share = CPU time / wall time / nproc over the window"

// cpuResults reports each run's CPU shares (load generator, server,
// postgres, other) with the CPU time per answered request; note goes on
// the first row.
func cpuResults(sec, note string, runs ...loadRun) []Result {
	perReq := func(r loadRun, d time.Duration) float64 {
		return safeDiv(float64(d.Microseconds()), float64(r.requests))
	}
	var rs []Result
	for i, r := range runs {
		rs = append(rs,
			Result{Section: sec, Name: r.label + ": CPU share, load generator", Value: r.cpu.loadgen, Unit: "%", Goal: Info, Note: noteIf(i == 0, note)},
			Result{Section: sec, Name: r.label + ": CPU share, server", Value: r.cpu.server, Unit: "%", Goal: Info,
				Baseline: fmt.Sprintf("%.0f us CPU per request", perReq(r, r.serverCPU))},
			Result{Section: sec, Name: r.label + ": CPU share, postgres", Value: r.cpu.postgres, Unit: "%", Goal: Info,
				Baseline: fmt.Sprintf("%.0f us CPU per request", perReq(r, r.pgCPU))},
			Result{Section: sec, Name: r.label + ": CPU share, other processes", Value: r.cpu.other(), Unit: "%", Goal: Info,
				Baseline: fmt.Sprintf("whole machine busy: %.0f%%", r.cpu.machine),
				Note:     otherNote(r)},
		)
	}
	return rs
}

// latencyNote gives a run's latency tail and the p99 of each second of its
// window, against the baseline's: a stall shows as one slow second.
func latencyNote(r, base loadRun) string {
	return fmt.Sprintf("p90 %.1f ms, p99.9 %.1f ms, max %.1f ms; p99 of each second of the window: %s ms (%s: %s ms)",
		ms(r.pct(90)), ms(r.pct(99.9)), ms(r.pct(100)), spread(r.perSecond), base.label, spread(base.perSecond))
}
