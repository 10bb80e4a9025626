package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

// sharedData returns a path under ../shared/data, or skips the test (fails
// it under COMPLIANCE_REQUIRE_SERVICES=1, as CI has the data beside the repo).
func sharedData(t *testing.T, parts ...string) string {
	t.Helper()
	base := os.Getenv("COMPLIANCE_SHARED_DATA")
	if base == "" {
		base = filepath.Join("..", "..", "..", "shared", "data")
	}
	p := filepath.Join(append([]string{base}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("COMPLIANCE_REQUIRE_SERVICES") == "1" {
			t.Fatalf("real data %s is absent", p)
		}
		t.Skipf("real data %s is absent; skipping", p)
	}
	return p
}

type screeningOut struct {
	Data struct {
		Screening struct {
			Matches []struct {
				Score       float64
				Entry       struct{ List, SourceID, Name string } `json:"entry"`
				Explanation struct {
					MatchedName string `json:"matched_name"`
					Features    []struct{ Name string }
				}
			}
			Coverage      string
			Degraded      bool
			ListsScreened []string `json:"lists_screened"`
			ListsMissing  []string `json:"lists_missing"`
			Caveats       []string
		}
		Coverage struct {
			SanctionsOnly bool `json:"sanctions_only"`
			PEPScreening  bool `json:"pep_screening"`
		}
	}
}

func TestE2ESanctionsIngestScreenAndGraph(t *testing.T) {
	env := testEnv(t, "SANCTIONS_RELOAD_INTERVAL=200ms")
	in := start(t, env)
	k := in.key("acme", "kyc")
	search := func(body map[string]any) screeningOut {
		t.Helper()
		r := in.do("POST", "/api/v1/sanctions/search", k.Key, body)
		if r.status != 200 {
			t.Fatalf("search %v = %d %s", body, r.status, r.body)
		}
		var out screeningOut
		json.Unmarshal(r.body, &out)
		return out
	}

	// Nothing loaded: unavailable and degraded, never a clean result.
	s := search(map[string]any{"name": "Eric Badege"}).Data.Screening
	if s.Coverage != "unavailable" || !s.Degraded || len(s.Matches) != 0 || !strings.HasPrefix(s.Caveats[0], "Degraded") {
		t.Fatalf("before ingest: %+v", s)
	}

	// Load the real UN list and OFAC SDN set through the CLI.
	runCLI(t, in.env, "sanctions", "ingest", "--list", "un", sharedData(t, "un", "un_consolidated.xml"))
	ofac := func(f string) string { return sharedData(t, "ofac", f) }
	// OFAC's 15,000 entries take over a minute to load into the local Bolt
	// server, so its graph is left out here; the UN list's links are checked.
	runCLI(t, in.env, "sanctions", "ingest", "--list", "us_sdn", "--no-graph", ofac("sdn.csv"), ofac("add.csv"), ofac("alt.csv"), ofac("sdn_comments.csv"))

	deadline := time.Now().Add(30 * time.Second)
	for {
		s = search(map[string]any{"name": "Eric Badege"}).Data.Screening
		if len(s.ListsScreened) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	out := search(map[string]any{"name": "BADEGE, Eric", "country": "Democratic Republic of the Congo"})
	s = out.Data.Screening
	if s.Coverage != "partial" || !s.Degraded || len(s.ListsMissing) != 6 {
		t.Errorf("with 2 of 8 lists: coverage %s degraded %v missing %v, want partial, degraded, 6 missing", s.Coverage, s.Degraded, s.ListsMissing)
	}
	lists := map[string]bool{}
	for _, m := range s.Matches {
		if strings.Contains(strings.ToUpper(m.Explanation.MatchedName), "BADEGE") && len(m.Explanation.Features) > 0 {
			lists[m.Entry.List] = true
		}
	}
	if !lists["un"] || !lists["us_sdn"] { // listed by both
		t.Errorf("BADEGE, Eric: matches %+v, want the UN and the SDN entry", s.Matches)
	}
	if !out.Data.Coverage.SanctionsOnly || out.Data.Coverage.PEPScreening {
		t.Errorf("coverage statement = %+v", out.Data.Coverage)
	}

	// Lists endpoint: freshness and counts.
	var report struct {
		Data struct {
			Lists []struct {
				ID     string
				Rows   int
				Loaded bool
			}
		}
	}
	json.Unmarshal(in.do("GET", "/api/v1/sanctions/lists", k.Key, nil).body, &report)
	loaded := map[string]int{}
	for _, l := range report.Data.Lists {
		if l.Loaded {
			loaded[l.ID] = l.Rows
		}
	}
	if len(report.Data.Lists) != 8 || loaded["un"] != 1003 || loaded["us_sdn"] != 14965 {
		t.Errorf("lists = %+v", report.Data.Lists)
	}

	// GraphQL gives the same answer, with its explanation.
	r := in.gql(k.Key, `{ sanctionsSearch(name: "BADEGE, Eric", country: "CD") { coverage degraded matches { list name explanation { matchedName nameType features { name } } } statement { sanctionsOnly pepScreening } } }`, nil)
	if !strings.Contains(string(r.body), `"coverage":"partial"`) || !strings.Contains(string(r.body), `"list":"un"`) || !strings.Contains(string(r.body), `"pepScreening":false`) {
		t.Errorf("GraphQL sanctionsSearch = %s", r.body)
	}

	// The graph holds OFAC's "Linked To" relations, confirmed by exact name.
	neo, err := graphdb.Open(context.Background(), graphdb.Config(graphdbtest.Lookup(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer neo.Close(context.Background())
	// UN: "DOST MOHAMMAD" (TAi.092) is associated with ABDUL JALIL HAQQANI WALI MOHAMMAD (TAi.034).
	links, err := neo.SanctionsLinks(context.Background(), "un:TAi.034")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range links {
		if !l.Outgoing && l.ID == "un:TAi.092" && l.List == "un" && l.Quoted != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("TAi.092 is not linked to TAi.034 in the graph: %+v", links)
	}
}
