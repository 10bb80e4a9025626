package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

func TestSanctionsURLs(t *testing.T) {
	tests := []struct {
		name string
		list string
		env  map[string]string
		want []string
	}{
		{"default", "un", nil, DefaultSanctionsURLs["un"]},
		{"override", "us_sdn", map[string]string{"SANCTIONS_URL_US_SDN": " http://a/sdn.csv , http://a/alt.csv,"}, []string{"http://a/sdn.csv", "http://a/alt.csv"}},
		{"off", "ch_seco", map[string]string{"SANCTIONS_URL_CH_SECO": "off"}, nil},
		{"other list's variable", "eu", map[string]string{"SANCTIONS_URL_UN": "http://a/un.xml"}, DefaultSanctionsURLs["eu"]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sanctionsURLs(tt.list, func(k string) string { return tt.env[k] }); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sanctionsURLs(%s, %v) = %q, want %q", tt.list, tt.env, got, tt.want)
			}
		})
	}
	for _, l := range graph.SanctionsLists {
		if len(DefaultSanctionsURLs[l.ID]) == 0 {
			t.Errorf("DefaultSanctionsURLs[%s] is empty, want the official URLs", l.ID)
		}
	}
}

// runSanctions runs `compliance sanctions args...` against databaseURL and
// returns its stdout.
func runSanctions(t *testing.T, databaseURL string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	err := sanctionsCommand(context.Background(), Config{DatabaseURL: databaseURL}, log, args, &stdout, &stderr)
	return stdout.String(), err
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonlEntries(n int, suffix string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"list": "un", "source_id": "X%d", "kind": "person", "name": "Example Person %d%s"}`+"\n", i, i, suffix)
	}
	return b.String()
}

func TestSanctionsIngestCommand(t *testing.T) {
	dbURL := relationaltest.NewURL(t)
	dir := t.TempDir()
	good := writeFile(t, dir, "un.jsonl", `{"_snapshot": {"published": "2026-04-01T00:00:00Z"}}`+"\n"+jsonlEntries(10, ""))

	out, err := runSanctions(t, dbURL, "ingest", "--list", "un", good)
	if err != nil {
		t.Fatalf("sanctions ingest --list un un.jsonl error = %v", err)
	}
	var first ingestResult
	if err := json.Unmarshal([]byte(out), &first); err != nil {
		t.Fatalf("sanctions ingest output %q: %v", out, err)
	}
	sum := sha256.Sum256([]byte(`{"_snapshot": {"published": "2026-04-01T00:00:00Z"}}` + "\n" + jsonlEntries(10, "")))
	if first.List != "un" || first.Rows != 10 || first.Format != "jsonl" || first.SHA256 != hex.EncodeToString(sum[:]) ||
		first.SnapshotID == "" || first.Unchanged || first.Published == nil || first.Published.Format(time.RFC3339) != "2026-04-01T00:00:00Z" {
		t.Errorf("sanctions ingest output = %s, want list un, 10 rows, the file's sha256, its publication date and a snapshot id", out)
	}

	// The same file again: nothing new is stored.
	out, err = runSanctions(t, dbURL, "ingest", good, "--list", "un")
	var again ingestResult
	json.Unmarshal([]byte(out), &again)
	if err != nil || !again.Unchanged || again.SnapshotID != first.SnapshotID {
		t.Errorf("sanctions ingest of the same file = %s, %v; want unchanged, snapshot %s", out, err, first.SnapshotID)
	}

	// Bad files never replace the live snapshot.
	bad := []struct {
		name, list, content, want string
		code                      graph.Code
	}{
		{"malformed line", "un", jsonlEntries(10, "") + "{not json\n", "bad.jsonl: line 11", graph.CodeInvalid},
		{"another list's entries", "eu", jsonlEntries(10, ""), `list "un" is not the list being ingested (eu)`, graph.CodeInvalid},
		{"unknown list", "un_sc", jsonlEntries(10, ""), `unknown list "un_sc"`, graph.CodeInvalid},
		{"not a list file", "un", "<html>login page</html>", "not a recognised sanctions list format", graph.CodeInvalid},
		{"truncated list", "un", jsonlEntries(4, " v2"), "less than half the current snapshot's 10", graph.CodeConflict},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			p := writeFile(t, dir, "bad.jsonl", b.content)
			_, err := runSanctions(t, dbURL, "ingest", "--list", b.list, p)
			if graph.ErrorCode(err) != b.code || !strings.Contains(err.Error(), b.want) {
				t.Errorf("sanctions ingest (%s) error = %v, want %s containing %q", b.name, err, b.code, b.want)
			}
		})
	}
	out, err = runSanctions(t, dbURL, "lists")
	if err != nil {
		t.Fatal(err)
	}
	var lists struct {
		Lists []struct {
			relational.ListStatus
			StaleHours *int `json:"stale_hours"`
		} `json:"lists"`
	}
	if err := json.Unmarshal([]byte(out), &lists); err != nil || len(lists.Lists) != 8 {
		t.Fatalf("sanctions lists output %s: %v; want 8 lists", out, err)
	}
	un := lists.Lists[2]
	if un.List != "un" || un.SnapshotID != first.SnapshotID || un.Rows != 10 || un.StaleHours != nil || lists.Lists[0].Rows != 0 {
		t.Errorf("sanctions lists = %s, want un still at the first snapshot (10 rows), us_sdn never ingested", out)
	}

	// --force stores a list that really shrank.
	small := writeFile(t, dir, "small.jsonl", jsonlEntries(4, " v2"))
	out, err = runSanctions(t, dbURL, "ingest", "--force", "--list", "un", small)
	var forced ingestResult
	json.Unmarshal([]byte(out), &forced)
	if err != nil || forced.Rows != 4 || forced.SnapshotID == first.SnapshotID {
		t.Errorf("sanctions ingest --force (4 rows) = %s, %v; want a new snapshot of 4 rows", out, err)
	}

	for _, args := range [][]string{{"ingest", good}, {"ingest", "--list", "un"}, {"frobnicate"}, {"sync", good}} {
		if _, err := runSanctions(t, dbURL, args...); err == nil {
			t.Errorf("sanctions %q error = nil, want a usage error", args)
		}
	}
}

// sharedDataDir returns ../shared/data beside the repository, or skips.
func sharedDataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("COMPLIANCE_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Skipf("real list files not found at %s (set COMPLIANCE_SHARED_DATA): skipping", dir)
	}
	return dir
}

// listServer serves the shared data files with ETag and Last-Modified, as
// the official servers do, counting full and not-modified answers. Files
// in override are served in place of the shared ones; status forces an
// error status for a path.
type listServer struct {
	dir      string
	mu       sync.Mutex
	override map[string][]byte
	status   map[string]int
	full     map[string]int
	notMod   map[string]int
}

func (s *listServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code := s.status[r.URL.Path]; code != 0 {
		http.Error(w, "unavailable", code)
		return
	}
	data, ok := s.override[r.URL.Path]
	if !ok {
		var err error
		if data, err = os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))); err != nil {
			http.NotFound(w, r)
			return
		}
	}
	sum := sha256.Sum256(data)
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
	rec := &statusRecorder{ResponseWriter: w}
	http.ServeContent(rec, r, r.URL.Path, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), bytes.NewReader(data))
	if rec.code == http.StatusNotModified {
		s.notMod[r.URL.Path]++
	} else {
		s.full[r.URL.Path]++
	}
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// TestSanctionsSync syncs the 8 lists from a local server serving the
// shared data files: all are stored; a second sync finds every file not
// modified and stores nothing; a changed file of an OFAC set brings a new
// snapshot of that list only (the set's unchanged files fetched whole); a
// list whose server fails keeps its snapshot while the others go on.
func TestSanctionsSync(t *testing.T) {
	dir := sharedDataDir(t)
	srv := &listServer{dir: dir, override: map[string][]byte{}, status: map[string]int{}, full: map[string]int{}, notMod: map[string]int{}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := map[string]string{
		"SANCTIONS_URL_US_SDN":  ts.URL + "/ofac/sdn.csv," + ts.URL + "/ofac/add.csv," + ts.URL + "/ofac/alt.csv," + ts.URL + "/ofac/sdn_comments.csv",
		"SANCTIONS_URL_US_CONS": ts.URL + "/ofac/cons_prim.csv," + ts.URL + "/ofac/cons_add.csv," + ts.URL + "/ofac/cons_alt.csv," + ts.URL + "/ofac/cons_comments.csv",
		"SANCTIONS_URL_UN":      ts.URL + "/un/un_consolidated.xml",
		"SANCTIONS_URL_EU":      ts.URL + "/eu/eu_fsf_ammitto_2026-03-15.jsonl.gz",
		"SANCTIONS_URL_UK_HMT":  ts.URL + "/uk/uk_sanctions_list_ammitto_2026-08-22.jsonl.gz",
		"SANCTIONS_URL_CA":      ts.URL + "/ca/ca_sema_ammitto_2026-08-22.jsonl.gz",
		"SANCTIONS_URL_AU_DFAT": ts.URL + "/au/dfat_regulation8_consolidated_2024-12.xlsx",
		"SANCTIONS_URL_CH_SECO": ts.URL + "/ch/ch_seco_ammitto_2026-03-15.jsonl.gz",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	dbURL := relationaltest.NewURL(t)
	ctx := context.Background()
	db, err := relational.Open(ctx, dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	getenv := func(k string) string { return env[k] }
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	client := ts.Client()

	wantRows := map[string]int{"us_sdn": 14965, "us_cons": 442, "un": 1003, "eu": 6457, "uk_hmt": 6349, "ca": 5690, "au_dfat": 3062, "ch_seco": 7608}
	results, err := syncSanctions(ctx, db, client, nil, getenv, false, log)
	if err != nil {
		t.Fatalf("first sync error = %v", err)
	}
	ids := map[string]string{}
	for _, r := range results {
		if r.Status != "updated" || r.Rows != wantRows[r.List] || r.SnapshotID == "" {
			t.Errorf("first sync %s = %+v, want updated with %d rows", r.List, r, wantRows[r.List])
		}
		ids[r.List] = r.SnapshotID
	}
	if len(results) != 8 {
		t.Fatalf("first sync = %d results, want 8", len(results))
	}

	// Nothing changed: every request is conditional and answered 304.
	full := len(srv.full)
	results, err = syncSanctions(ctx, db, client, nil, getenv, false, log)
	if err != nil {
		t.Fatalf("second sync error = %v", err)
	}
	for _, r := range results {
		if r.Status != "unchanged" || r.SnapshotID != ids[r.List] || r.Rows != wantRows[r.List] {
			t.Errorf("second sync %s = %+v, want unchanged, snapshot %s", r.List, r, ids[r.List])
		}
	}
	srv.mu.Lock()
	if n := sumCounts(srv.notMod); n != 14 {
		t.Errorf("second sync: %d not-modified answers, want 14 (every file of the 8 lists)", n)
	}
	srv.mu.Unlock()
	_ = full

	// One file of the SDN set changes: a new SDN snapshot, built from the
	// whole set; the other lists stay.
	add, _ := os.ReadFile(filepath.Join(dir, "ofac", "add.csv"))
	srv.mu.Lock()
	srv.override["/ofac/add.csv"] = bytes.Replace(add, []byte("Zurich CH-8022"), []byte("Zürich CH-8022"), 1)
	srv.full = map[string]int{}
	srv.mu.Unlock()
	results, err = syncSanctions(ctx, db, client, []string{"us_sdn", "un"}, getenv, false, log)
	if err != nil {
		t.Fatalf("third sync error = %v", err)
	}
	if r := results[0]; r.List != "us_sdn" || r.Status != "updated" || r.SnapshotID == ids["us_sdn"] || r.Rows != 14965 {
		t.Errorf("third sync us_sdn = %+v, want a new snapshot of 14965 rows", r)
	}
	if r := results[1]; r.List != "un" || r.Status != "unchanged" {
		t.Errorf("third sync un = %+v, want unchanged", r)
	}
	srv.mu.Lock()
	if srv.full["/ofac/sdn.csv"] != 1 || srv.full["/ofac/add.csv"] != 1 || srv.full["/ofac/alt.csv"] != 1 {
		t.Errorf("third sync full answers = %v, want each file of the SDN set fetched whole once", srv.full)
	}
	srv.mu.Unlock()
	cur, err := db.CurrentSnapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cur {
		if s.List != "us_sdn" {
			continue
		}
		for _, e := range s.Entries {
			if e.SourceID == "306" && !strings.Contains(strings.Join(e.Addresses, "|"), "Zürich") {
				t.Errorf("after the third sync, BANCO NACIONAL DE CUBA addresses = %q, want the changed add.csv", e.Addresses)
			}
		}
	}

	// A failing server and a bad file: those lists fail and keep their
	// snapshots; the others are synced.
	srv.mu.Lock()
	srv.status["/un/un_consolidated.xml"] = http.StatusInternalServerError
	srv.override["/ca/ca_sema_ammitto_2026-08-22.jsonl.gz"] = []byte("<html>maintenance</html>")
	srv.mu.Unlock()
	results, err = syncSanctions(ctx, db, client, []string{"un", "ca", "eu"}, getenv, false, log)
	if err == nil || !strings.Contains(err.Error(), "2 of 3 lists failed: un, ca") {
		t.Errorf("sync with a failing server error = %v, want one naming un and ca", err)
	}
	if len(results) != 3 || results[0].Status != "failed" || !strings.Contains(results[0].Error, "HTTP 500") ||
		results[1].Status != "failed" || !strings.Contains(results[1].Error, "not a recognised sanctions list format") ||
		results[2].Status != "unchanged" {
		t.Errorf("sync with a failing server = %+v, want un and ca failed (HTTP 500, bad file), eu unchanged", results)
	}
	st, _ := db.ListFreshness(ctx)
	for _, s := range st {
		if (s.List == "un" || s.List == "ca") && (s.SnapshotID != ids[s.List] || s.Rows != wantRows[s.List]) {
			t.Errorf("after failed syncs, %s = %+v, want its snapshot %s still current", s.List, s, ids[s.List])
		}
	}

	// The command prints one JSON result per list.
	out, err := runSanctions(t, dbURL, "sync", "--list", "eu,uk_hmt")
	if err != nil {
		t.Fatalf("sanctions sync --list eu,uk_hmt error = %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	var n int
	for dec.More() {
		var r ingestResult
		if err := dec.Decode(&r); err != nil || r.Status != "unchanged" {
			t.Errorf("sanctions sync output %q: %+v, %v; want unchanged results", out, r, err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("sanctions sync --list eu,uk_hmt printed %d results, want 2", n)
	}
	if _, err := runSanctions(t, dbURL, "sync", "--list", "eu,nowhere"); graph.ErrorCode(err) != graph.CodeInvalid {
		t.Errorf("sanctions sync --list eu,nowhere error = %v, want invalid", err)
	}
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// The scheduled refresh in serve fetches the configured lists on its
// interval, stores what changed, loads it into the graph, and leaves
// unchanged lists alone on the next tick.
func TestScheduledSanctionsSync(t *testing.T) {
	dir := sharedDataDir(t)
	srv := &listServer{dir: dir, override: map[string][]byte{}, status: map[string]int{}, full: map[string]int{}, notMod: map[string]int{}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, l := range []string{"US_SDN", "US_CONS", "EU", "UK_HMT", "CA", "AU_DFAT", "CH_SECO"} {
		t.Setenv("SANCTIONS_URL_"+l, "off")
	}
	t.Setenv("SANCTIONS_URL_UN", ts.URL+"/un/un_consolidated.xml")
	db, err := relational.Open(context.Background(), relationaltest.NewURL(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	neo := graphdbtest.Lookup(t)
	cfg := Config{SanctionsSyncEvery: 300 * time.Millisecond, Neo4j: graphdb.Config(neo)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		scheduleSanctionsSync(ctx, cfg, db, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	}()
	deadline := time.Now().Add(30 * time.Second)
	var un relational.ListStatus
	for time.Now().Before(deadline) {
		st, err := db.ListFreshness(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st {
			if s.List == "un" && s.SnapshotID != "" && s.CheckedAt != nil && s.IngestedAt != nil && s.CheckedAt.After(*s.IngestedAt) {
				un = s // stored on one tick, found unchanged on a later one
			}
		}
		if un.SnapshotID != "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	<-done
	if un.SnapshotID == "" || un.Rows != 1003 {
		t.Fatalf("after scheduled syncs the UN list is %+v; want 1003 rows, stored once and checked again", un)
	}
	srv.mu.Lock()
	full, notMod := srv.full["/un/un_consolidated.xml"], srv.notMod["/un/un_consolidated.xml"]
	srv.mu.Unlock()
	if full != 1 || notMod < 1 {
		t.Errorf("UN file fetched whole %d times and answered 304 %d times; want once, then 304s", full, notMod)
	}
	g, err := graphdb.Open(context.Background(), graphdb.Config(neo))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	if links, err := g.SanctionsLinks(context.Background(), "un:TAi.034"); err != nil || len(links) == 0 {
		t.Errorf("the scheduled sync did not load the UN links into the graph: %v, %v", links, err)
	}
}
