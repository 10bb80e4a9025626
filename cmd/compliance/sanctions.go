package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/sanctions/ingest"
	"github.com/tradecompliance/compliance/relational"
)

const sanctionsUsage = `usage:
  compliance sanctions ingest --list ID [--force] [--no-graph] FILE...
      load one list's files in its published format (gzip accepted); prints the snapshot as JSON;
      then loads the list into the graph (entries and "linked to" edges) unless --no-graph
  compliance sanctions sync [--list ID[,ID...]] [--force]
      fetch each list from its configured URLs (SANCTIONS_URL_<ID>), skipping unchanged ones
  compliance sanctions lists
      print each list's current snapshot: rows, publication date, ingest and check times
  compliance sanctions graph [--list ID[,ID...]]
      (re)load the current snapshots into the graph: entries and their "linked to" edges

lists: us_sdn, us_cons, un, eu, uk_hmt, ca, au_dfat, ch_seco
--force stores a snapshot even when it has less than half the rows of the current one.
`

// DefaultSanctionsURLs are the official publication URLs of each list, used
// by sync unless SANCTIONS_URL_<LIST> (upper case, e.g. SANCTIONS_URL_US_SDN)
// names others, comma-separated, or "off".
var DefaultSanctionsURLs = map[string][]string{
	sanctions.ListUSSDN: {
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV",
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADD.CSV",
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ALT.CSV",
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN_COMMENTS.CSV",
	},
	sanctions.ListUSCons: {
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_PRIM.CSV",
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ADD.CSV",
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ALT.CSV",
		"https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_COMMENTS.CSV",
	},
	sanctions.ListUN:     {"https://scsanctions.un.org/resources/xml/en/consolidated.xml"},
	sanctions.ListEU:     {"https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw"},
	sanctions.ListUKHMT:  {"https://ofsistorage.blob.core.windows.net/publishlive/2022format/ConList.csv"},
	sanctions.ListCA:     {"https://www.international.gc.ca/world-monde/assets/office_docs/international_relations-relations_internationales/sanctions/sema-lmes.xml"},
	sanctions.ListAUDFAT: {"https://www.dfat.gov.au/sites/default/files/regulation8_consolidated.xlsx"},
	sanctions.ListCHSECO: {"https://www.sesam.search.admin.ch/sesam-search-web/pages/downloadXmlGesamtliste.xhtml?lang=en&action=downloadXmlGesamtlisteAction"},
}

// sanctionsCommand runs `compliance sanctions ingest|sync|lists`.
func sanctionsCommand(ctx context.Context, cfg Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, sanctionsUsage)
		return flag.ErrHelp
	}
	fs := flag.NewFlagSet("sanctions "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sanctionsUsage) }
	list := fs.String("list", "", "list id (ingest: required; sync: comma-separated, default all)")
	force := fs.Bool("force", false, "store a snapshot even when it has less than half the rows of the current one")
	noGraph := fs.Bool("no-graph", false, "ingest: do not load the list into the graph now (run `compliance sanctions graph` later)")
	rest, err := parseInterspersed(fs, args[1:]) // flags may come after the files
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	switch args[0] {
	case "ingest":
		if *list == "" || len(rest) == 0 {
			fmt.Fprint(stderr, sanctionsUsage)
			return errors.New("sanctions ingest needs --list and at least one file")
		}
		files, err := readListFiles(rest)
		if err != nil {
			return err
		}
		parsed, err := ingest.Parse(*list, files)
		if err != nil {
			return err
		}
		db, err := relational.Open(ctx, cfg.DatabaseURL, log)
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := storeParsed(ctx, db, parsed, *force)
		if err != nil {
			return err
		}
		log.Info("sanctions list ingested", "list", res.List, "rows", res.Rows, "unchanged", res.Unchanged, "snapshot_id", res.SnapshotID)
		if err := enc.Encode(res); err != nil {
			return err
		}
		if res.Unchanged || *noGraph {
			return nil
		}
		_, err = loadSanctionsGraph(ctx, cfg, log, db, []string{res.List})
		return err
	case "sync":
		if len(rest) > 0 {
			return fmt.Errorf("sanctions sync takes no files (got %q); use ingest for files", rest[0])
		}
		var lists []string
		if *list != "" {
			lists = strings.Split(*list, ",")
		}
		db, err := relational.Open(ctx, cfg.DatabaseURL, log)
		if err != nil {
			return err
		}
		defer db.Close()
		results, err := syncSanctions(ctx, db, &http.Client{Timeout: 10 * time.Minute}, lists, environ, *force, log)
		var updated []string
		for _, r := range results {
			if e := enc.Encode(r); e != nil {
				return e
			}
			if r.Status == "updated" {
				updated = append(updated, r.List)
			}
		}
		if len(updated) > 0 {
			if _, gerr := loadSanctionsGraph(ctx, cfg, log, db, updated); gerr != nil {
				return errors.Join(err, gerr)
			}
		}
		return err
	case "graph":
		db, err := relational.Open(ctx, cfg.DatabaseURL, log)
		if err != nil {
			return err
		}
		defer db.Close()
		var lists []string
		if *list != "" {
			lists = strings.Split(*list, ",")
		}
		res, err := loadSanctionsGraph(ctx, cfg, log, db, lists)
		if e := enc.Encode(map[string]any{"lists": res}); e != nil {
			return e
		}
		return err
	case "lists":
		db, err := relational.Open(ctx, cfg.DatabaseURL, log)
		if err != nil {
			return err
		}
		defer db.Close()
		st, err := db.ListFreshness(ctx)
		if err != nil {
			return err
		}
		out := make([]listFreshness, len(st))
		now := time.Now()
		for i, s := range st {
			out[i] = listFreshness{ListStatus: s}
			if s.CheckedAt != nil {
				if h := int(now.Sub(*s.CheckedAt).Hours()); h >= 48 {
					out[i].StaleHours = &h
				}
			}
		}
		return enc.Encode(map[string]any{"lists": out})
	default:
		fmt.Fprint(stderr, sanctionsUsage)
		return fmt.Errorf("unknown sanctions command %q", args[0])
	}
}

// listFreshness is a list's status as `sanctions lists` prints it.
type listFreshness struct {
	relational.ListStatus
	// StaleHours is the age of the last check in hours when it is 48 or
	// more, else null.
	StaleHours *int `json:"stale_hours"`
}

// ingestResult is what ingest and sync print for one list.
type ingestResult struct {
	List       string         `json:"list"`
	Status     string         `json:"status,omitempty"` // sync: updated, unchanged, failed, off
	Format     string         `json:"format,omitempty"`
	Rows       int            `json:"rows"`
	SHA256     string         `json:"sha256,omitempty"`
	Published  *time.Time     `json:"published"`
	SnapshotID string         `json:"snapshot_id,omitempty"`
	Source     string         `json:"source,omitempty"`
	Unchanged  bool           `json:"unchanged"`
	Orphans    map[string]int `json:"orphans,omitempty"`
	Skipped    int            `json:"skipped,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// readListFiles reads the named files, refusing ones too large to parse.
func readListFiles(paths []string) ([]ingest.File, error) {
	files := make([]ingest.File, 0, len(paths))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if fi.Size() > ingest.MaxFileBytes {
			return nil, graph.Invalid("file", "%s is larger than %d MiB", p, ingest.MaxFileBytes>>20)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, ingest.File{Name: p, Data: b})
	}
	return files, nil
}

// storeParsed stores a fully parsed snapshot as its list's current one.
// When its input is byte-identical to the current snapshot's, it only
// records the check. A snapshot with less than half the rows of the current
// one is refused unless force: a truncated file parses too.
func storeParsed(ctx context.Context, db *relational.DB, p *ingest.Parsed, force bool) (ingestResult, error) {
	res := ingestResult{List: p.List, Format: p.Format, Rows: len(p.Entries), SHA256: p.SHA256, Source: p.Source,
		Orphans: p.Orphans, Skipped: p.Skipped}
	if !p.Published.IsZero() {
		t := p.Published.UTC()
		res.Published = &t
	}
	st, err := db.ListFreshness(ctx)
	if err != nil {
		return res, err
	}
	var cur relational.ListStatus
	if i := slices.IndexFunc(st, func(s relational.ListStatus) bool { return s.List == p.List }); i >= 0 {
		cur = st[i]
	}
	if cur.SnapshotID != "" && cur.SHA256 == p.SHA256 {
		id, err := db.TouchSnapshot(ctx, p.List)
		if err != nil {
			return res, err
		}
		res.SnapshotID, res.Unchanged = id, true
		return res, nil
	}
	if !force && cur.Rows > 0 && len(p.Entries) < cur.Rows/2 {
		return res, graph.Errorf(graph.CodeConflict,
			"%s: the new file has %d entries, less than half the current snapshot's %d; the current snapshot stays live (use --force if the list really shrank)",
			p.List, len(p.Entries), cur.Rows)
	}
	id, err := db.SaveSnapshot(ctx, p.Snapshot)
	if err != nil {
		return res, err
	}
	res.SnapshotID = id
	return res, nil
}

// sanctionsURLs returns the URLs sync fetches for list: SANCTIONS_URL_<LIST>
// when set (comma-separated; "off" disables the list), else the defaults.
func sanctionsURLs(list string, getenv func(string) string) []string {
	v := strings.TrimSpace(getenv("SANCTIONS_URL_" + strings.ToUpper(list)))
	if v == "" {
		return DefaultSanctionsURLs[list]
	}
	if strings.EqualFold(v, "off") {
		return nil
	}
	var urls []string
	for _, u := range strings.Split(v, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

// syncSanctions fetches each list (all 8 when lists is empty) from its
// URLs with conditional requests and stores what changed, one list at a
// time. A list whose every URL answers 304 Not Modified, or whose files are
// byte-identical to its current snapshot, is only marked checked. A list
// that fails (fetch, parse or store) keeps its current snapshot; the others
// go on. It returns one result per list and an error naming the failed
// ones. The scheduled refresh calls it too.
func syncSanctions(ctx context.Context, db *relational.DB, client *http.Client, lists []string, getenv func(string) string, force bool, log *slog.Logger) ([]ingestResult, error) {
	if len(lists) == 0 {
		for _, l := range graph.SanctionsLists {
			lists = append(lists, l.ID)
		}
	}
	for _, l := range lists {
		if !ingest.KnownList(l) {
			return nil, graph.Invalid("list", "unknown list %q", l)
		}
	}
	var results []ingestResult
	var failed []string
	for _, list := range lists {
		urls := sanctionsURLs(list, getenv)
		if len(urls) == 0 {
			results = append(results, ingestResult{List: list, Status: "off"})
			continue
		}
		res, err := syncList(ctx, db, client, list, urls, force)
		if err != nil {
			res.List, res.Status, res.Error = list, "failed", err.Error()
			failed = append(failed, list)
			log.Warn("sanctions sync failed", "list", list, "err", err)
		} else {
			log.Info("sanctions list synced", "list", list, "status", res.Status, "rows", res.Rows, "snapshot_id", res.SnapshotID)
		}
		results = append(results, res)
	}
	if len(failed) > 0 {
		return results, fmt.Errorf("sanctions sync: %d of %d lists failed: %s", len(failed), len(lists), strings.Join(failed, ", "))
	}
	return results, nil
}

// fetched is one URL's answer.
type fetched struct {
	url          string
	notModified  bool
	body         []byte
	etag         string
	lastModified string
}

func syncList(ctx context.Context, db *relational.DB, client *http.Client, list string, urls []string, force bool) (ingestResult, error) {
	res := ingestResult{List: list}
	st, err := db.ListFreshness(ctx)
	if err != nil {
		return res, err
	}
	hasCurrent := slices.ContainsFunc(st, func(s relational.ListStatus) bool { return s.List == list && s.SnapshotID != "" })
	states := map[string]relational.FetchState{}
	if hasCurrent { // without a current snapshot every file is fetched whole
		if states, err = db.FetchStates(ctx, urls); err != nil {
			return res, err
		}
	}
	answers := make([]fetched, len(urls))
	allSame := true
	for i, u := range urls {
		s, ok := states[u]
		if !ok || s.List != list {
			s = relational.FetchState{}
		}
		if answers[i], err = fetchURL(ctx, client, u, s); err != nil {
			return res, err
		}
		allSame = allSame && answers[i].notModified
	}
	if allSame {
		id, err := db.TouchSnapshot(ctx, list)
		if err != nil {
			return res, err
		}
		res.Status, res.Unchanged, res.SnapshotID = "unchanged", true, id
		for _, s := range st {
			if s.List == list {
				res.Rows, res.SHA256, res.Format, res.Source, res.Published = s.Rows, s.SHA256, s.Format, s.Source, s.Published
			}
		}
		return res, nil
	}
	// Some file changed: the unchanged ones of the set are needed whole.
	files := make([]ingest.File, len(urls))
	for i, a := range answers {
		if a.notModified {
			if answers[i], err = fetchURL(ctx, client, a.url, relational.FetchState{}); err != nil {
				return res, err
			}
		}
		files[i] = ingest.File{Name: urls[i], Data: answers[i].body}
	}
	parsed, err := ingest.Parse(list, files)
	if err != nil {
		return res, err
	}
	res, err = storeParsed(ctx, db, parsed, force)
	if err != nil {
		return res, err
	}
	res.Status = "updated"
	if res.Unchanged {
		res.Status = "unchanged"
	}
	var save []relational.FetchState
	for i, a := range answers {
		sum := sha256.Sum256(files[i].Data)
		save = append(save, relational.FetchState{URL: a.url, List: list, ETag: a.etag, LastModified: a.lastModified, SHA256: hex.EncodeToString(sum[:])})
	}
	return res, db.SaveFetchStates(ctx, save)
}

// fetchURL GETs u, conditionally when state holds validators: If-None-Match
// with the stored ETag, If-Modified-Since with the stored Last-Modified.
func fetchURL(ctx context.Context, client *http.Client, u string, state relational.FetchState) (fetched, error) {
	f := fetched{url: u}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return f, graph.Invalid("url", "bad URL %q: %v", u, err)
	}
	req.Header.Set("User-Agent", "tradecompliance-compliance/"+version+" (sanctions list sync)")
	if state.ETag != "" {
		req.Header.Set("If-None-Match", state.ETag)
	}
	if state.LastModified != "" {
		req.Header.Set("If-Modified-Since", state.LastModified)
	}
	resp, err := client.Do(req)
	if err != nil {
		return f, graph.Unavailable(u, err)
	}
	defer resp.Body.Close()
	f.etag, f.lastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	switch {
	case resp.StatusCode == http.StatusNotModified:
		f.notModified = true
		if f.etag == "" {
			f.etag = state.ETag
		}
		if f.lastModified == "" {
			f.lastModified = state.LastModified
		}
		return f, nil
	case resp.StatusCode != http.StatusOK:
		return f, graph.Unavailable(u, fmt.Errorf("HTTP %s", resp.Status))
	}
	f.body, err = io.ReadAll(io.LimitReader(resp.Body, ingest.MaxFileBytes+1))
	if err != nil {
		return f, graph.Unavailable(u, err)
	}
	if len(f.body) > ingest.MaxFileBytes {
		return f, graph.Invalid("url", "%s: larger than %d MiB", u, ingest.MaxFileBytes>>20)
	}
	return f, nil
}
