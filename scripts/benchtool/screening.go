package main

// E8 sanctions screening over HTTP (issue 8): the 8 lists of ../shared/data
// loaded with the binary's own CLI, then POST /api/v1/sanctions/search at 64
// keep-alive connections (target >= 2,000 screens/s with server RSS under
// 1 GB), against GET /healthz on the same server. E9a/E9b (watchman.go):
// the same service with the two OFAC lists only, side by side with
// moov-io/watchman v0.60.0 on the same files and queries.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	screenPath = "/api/v1/sanctions/search"
	listsPath  = "/api/v1/sanctions/lists"
)

// screenList is one list as `compliance sanctions ingest` takes it: its id
// and its files under the shared data directory, in the order the CLI's
// usage gives them.
type screenList struct {
	id    string
	files []string
}

// screenLists are the 8 lists of ../shared/data in their published format
// (OFAC legacy CSV, UN XML) or the normalized JSON-lines transcriptions the
// data set holds for the others.
var screenLists = []screenList{
	{"us_sdn", []string{"ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"}},
	{"us_cons", []string{"ofac/cons_prim.csv", "ofac/cons_add.csv", "ofac/cons_alt.csv", "ofac/cons_comments.csv"}},
	{"un", []string{"un/un_consolidated.xml"}},
	{"eu", []string{"eu/eu_fsf_ammitto_2026-03-15.jsonl.gz"}},
	{"uk_hmt", []string{"uk/uk_sanctions_list_ammitto_2026-08-22.jsonl.gz"}},
	{"ca", []string{"ca/ca_sema_ammitto_2026-08-22.jsonl.gz"}},
	{"au_dfat", []string{"au/au_dfat_ammitto_2026-08-22.jsonl.gz"}},
	{"ch_seco", []string{"ch/ch_seco_ammitto_2026-03-15.jsonl.gz"}},
}

// benchSet is one of yente's matching benchmark files (benchmarks/ of the
// shared data: full_name, date_of_birth, nationality as ISO code or
// country name).
type benchSet struct {
	name, file string
	positive   bool // every name is listed (UN); else none should match
	queries    []screenQuery
}

// screenQuery is one screening question as the search route takes it.
type screenQuery struct {
	set     int // index in the sets
	Name    string
	Country string
	DOB     string
}

// benchFiles are the sets in report order, with their short names.
var benchFiles = []struct {
	file, name string
	positive   bool
}{
	{"yente_positives_un_untreated.csv", "un_untreated", true},
	{"yente_positives_un_treated.csv", "un_treated", true},
	{"yente_validation_negatives_global.csv", "neg_global", false},
	{"yente_validation_negatives_us.csv", "neg_us", false},
	{"yente_positives_us_congress_untreated.csv", "us_congress", false}, // common names, not sanctioned
}

// dobFixes counts what a client would do to the sets' dates of birth
// before sending them: zero-pad "1969-7-16", leave out a date that is no
// date ("1974-01-32", typos of the treated set), which the API refuses.
type dobFixes struct {
	padded, dropped int
	examples        []string
}

func (f dobFixes) String() string {
	s := fmt.Sprintf("%d unpadded dates of birth zero-padded", f.padded)
	if f.dropped > 0 {
		s += fmt.Sprintf(", %d that are no date (e.g. %s) left out", f.dropped, strings.Join(f.examples, ", "))
	}
	return s
}

// loadBenchSets reads the five sets, fixing their dates of birth as a
// client would (dobFixes).
func loadBenchSets(dir string) ([]benchSet, dobFixes, error) {
	var sets []benchSet
	var fixed dobFixes
	for i, bf := range benchFiles {
		f, err := os.Open(filepath.Join(dir, "benchmarks", bf.file))
		if err != nil {
			return nil, fixed, err
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return nil, fixed, fmt.Errorf("%s: %w", bf.file, err)
		}
		if len(rows) < 2 {
			return nil, fixed, fmt.Errorf("%s: no rows", bf.file)
		}
		col := map[string]int{}
		for j, h := range rows[0] {
			col[h] = j
		}
		get := func(r []string, k string) string {
			if j, ok := col[k]; ok && j < len(r) {
				return strings.TrimSpace(r[j])
			}
			return ""
		}
		set := benchSet{name: bf.name, file: bf.file, positive: bf.positive}
		for _, r := range rows[1:] {
			q := screenQuery{set: i, Name: get(r, "full_name"), Country: get(r, "nationality")}
			if q.Name == "" {
				q.Name = strings.Join(strings.Fields(get(r, "first_name")+" "+get(r, "middle_name")+" "+get(r, "last_name")), " ")
			}
			if q.Name == "" {
				continue
			}
			dob := get(r, "date_of_birth")
			if p := padDate(dob); p != dob {
				fixed.padded++
				dob = p
			}
			if dob != "" && !realDate(dob) {
				fixed.dropped++
				if len(fixed.examples) < 3 {
					fixed.examples = append(fixed.examples, dob)
				}
				dob = ""
			}
			q.DOB = dob
			set.queries = append(set.queries, q)
		}
		sets = append(sets, set)
	}
	return sets, fixed, nil
}

// realDate reports whether s is a real date as YYYY, YYYY-MM or
// YYYY-MM-DD.
func realDate(s string) bool {
	for _, layout := range []string{"2006", "2006-01", "2006-01-02"} {
		if len(s) == len(layout) {
			_, err := time.Parse(layout, s)
			return err == nil
		}
	}
	return false
}

// padDate turns "1969-7-16" into "1969-07-16"; other forms are returned
// as they are.
func padDate(s string) string {
	p := strings.Split(s, "-")
	if len(p) < 2 || len(p) > 3 || len(p[0]) != 4 {
		return s
	}
	for i := 1; i < len(p); i++ {
		if n, err := strconv.Atoi(p[i]); err != nil || n < 1 || len(p[i]) > 2 {
			return s
		} else if len(p[i]) == 1 {
			p[i] = "0" + p[i]
		}
	}
	return strings.Join(p, "-")
}

// interleave returns the queries of every set, taking one from each set in
// turn, so that any stretch of the mix holds hits and misses.
func interleave(sets []benchSet) []screenQuery {
	var out []screenQuery
	for i := 0; ; i++ {
		added := false
		for _, s := range sets {
			if i < len(s.queries) {
				out = append(out, s.queries[i])
				added = true
			}
		}
		if !added {
			return out
		}
	}
}

// screenBody is the JSON body of POST /api/v1/sanctions/search; nameOnly
// leaves out the country and the date of birth.
func screenBody(q screenQuery, nameOnly bool) []byte {
	body := struct {
		Name    string `json:"name"`
		Country string `json:"country,omitempty"`
		DOB     string `json:"dob,omitempty"`
	}{Name: q.Name}
	if !nameOnly {
		body.Country, body.DOB = q.Country, q.DOB
	}
	b, _ := json.Marshal(body)
	return b
}

// screenRequests prebuilds one raw HTTP/1.1 request per query.
func screenRequests(addr, key string, qs []screenQuery, nameOnly bool) [][]byte {
	out := make([][]byte, len(qs))
	for i, q := range qs {
		body := screenBody(q, nameOnly)
		out[i] = fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nUser-Agent: compliance-benchtool\r\nAccept: application/json\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", screenPath, addr, key, len(body), body)
	}
	return out
}

// cycleSource sends prebuilt requests in turn, starting at its own offset.
type cycleSource struct {
	reqs [][]byte
	n    int
}

func (c *cycleSource) next(dst []byte) []byte {
	r := c.reqs[c.n%len(c.reqs)]
	c.n++
	return append(dst, r...)
}

// cycling gives each of conns connections the prebuilt requests, each
// starting at a different one.
func cycling(reqs [][]byte, conns int) func(i int) requestSource {
	return func(i int) requestSource {
		s := &cycleSource{reqs: reqs, n: i * len(reqs) / max(conns, 1)}
		return s.next
	}
}

// rssPeak samples VmRSS of pid every 50 ms until stop is called, which
// returns the largest sample and how many were taken.
func rssPeak(pid int) (stop func() (int64, int)) {
	done := make(chan struct{})
	var peak int64
	var n int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if v, err := vmRSS(pid); err == nil {
				peak = max(peak, v)
				n++
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() (int64, int) {
		close(done)
		wg.Wait()
		if v, err := vmRSS(pid); err == nil {
			peak = max(peak, v)
			n++
		}
		return peak, n
	}
}

// ingestRun is one `compliance sanctions ingest`.
type ingestRun struct {
	list      string
	rows      int
	unchanged bool
	took      time.Duration
}

// ingestLists loads each list into the database at dbURL with `bin
// sanctions ingest --list ID --no-graph FILE...`.
func ingestLists(ctx context.Context, bin, dbURL, dataDir, logDir string, lists []screenList) ([]ingestRun, error) {
	logf, err := os.OpenFile(filepath.Join(logDir, "sanctions-ingest.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	var out []ingestRun
	for _, l := range lists {
		args := []string{"sanctions", "ingest", "--list", l.id, "--no-graph"}
		for _, f := range l.files {
			args = append(args, filepath.Join(dataDir, f))
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, logf
		t := time.Now()
		err := cmd.Run()
		took := time.Since(t)
		if err != nil {
			return out, fmt.Errorf("compliance %s: %v (log %s)", strings.Join(args, " "), err, logf.Name())
		}
		var res struct {
			List      string `json:"list"`
			Rows      int    `json:"rows"`
			Unchanged bool   `json:"unchanged"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.List != l.id || res.Rows == 0 {
			return out, fmt.Errorf("compliance sanctions ingest --list %s printed %.300q (%v), want its snapshot with rows", l.id, stdout.String(), err)
		}
		out = append(out, ingestRun{list: l.id, rows: res.Rows, unchanged: res.Unchanged, took: took})
	}
	return out, nil
}

// cliKey issues a production key with scope kyc through `bin keys create`
// against the database at dbURL.
func cliKey(ctx context.Context, bin, dbURL, member string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, "keys", "create", "--member", member, "--name", "scripts/bench screening", "--scopes", "kyc")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("compliance keys create: %v: %s", err, tailString(stderr.String(), 5))
	}
	var k struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(out, &k); err != nil || k.Key == "" {
		return "", fmt.Errorf("compliance keys create printed %.300q", out)
	}
	return k.Key, nil
}

func tailString(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitLists polls GET /api/v1/sanctions/lists every 20 ms until every list
// of want is loaded, and returns when (since the server's exec) and the
// rows each list reports.
func waitLists(ctx context.Context, s *server, key string, want []string, timeout time.Duration) (time.Duration, map[string]int, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(timeout)
	last := "no answer"
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.base+listsPath, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			var env struct {
				Data struct {
					Lists []struct {
						ID     string `json:"id"`
						Rows   int    `json:"rows"`
						Loaded bool   `json:"loaded"`
					} `json:"lists"`
				} `json:"data"`
			}
			if resp.StatusCode == http.StatusOK && json.Unmarshal(body, &env) == nil {
				rows := map[string]int{}
				for _, l := range env.Data.Lists {
					if l.Loaded {
						rows[l.ID] = l.Rows
					}
				}
				ok := true
				for _, id := range want {
					if _, in := rows[id]; !in {
						ok = false
					}
				}
				if ok {
					return time.Since(s.started), rows, nil
				}
				last = fmt.Sprintf("%d of %d lists loaded", len(rows), len(want))
			} else {
				last = fmt.Sprintf("%s: %.200s", resp.Status, body)
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return 0, nil, fmt.Errorf("%s: lists not loaded within %s (last: %s); log %s:\n%s", s.name, timeout, last, s.logPath, tail(s.logPath, 10))
		}
		select {
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		case <-s.exited:
			return 0, nil, fmt.Errorf("%s exited; log %s:\n%s", s.name, s.logPath, tail(s.logPath, 20))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// indexBuilt reads the duration_ms of the last "sanctions index built"
// line of a server log, waiting up to 5 s for it.
func indexBuilt(ctx context.Context, logPath string) (time.Duration, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var found time.Duration = -1
		if f, err := os.Open(logPath); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				var l struct {
					Msg        string `json:"msg"`
					DurationMS *int64 `json:"duration_ms"`
				}
				if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "sanctions index built" && l.DurationMS != nil {
					found = time.Duration(*l.DurationMS) * time.Millisecond
				}
			}
			f.Close()
		}
		if found >= 0 {
			return found, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf(`no "sanctions index built" line with duration_ms in %s`, logPath)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// screenOutcome is what one query got in a verification or quality pass:
// top describes its best match ("" when none).
type screenOutcome struct {
	top string
	err error
}

// runQueries asks every query once through do, with workers concurrent
// keep-alive clients, and returns the outcomes in query order.
func runQueries(ctx context.Context, qs []screenQuery, workers int, do func(*http.Client, screenQuery) (string, error)) []screenOutcome {
	out := make([]screenOutcome, len(qs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			for i := range next {
				top, err := do(client, qs[i])
				out[i] = screenOutcome{top: top, err: err}
			}
		}()
	}
	for i := range qs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// screenOnce posts one query to the search route and describes its best
// match ("" when there is none); wantCoverage, when set, is the coverage
// every answer must state.
func screenOnce(ctx context.Context, client *http.Client, base, key string, q screenQuery, nameOnly bool, wantCoverage string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", base+screenPath, bytes.NewReader(screenBody(q, nameOnly)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	resp.Body.Close()
	var env struct {
		OK   bool `json:"ok"`
		Data struct {
			Screening struct {
				Matches []struct {
					Entry struct {
						List string `json:"list"`
						Name string `json:"name"`
					} `json:"entry"`
					Score       float64 `json:"score"`
					Explanation struct {
						MatchedName string `json:"matched_name"`
					} `json:"explanation"`
				} `json:"matches"`
				Coverage string `json:"coverage"`
			} `json:"screening"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &env) != nil || !env.OK {
		return "", fmt.Errorf("POST %s %s: %s: %.300s", screenPath, screenBody(q, nameOnly), resp.Status, body)
	}
	sc := env.Data.Screening
	if wantCoverage != "" && sc.Coverage != wantCoverage {
		return "", fmt.Errorf("POST %s %s: coverage %q, want %q", screenPath, screenBody(q, nameOnly), sc.Coverage, wantCoverage)
	}
	if len(sc.Matches) == 0 {
		return "", nil
	}
	m := sc.Matches[0]
	name := m.Explanation.MatchedName
	if name == "" {
		name = m.Entry.Name
	}
	return fmt.Sprintf("%q -> %q (%s, %.2f)", q.Name, name, m.Entry.List, m.Score), nil
}

// setShare counts, for one set, the queries that got a match and the errors.
type setShare struct {
	matched, total, errors int
	firstErr               error
	tops                   []string // the best match of the first few matched queries
}

func (s setShare) pct() float64 { return safeDiv(float64(s.matched)*100, float64(s.total)) }

func shareBySet(sets []benchSet, qs []screenQuery, outs []screenOutcome) []setShare {
	sh := make([]setShare, len(sets))
	for i, o := range outs {
		s := &sh[qs[i].set]
		s.total++
		if o.err != nil {
			s.errors++
			if s.firstErr == nil {
				s.firstErr = o.err
			}
			continue
		}
		if o.top != "" {
			s.matched++
			if len(s.tops) < 5 {
				s.tops = append(s.tops, o.top)
			}
		}
	}
	return sh
}

func sharesNote(sets []benchSet, sh []setShare) string {
	var parts []string
	for i, s := range sh {
		parts = append(parts, fmt.Sprintf("%s %d/%d", sets[i].name, s.matched, s.total))
	}
	return strings.Join(parts, ", ")
}

// cmdScreening measures issue 8's screening targets over HTTP (E8), then
// the OFAC-only comparison with watchman (E9a, E9b; watchman.go).
func cmdScreening(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("screening", flag.ContinueOnError)
	c.register(fs, false)
	dataDir := fs.String("data", "", "the shared data directory (default ../shared/data beside the repository, or $COMPLIANCE_SHARED_DATA)")
	conns := fs.Int("conns", 64, "concurrent keep-alive connections")
	warmup := fs.Duration("warmup", 3*time.Second, "warm-up before measuring")
	duration := fs.Duration("duration", 15*time.Second, "measured window")
	single := fs.Duration("single", 15*time.Second, "measured window of the single-client runs (E9), after 1 s of warm-up")
	ofacDB := fs.String("ofac-db", "", "URL of a database for the OFAC-only comparison (created and migrated here; empty: no comparison)")
	wmBin := fs.String("watchman", "", "path of a moov-io/watchman server binary")
	wmVersion := fs.String("watchman-version", "v0.60.0", "the watchman version the binary was built from")
	wmErr := fs.String("watchman-error", "", "why there is no watchman binary (printed in the table)")
	wmSample := fs.Int("watchman-sample", 200, "names of each set in the quality comparison, evenly spaced (0: every name; watchman answers about 10 a second here)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(false); err != nil {
		return err
	}
	dir, err := sharedDataDir(*dataDir)
	if err != nil {
		return err
	}
	sets, dobs, err := loadBenchSets(dir)
	if err != nil {
		return err
	}
	mix := interleave(sets)
	dbURL := os.Getenv("DATABASE_URL")
	if dbURL == "" {
		return errors.New("DATABASE_URL is not set")
	}

	// E8: the 8 lists, loaded with the CLI.
	t0 := time.Now()
	ingests, err := ingestLists(ctx, c.bin, dbURL, dir, c.logDir, screenLists)
	if err != nil {
		return err
	}
	ingestTook := time.Since(t0)
	var ingestNotes []string
	totalRows := 0
	for _, r := range ingests {
		totalRows += r.rows
		u := ""
		if r.unchanged {
			u = ", unchanged"
		}
		ingestNotes = append(ingestNotes, fmt.Sprintf("%s %d rows %.0f ms%s", r.list, r.rows, ms(r.took), u))
	}
	say("screening: ingested %d lists (%d rows) with `compliance sanctions ingest --no-graph` in %s", len(ingests), totalRows, ingestTook.Round(time.Millisecond))
	key, err := cliKey(ctx, c.bin, dbURL, "bench-screening")
	if err != nil {
		return err
	}
	e8, err := measureE8(ctx, c, sets, mix, key, *conns, *warmup, *duration)
	if err != nil {
		return err
	}
	e8.ingestTook, e8.ingestNotes, e8.totalRows, e8.dobs = ingestTook, ingestNotes, totalRows, dobs
	if err := appendResults(c.out, e8.results(sets, mix, *conns, *warmup, *duration)...); err != nil {
		return err
	}

	if *ofacDB == "" {
		return nil
	}
	return compareWatchman(ctx, c, wmOpts{
		dataDir: dir, ofacDB: *ofacDB, sets: sets, mix: mix,
		conns: *conns, warmup: *warmup, duration: *duration, single: *single,
		sample: *wmSample, bin: *wmBin, version: *wmVersion, buildErr: *wmErr,
	})
}

// sharedDataDir returns dir, $COMPLIANCE_SHARED_DATA or ../shared/data
// beside the repository (found upwards from the working directory), the
// first that holds the benchmarks.
func sharedDataDir(dir string) (string, error) {
	ok := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "benchmarks", benchFiles[0].file))
		return err == nil
	}
	for _, d := range []string{dir, os.Getenv("COMPLIANCE_SHARED_DATA")} {
		if d != "" {
			if !ok(d) {
				return "", fmt.Errorf("%s holds no benchmarks/%s", d, benchFiles[0].file)
			}
			return d, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if c := filepath.Join(d, "..", "shared", "data"); ok(c) {
				return filepath.Clean(c), nil
			}
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no shared data: pass -data or set COMPLIANCE_SHARED_DATA")
		}
	}
}

// e8Run is what E8 measured.
type e8Run struct {
	ingestTook  time.Duration
	ingestNotes []string
	totalRows   int
	dobs        dobFixes
	listsAt     time.Duration // exec to every list loaded
	indexBuild  time.Duration // from the server log
	idleRSS     int64         // after the index is built and the mix verified
	verifyTook  time.Duration
	shares      []setShare // the mix with qualifiers, every list
	health      loadRun
	screen      loadRun
	peakRSS     int64
	samples     int
	hwm         int64
}

// measureE8 starts a server on the bench database, waits for the 8 lists,
// checks every query of the mix once, then drives GET /healthz and the
// search route at conns connections.
func measureE8(ctx context.Context, c common, sets []benchSet, mix []screenQuery, key string, conns int, warmup, duration time.Duration) (e8Run, error) {
	var r e8Run
	s, err := startServer(ctx, "screening", c.bin, c.logDir, "SANCTIONS_SYNC_INTERVAL=0")
	if err != nil {
		return r, err
	}
	defer s.stop()
	ids := make([]string, len(screenLists))
	for i, l := range screenLists {
		ids[i] = l.id
	}
	if r.listsAt, _, err = waitLists(ctx, s, key, ids, 60*time.Second); err != nil {
		return r, err
	}
	if r.indexBuild, err = indexBuilt(ctx, s.logPath); err != nil {
		return r, err
	}
	say("screening: %d lists loaded %s after exec (index built in %s by the server's log)", len(ids), r.listsAt.Round(time.Millisecond), r.indexBuild)

	t := time.Now()
	outs := runQueries(ctx, mix, 4, func(cl *http.Client, q screenQuery) (string, error) {
		return screenOnce(ctx, cl, s.base, key, q, false, "complete")
	})
	r.verifyTook = time.Since(t)
	r.shares = shareBySet(sets, mix, outs)
	for _, sh := range r.shares {
		if sh.firstErr != nil {
			return r, fmt.Errorf("screening: %d of the mix's queries failed; first: %v", sh.errors, sh.firstErr)
		}
	}
	say("screening: every one of %d queries answers 200 with coverage complete (%s); matched: %s", len(mix), r.verifyTook.Round(time.Millisecond), sharesNote(sets, r.shares))
	if r.idleRSS, err = vmRSS(s.pid); err != nil {
		return r, err
	}

	opts := loadOpts{conns: conns, warmup: warmup, duration: duration, path: "/healthz", ncpu: runtime.NumCPU()}
	if r.health, err = driveLoad(ctx, c, s, "healthz", opts); err != nil {
		return r, err
	}
	addr := strings.TrimPrefix(s.base, "http://")
	opts.path = screenPath
	opts.requests = cycling(screenRequests(addr, key, mix, false), conns)
	stop := rssPeak(s.pid)
	r.screen, err = driveLoad(ctx, c, s, "screen", opts)
	r.peakRSS, r.samples = stop()
	r.hwm = vmHWM(s.pid)
	return r, err
}

func (r e8Run) results(sets []benchSet, mix []screenQuery, conns int, warmup, duration time.Duration) []Result {
	sec := "E8 sanctions screening over HTTP"
	matched := 0
	for _, sh := range r.shares {
		matched += sh.matched
	}
	var setNames []string
	for _, s := range sets {
		setNames = append(setNames, fmt.Sprintf("%s %d", s.name, len(s.queries)))
	}
	cfg := fmt.Sprintf("POST %s {name, country, dob} with a production key with scope kyc (no per-route limit; audited), %d keep-alive connections, %s warm-up, %s measured; "+
		"%d queries cycled, one from each of yente's sets in turn (%s; nationality and date of birth as the files give them, %s); all 8 lists, %d entries",
		screenPath, conns, warmup, duration, len(mix), strings.Join(setNames, ", "), r.dobs, r.totalRows)
	h, sc := r.health, r.screen
	rs := []Result{
		{Section: sec, Name: "ingest: 8 lists through the CLI", Value: r.ingestTook.Seconds(), Unit: "s", Goal: Info,
			Baseline: fmtNum(float64(r.totalRows), "entries"),
			Note:     "`compliance sanctions ingest --list ID --no-graph FILE...` once per list, one process each: " + strings.Join(r.ingestNotes, ", ")},
		{Section: sec, Name: "index build (server log)", Value: ms(r.indexBuild), Unit: "ms", Goal: Info,
			Baseline: fmt.Sprintf("exec -> 8 lists loaded: %.0f ms", ms(r.listsAt)),
			Note:     `duration_ms of the server's "sanctions index built" line; the server answers /readyz first and builds the index in the background; GET ` + listsPath + " polled every 20 ms until all 8 are loaded"},
		{Section: sec, Name: "ingest + index build", Value: (r.ingestTook + r.indexBuild).Seconds(), Unit: "s", Goal: Below, Target: 20,
			Baseline: fmt.Sprintf("ingest %.1f s + index %.1f s", r.ingestTook.Seconds(), r.indexBuild.Seconds()),
			Note:     "issue 8: load all lists from ../shared/data and build the index under 20 s (measured in-process by the sanctions section as well)"},
		{Section: sec, Name: "screen: throughput", Value: sc.rps(), Unit: "screens/s", Goal: AtLeast, Target: 2000,
			Baseline: "healthz: " + fmtNum(h.rps(), "req/s"), Note: cfg},
		{Section: sec, Name: "screen: p99 latency", Value: ms(sc.pct(99)), Unit: "ms", Goal: Info,
			Baseline: fmt.Sprintf("healthz: %.1f ms", ms(h.pct(99)))},
		{Section: sec, Name: "screen: p50 latency", Value: ms(sc.pct(50)), Unit: "ms", Goal: Info,
			Baseline: fmt.Sprintf("healthz: %.1f ms", ms(h.pct(50))),
			Note: fmt.Sprintf("p90 %.1f ms, p99.9 %.1f ms, max %.1f ms; p99 of each second of the window: %s ms (healthz: %s ms)",
				ms(sc.pct(90)), ms(sc.pct(99.9)), ms(sc.pct(100)), spread(sc.perSecond), spread(h.perSecond))},
		{Section: sec, Name: "screen: errors (non-200 + transport)", Value: float64(sc.errors), Unit: "errors", Goal: Exactly, Target: 0,
			Baseline: fmt.Sprintf("healthz: %d", h.errors), Note: codesNote(sc)},
		{Section: sec, Name: "screen: server VmRSS, peak under load", Value: mb(r.peakRSS), Unit: "MB", Goal: Below, Target: 1000,
			Baseline: fmt.Sprintf("idle, index built: %.0f MB", mb(r.idleRSS)),
			Note: fmt.Sprintf("MB = 10^6 bytes; %d samples of /proc/PID/status VmRSS, every 50 ms from the start of the warm-up to the end of the window; VmHWM of the process at the end %.0f MB (includes the index build)",
				r.samples, mb(r.hwm))},
		{Section: sec, Name: "screen / healthz throughput", Value: safeDiv(sc.rps(), h.rps()), Unit: "x", Goal: Info,
			Note: fmt.Sprintf("healthz = GET /healthz on the same server at the same concurrency, keyless and audited: %.0f req/s, p50 %.1f ms, p99 %.1f ms, %d errors",
				h.rps(), ms(h.pct(50)), ms(h.pct(99)), h.errors)},
		{Section: sec, Name: "mix: queries with a match", Value: safeDiv(float64(matched)*100, float64(len(mix))), Unit: "%", Goal: Info,
			Baseline: fmt.Sprintf("%s of %s", groupThousands(strconv.Itoa(matched)), groupThousands(strconv.Itoa(len(mix)))),
			Note: fmt.Sprintf("each query sent once before the load (4 clients, %.1f s), every answer 200 with coverage complete; matched at the default threshold, with country and date of birth: %s (hits and misses both in the mix; the sanctions section reports quality in-process)",
				r.verifyTook.Seconds(), sharesNote(sets, r.shares)) + negativesNote(sets, r.shares)},
	}
	return append(rs, cpuResults(sec, cpuNote, sc, h)...)
}

// negativesNote quotes the matches of the negative sets' queries (each
// set's first five: query -> matched name (list, score)).
func negativesNote(sets []benchSet, sh []setShare) string {
	var parts []string
	for i, s := range sh {
		if !sets[i].positive && len(s.tops) > 0 {
			parts = append(parts, sets[i].name+": "+strings.Join(s.tops, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; negatives matched: " + strings.Join(parts, "; ")
}
