package main

// E9a/E9b: the service and moov-io/watchman side by side on the same OFAC
// files (SDN and non-SDN legacy CSV of ../shared/data/ofac) and the same
// name-only queries, in one run: the share of each of yente's sets matched
// at each engine's default line (the service's 0.80 threshold, watchman's
// usual minMatch=0.80), throughput at 64 connections, single-client
// latency, and RSS under load. scripts/bench builds watchman from a
// throwaway module in its work directory; nothing of it is kept.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// wmMinMatch is the line watchman's users usually draw (its docs' examples
// use 0.75 to 0.8); the service's default threshold is 0.80 as well.
const wmMinMatch = "0.80"

type wmOpts struct {
	dataDir, ofacDB          string
	sets                     []benchSet
	mix                      []screenQuery
	conns                    int
	warmup, duration, single time.Duration
	sample                   int // quality queries per set (0: all)
	bin, version, buildErr   string
}

// engineRun is one engine's figures on the OFAC-only data.
type engineRun struct {
	name     string
	notRun   string        // why it was not measured
	loadTime time.Duration // index build (service) or data refresh (watchman), from its log
	loadNote string
	idleRSS  int64
	shares   []setShare // the quality sample, name only
	full     []setShare // the service only: every query of every set
	took     time.Duration
	load     loadRun // conns connections
	peakRSS  int64
	samples  int
	single   loadRun
}

// sampleSets takes up to n queries of each set, evenly spaced (all when n
// is 0 or the set is smaller), and interleaves them as the mix is.
func sampleSets(sets []benchSet, n int) []screenQuery {
	out := make([]benchSet, len(sets))
	for i, s := range sets {
		out[i] = s
		if n <= 0 || len(s.queries) <= n {
			continue
		}
		qs := make([]screenQuery, n)
		for j := range n {
			qs[j] = s.queries[j*len(s.queries)/n]
		}
		out[i].queries = qs
	}
	return interleave(out)
}

// compareWatchman measures the service on a database holding only the two
// OFAC lists, then watchman on the same files, one after the other.
func compareWatchman(ctx context.Context, c common, o wmOpts) error {
	sample := sampleSets(o.sets, o.sample)
	ours, err := measureOursOFAC(ctx, c, o, sample)
	if err != nil {
		return err
	}
	wm := engineRun{name: "watchman " + o.version}
	switch {
	case o.bin == "" && o.buildErr == "":
		wm.notRun = "no watchman binary was given (-watchman)"
	case o.bin == "":
		wm.notRun = o.buildErr
	default:
		wm, err = measureWatchman(ctx, c, o, sample)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			wm = engineRun{name: "watchman " + o.version, notRun: err.Error()}
		}
	}
	if wm.notRun != "" {
		say("screening: watchman %s not measured: %s", o.version, wm.notRun)
	}
	return appendResults(c.out, comparisonResults(o, sample, ours, wm)...)
}

// measureOursOFAC migrates the OFAC-only database, ingests us_sdn and
// us_cons with the CLI, and measures a server on it.
func measureOursOFAC(ctx context.Context, c common, o wmOpts, sample []screenQuery) (engineRun, error) {
	r := engineRun{name: "compliance"}
	mig := exec.CommandContext(ctx, c.bin, "migrate")
	mig.Env = append(os.Environ(), "DATABASE_URL="+o.ofacDB)
	if out, err := mig.CombinedOutput(); err != nil {
		return r, fmt.Errorf("compliance migrate (OFAC-only database): %v: %s", err, tailString(string(out), 5))
	}
	ingests, err := ingestLists(ctx, c.bin, o.ofacDB, o.dataDir, c.logDir, screenLists[:2])
	if err != nil {
		return r, err
	}
	key, err := cliKey(ctx, c.bin, o.ofacDB, "bench-screening")
	if err != nil {
		return r, err
	}
	s, err := startServer(ctx, "screening-ofac", c.bin, c.logDir, "DATABASE_URL="+o.ofacDB, "SANCTIONS_SYNC_INTERVAL=0")
	if err != nil {
		return r, err
	}
	defer s.stop()
	listsAt, rows, err := waitLists(ctx, s, key, []string{"us_sdn", "us_cons"}, 60*time.Second)
	if err != nil {
		return r, err
	}
	if r.loadTime, err = indexBuilt(ctx, s.logPath); err != nil {
		return r, err
	}
	var parts []string
	for _, in := range ingests {
		parts = append(parts, fmt.Sprintf("%s %d rows (ingest %.0f ms)", in.list, rows[in.list], ms(in.took)))
	}
	r.loadNote = fmt.Sprintf(`%s; "sanctions index built" %.0f ms, exec -> both lists loaded %.0f ms`, strings.Join(parts, ", "), ms(r.loadTime), ms(listsAt))
	if r.idleRSS, err = vmRSS(s.pid); err != nil {
		return r, err
	}
	say("screening (OFAC only): %s", r.loadNote)

	do := func(cl *http.Client, q screenQuery) (string, error) {
		return screenOnce(ctx, cl, s.base, key, q, true, "")
	}
	t := time.Now()
	r.shares = shareBySet(o.sets, sample, runQueries(ctx, sample, 4, do))
	r.took = time.Since(t)
	r.full = shareBySet(o.sets, o.mix, runQueries(ctx, o.mix, 4, do))
	for i, sh := range append(slices.Clone(r.shares), r.full...) {
		if sh.firstErr != nil {
			return r, fmt.Errorf("screening (OFAC only): %d queries of %s failed; first: %v", sh.errors, o.sets[i%len(o.sets)].name, sh.firstErr)
		}
	}
	say("screening (OFAC only): compliance matched %s (sample, %s); every query: %s", sharesNote(o.sets, r.shares), r.took.Round(time.Millisecond), sharesNote(o.sets, r.full))

	addr := strings.TrimPrefix(s.base, "http://")
	reqs := screenRequests(addr, key, o.mix, true)
	if err := driveBoth(ctx, c, s, &r, reqs, o); err != nil {
		return r, err
	}
	return r, nil
}

// driveBoth measures r's server at o.conns connections (sampling its RSS)
// and with a single client, both on reqs.
func driveBoth(ctx context.Context, c common, s *server, r *engineRun, reqs [][]byte, o wmOpts) error {
	label := strings.Fields(r.name)[0]
	opts := loadOpts{conns: o.conns, warmup: o.warmup, duration: o.duration, path: "search", ncpu: runtime.NumCPU(),
		requests: cycling(reqs, o.conns), byCompletion: true}
	stop := rssPeak(s.pid)
	var err error
	r.load, err = driveLoad(ctx, c, s, label, opts)
	r.peakRSS, r.samples = stop()
	if err != nil {
		return err
	}
	opts.conns, opts.warmup, opts.duration, opts.requests = 1, time.Second, o.single, cycling(reqs, 1)
	r.single, err = driveLoad(ctx, c, s, label+" single client", opts)
	return err
}

// measureWatchman starts watchman with the OFAC files of the shared data
// as its initial data directory and only its two OFAC lists included, and
// measures it as the service was measured.
func measureWatchman(ctx context.Context, c common, o wmOpts, sample []screenQuery) (engineRun, error) {
	r := engineRun{name: "watchman " + o.version}
	s, entities, err := startWatchman(ctx, o.bin, filepath.Join(o.dataDir, "ofac"), c.logDir)
	if err != nil {
		return r, err
	}
	defer s.stop()
	if r.loadTime, r.loadNote, err = wmRefreshed(s.logPath); err != nil {
		return r, err
	}
	r.loadNote = entities + "; " + r.loadNote
	if r.idleRSS, err = vmRSS(s.pid); err != nil {
		return r, err
	}
	say("screening (OFAC only): watchman %s: %s", o.version, r.loadNote)

	t := time.Now()
	r.shares = shareBySet(o.sets, sample, runQueries(ctx, sample, 4, func(cl *http.Client, q screenQuery) (string, error) {
		return wmSearch(ctx, cl, s.base, q.Name)
	}))
	r.took = time.Since(t)
	for _, sh := range r.shares {
		if sh.firstErr != nil {
			return r, fmt.Errorf("watchman: %d quality queries failed; first: %v", sh.errors, sh.firstErr)
		}
	}
	say("screening (OFAC only): watchman matched %s (sample, %s)", sharesNote(o.sets, r.shares), r.took.Round(time.Millisecond))

	addr := strings.TrimPrefix(s.base, "http://")
	reqs := make([][]byte, len(o.mix))
	for i, q := range o.mix {
		reqs[i] = fmt.Appendf(nil, "GET /v2/search?name=%s&minMatch=%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: compliance-benchtool\r\nAccept: application/json\r\n\r\n",
			url.QueryEscape(q.Name), wmMinMatch, addr)
	}
	if err := driveBoth(ctx, c, s, &r, reqs, o); err != nil {
		return r, err
	}
	return r, nil
}

// startWatchman writes watchman's configuration (loopback ports, the local
// OFAC files as its initial data directory so nothing is downloaded, only
// us_ofac and us_non_sdn included, no refresh during the run) and starts
// it. Watchman binds its HTTP port only once its lists are indexed, so
// the first 200 from /ping means loaded. It returns the lists' sizes as
// /v2/listinfo states them.
func startWatchman(ctx context.Context, bin, ofacDir, logDir string) (*server, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	admin, err := freePort()
	if err != nil {
		return nil, "", err
	}
	for _, f := range []string{"sdn.csv", "add.csv", "alt.csv", "sdn_comments.csv", "cons_prim.csv", "cons_add.csv", "cons_alt.csv", "cons_comments.csv"} {
		if _, err := os.Stat(filepath.Join(ofacDir, f)); err != nil {
			return nil, "", fmt.Errorf("watchman's initial data directory lacks a file it would then download: %w", err)
		}
	}
	conf := filepath.Join(logDir, "watchman.yml")
	yml := fmt.Sprintf(`# written by scripts/benchtool (E9): the local OFAC files, nothing downloaded
Watchman:
  Servers:
    BindAddress: "127.0.0.1:%d"
    AdminAddress: "127.0.0.1:%d"
  Download:
    RefreshInterval: "24h"
    InitialDataDirectory: %q
    IncludedLists:
      - "us_ofac"
      - "us_non_sdn"
`, port, admin, ofacDir)
	if err := os.WriteFile(conf, []byte(yml), 0o644); err != nil {
		return nil, "", err
	}
	logPath := filepath.Join(logDir, fmt.Sprintf("watchman-%d.log", port))
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	defer logf.Close()
	cmd := exec.Command(bin)
	// A clean environment: only what it needs, so no variable of the
	// service (DATABASE_URL, LOG_LEVEL ...) is read by watchman.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(), "APP_CONFIG=" + conf}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s := &server{name: "watchman", cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", port), logPath: logPath, exited: make(chan struct{})}
	s.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	s.pid = cmd.Process.Pid
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	serversMu.Lock()
	servers[s] = true
	serversMu.Unlock()

	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/ping", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.ready = time.Since(s.started)
				break
			}
		}
		select {
		case <-s.exited:
			return nil, "", fmt.Errorf("watchman exited during start-up (%v); last lines of %s:\n%s", s.waitErr, logPath, tail(logPath, 10))
		case <-ctx.Done():
			s.stop()
			return nil, "", ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, "", fmt.Errorf("watchman not answering /ping within 3 min; last lines of %s:\n%s", logPath, tail(logPath, 10))
		}
	}
	resp, err := http.Get(s.base + "/v2/listinfo")
	if err != nil {
		s.stop()
		return nil, "", err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	var info struct {
		Lists map[string]int `json:"lists"`
	}
	if err := json.Unmarshal(body, &info); err != nil || info.Lists["us_ofac"] == 0 || info.Lists["us_non_sdn"] == 0 || len(info.Lists) != 2 {
		s.stop()
		return nil, "", fmt.Errorf("watchman /v2/listinfo: %.300s, want us_ofac and us_non_sdn only, both non-empty", body)
	}
	if b, err := os.ReadFile(logPath); err == nil && (strings.Contains(string(b), "successful download") || strings.Contains(string(b), "to download")) {
		s.stop()
		return nil, "", fmt.Errorf("watchman tried to download a file instead of reading %s; see %s", ofacDir, logPath)
	}
	return s, fmt.Sprintf("us_ofac %d entities, us_non_sdn %d (GET /v2/listinfo)", info.Lists["us_ofac"], info.Lists["us_non_sdn"]), nil
}

var reWMRefreshed = regexp.MustCompile(`data refreshed - (\d+) entities from (\d+) lists took ([0-9.]+[a-zµ]+)`)

// wmRefreshed reads watchman's "data refreshed - N entities from M lists
// took D" log line.
func wmRefreshed(logPath string) (time.Duration, string, error) {
	f, err := os.Open(logPath)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m := reWMRefreshed.FindStringSubmatch(sc.Text()); m != nil {
			d, err := time.ParseDuration(m[3])
			if err != nil {
				return 0, "", fmt.Errorf("watchman log: %q: %w", m[0], err)
			}
			n, _ := strconv.Atoi(m[1])
			return d, fmt.Sprintf(`"data refreshed - %d entities from %s lists took %s"`, n, m[2], d.Round(time.Millisecond)), nil
		}
	}
	return 0, "", errors.New(`watchman log: no "data refreshed" line in ` + logPath)
}

// wmSearch asks watchman's v2 search for a name alone at minMatch 0.80
// and describes the best entity that came back ("" when none did).
func wmSearch(ctx context.Context, client *http.Client, base, name string) (string, error) {
	u := base + "/v2/search?name=" + url.QueryEscape(name) + "&minMatch=" + wmMinMatch
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	resp.Body.Close()
	var out struct {
		Entities []struct {
			Name       string  `json:"name"`
			SourceList string  `json:"sourceList"`
			Match      float64 `json:"match"`
		} `json:"entities"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil {
		return "", fmt.Errorf("GET %s: %s: %.300s", u, resp.Status, body)
	}
	best := -1
	for i, e := range out.Entities {
		if e.Match >= 0.80 && (best < 0 || e.Match > out.Entities[best].Match) {
			best = i
		}
	}
	if best < 0 {
		return "", nil
	}
	e := out.Entities[best]
	return fmt.Sprintf("%q -> %q (%s, %.2f)", name, e.Name, e.SourceList, e.Match), nil
}

// comparisonResults prints the two tables: E9a the service's figures with
// watchman's beside them (targets from issue 8: beat every watchman
// figure, 20 times its throughput), E9b watchman's with the service's.
func comparisonResults(o wmOpts, sample []screenQuery, ours, wm engineRun) []Result {
	secA := "E9a OFAC only: compliance"
	secB := "E9b OFAC only: watchman " + o.version
	measured := wm.notRun == ""
	var sampleNote string
	if o.sample > 0 {
		sampleNote = fmt.Sprintf("up to %d names of each set, evenly spaced (%d queries; BENCH_WATCHMAN_SAMPLE=0 for every name)", o.sample, len(sample))
	} else {
		sampleNote = fmt.Sprintf("every name of each set (%d queries)", len(sample))
	}
	cfg := fmt.Sprintf("both engines hold only OFAC SDN + non-SDN from ../shared/data/ofac (the same 8 legacy CSV files) and get the same name-only queries; the service: POST %s {name} "+
		"(default threshold 0.80; coverage partial, the 6 other lists absent), watchman: GET /v2/search?name=...&minMatch=%s (its usual line); quality on %s", screenPath, wmMinMatch, sampleNote)
	var rsA, rsB []Result
	other := func(e engineRun, f func(engineRun) string) string {
		if e.notRun != "" {
			return strings.Fields(e.name)[0] + ": not measured"
		}
		return strings.Fields(e.name)[0] + ": " + f(e)
	}
	// row adds a measure to both tables: the service's figure against
	// watchman's (with goal g and a target from watchman's figure when it
	// was measured), and watchman's against the service's (info).
	row := func(name, unit string, val func(engineRun) float64, g Goal, target func(float64) float64, note string) {
		show := func(e engineRun) string { return fmtNum(val(e), unit) }
		a := Result{Section: secA, Name: name, Value: val(ours), Unit: unit, Baseline: other(wm, show), Goal: Info, Note: note}
		switch {
		case g == Exactly: // a target of its own, not watchman's figure
			a.Goal, a.Target = g, target(0)
		case measured && g != Info:
			a.Goal, a.Target = g, target(val(wm))
		}
		rsA = append(rsA, a)
		if measured {
			rsB = append(rsB, Result{Section: secB, Name: name, Value: val(wm), Unit: unit, Baseline: other(ours, show), Goal: Info})
		}
	}
	same := func(v float64) float64 { return v }
	for i, set := range o.sets {
		g := AtMost
		kind := "negatives: none listed"
		if set.positive {
			g, kind = AtLeast, "positives: all UN-listed"
		}
		note := ""
		if i == 0 {
			note = cfg + "; a set's figure is the share of its names with at least one match at the engine's line; target: at least watchman's share on positives, at most on negatives (issue 8: beat every watchman figure)"
		}
		idx := i
		row(fmt.Sprintf("%s (%s): names matched", set.name, kind), "%", func(e engineRun) float64 { return e.shares[idx].pct() }, g, same, note)
		if !set.positive {
			fpA := "matches: " + strings.Join(ours.shares[i].tops, ", ")
			rsA[len(rsA)-1].Note = joinNonEmpty(rsA[len(rsA)-1].Note, noteIf(len(ours.shares[i].tops) > 0, fpA))
			if measured && len(wm.shares[i].tops) > 0 {
				rsB[len(rsB)-1].Note = "matches: " + strings.Join(wm.shares[i].tops, ", ")
			}
		}
	}
	var fullParts []string
	for i, sh := range ours.full {
		fullParts = append(fullParts, fmt.Sprintf("%s %.1f%% (%d/%d)", o.sets[i].name, sh.pct(), sh.matched, sh.total))
	}
	rsA[len(rsA)-1].Note = joinNonEmpty(rsA[len(rsA)-1].Note, "the service on every name of each set, name only, OFAC only: "+strings.Join(fullParts, ", ")+negativesNote(o.sets, ours.full))

	loadCfg := fmt.Sprintf("%d keep-alive connections, %s warm-up, %s measured, every answer arriving in the window counted; the %d name-only queries cycled as in E8", o.conns, o.warmup, o.duration, len(o.mix))
	row("throughput, 64 connections", "screens/s", func(e engineRun) float64 { return e.load.rps() }, AtLeast, func(v float64) float64 { return 20 * v },
		loadCfg+"; target: 20 times watchman's figure of the same run (issue 8: 20 times watchman's ceiling)")
	row("p50 latency, 64 connections", "ms", func(e engineRun) float64 { return ms(e.load.pct(50)) }, Info, nil, "")
	row("p99 latency, 64 connections", "ms", func(e engineRun) float64 { return ms(e.load.pct(99)) }, Info, nil, "")
	row("errors, 64 connections (non-200 + transport)", "errors", func(e engineRun) float64 { return float64(e.load.errors) }, Exactly, same, "")
	row("single client: p50 latency", "ms", func(e engineRun) float64 { return ms(e.single.pct(50)) }, AtMost, same,
		fmt.Sprintf("one keep-alive connection, one query after another, 1 s warm-up, %s measured", o.single))
	row("single client: p99 latency", "ms", func(e engineRun) float64 { return ms(e.single.pct(99)) }, AtMost, same, "")
	row("single client: screens measured", "requests", func(e engineRun) float64 { return float64(e.single.requests) }, Info, nil, "")
	row("VmRSS, peak under load", "MB", func(e engineRun) float64 { return mb(e.peakRSS) }, AtMost, same,
		"MB = 10^6 bytes; /proc/PID/status VmRSS every 50 ms during the 64-connection run, warm-up included")
	row("VmRSS, idle with the lists loaded", "MB", func(e engineRun) float64 { return mb(e.idleRSS) }, Info, nil, "")
	row("lists loaded and indexed (own log)", "ms", func(e engineRun) float64 { return ms(e.loadTime) }, Info, nil, "")
	row("server CPU share, 64 connections", "%", func(e engineRun) float64 { return e.load.cpu.server }, Info, nil, "")

	// Where each engine's data came from, and why watchman is missing.
	for i := range rsA {
		switch rsA[i].Name {
		case "lists loaded and indexed (own log)":
			rsA[i].Note = ours.loadNote
		case "errors, 64 connections (non-200 + transport)":
			rsA[i].Note = joinNonEmpty(codesNote(ours.load), otherNote(ours.load))
		}
	}
	if !measured {
		rsB = append(rsB, Result{Section: secB, Name: "not measured", Value: 0, Unit: "", Goal: Info, Note: wm.notRun})
		return append(rsA, rsB...)
	}
	for i := range rsB {
		switch rsB[i].Name {
		case "lists loaded and indexed (own log)":
			rsB[i].Note = wm.loadNote + "; configured with APP_CONFIG (watchman.yml in the logs directory): InitialDataDirectory = ../shared/data/ofac (every file found, nothing downloaded), IncludedLists us_ofac and us_non_sdn, RefreshInterval 24h"
		case "errors, 64 connections (non-200 + transport)":
			rsB[i].Note = joinNonEmpty(codesNote(wm.load), otherNote(wm.load))
		case "throughput, 64 connections":
			rsB[i].Note = fmt.Sprintf("built with `go build github.com/moov-io/watchman/cmd/server` from a throwaway module requiring github.com/moov-io/watchman@%s; quality sample took %.0f s (the service: %.1f s)",
				o.version, wm.took.Seconds(), ours.took.Seconds())
		}
	}
	rsB = append(rsB, Result{Section: secB, Name: "compliance / watchman throughput", Value: safeDiv(ours.load.rps(), wm.load.rps()), Unit: "x", Goal: Info,
		Note: fmt.Sprintf("single client: compliance p50 %.2f ms vs watchman %.1f ms", ms(ours.single.pct(50)), ms(wm.single.pct(50)))})
	return append(rsA, rsB...)
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}
