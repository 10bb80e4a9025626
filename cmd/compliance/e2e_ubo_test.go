package main

// End-to-end tests of the UBO surface (issue 6, items 4-5): POST
// /api/v1/ubo/screen (202 queued, then ready; 200 cached), GET
// /api/v1/ubo/graph/{id}, bad input, scopes, the rate limit, and the
// GraphQL analyst fields, against real ownership data (OpenOil's Nigerian
// file, imported with `compliance ownership import`) and the real OFAC SDN
// list.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

// deleteEntities deletes the ownership entities whose ids start with run.
func deleteEntities(t *testing.T, run string) {
	env := graphdbtest.Lookup(t)
	ctx := context.Background()
	auth := neo4j.NoAuth()
	if env.User != "" {
		auth = neo4j.BasicAuth(env.User, env.Password, "")
	}
	d, err := neo4j.NewDriverWithContext(env.URI, auth)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer d.Close(ctx)
	if _, err := neo4j.ExecuteQuery(ctx, d, `MATCH (e:Entity) WHERE e.id STARTS WITH $run DETACH DELETE e`,
		map[string]any{"run": run + "_"}, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(env.Database)); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// uboData is a graph resource's data as the tests read it.
type uboData struct {
	GraphID          string  `json:"graph_id"`
	Status           string  `json:"status"`
	RootEntityName   string  `json:"root_entity_name"`
	RootJurisdiction *string `json:"root_jurisdiction"`
	MaxHops          int     `json:"max_hops"`
	Cached           bool    `json:"cached"`
	RootEntityID     string  `json:"root_entity_id"`
	RootFound        bool    `json:"root_found"`
	Nodes            []struct {
		ID           string   `json:"id"`
		Name         string   `json:"name"`
		Hops         int      `json:"hops"`
		EffectiveMin *float64 `json:"effective_pct_min"`
		Sanctions    struct {
			Screened bool `json:"screened"`
		} `json:"sanctions"`
		Blocklist struct {
			Status string `json:"status"`
		} `json:"blocklist"`
	} `json:"nodes"`
	Edges            []map[string]any `json:"edges"`
	Truncated        bool             `json:"truncated"`
	SanctionsMatches []struct {
		EntityID string `json:"entity_id"`
		List     string `json:"list"`
		SourceID string `json:"source_id"`
	} `json:"sanctions_matches"`
	ShellCompanyVerdicts map[string]struct {
		Verdict string `json:"verdict"`
		Signals []struct {
			Name     string `json:"name"`
			Evidence string `json:"evidence"`
		} `json:"signals"`
	} `json:"shell_company_verdicts"`
	OFAC50 struct {
		Status string `json:"status"`
	} `json:"ofac_50"`
	AggregateRisk string   `json:"aggregate_risk"`
	RiskReasons   []string `json:"risk_reasons"`
	Caveats       []string `json:"caveats"`
	Coverage      struct {
		Caveats []string `json:"caveats"`
	} `json:"coverage"`
}

func uboOf(t *testing.T, r response) uboData {
	t.Helper()
	var env struct {
		OK   bool    `json:"ok"`
		Data uboData `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || !env.OK {
		t.Fatalf("not a success envelope (%v): %s", err, r.body)
	}
	return env.Data
}

const uboCaveat = "Coverage is partial: no functioning US domestic beneficial-ownership registry exists after March 2025"

// waitReady polls GET /api/v1/ubo/graph/{id} until the graph is ready.
func (in *instance) waitReady(t *testing.T, key, id string) uboData {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := in.do("GET", "/api/v1/ubo/graph/"+id, key, nil)
		if r.status != 200 {
			t.Fatalf("GET graph %s = %d %s", id, r.status, r.body)
		}
		g := uboOf(t, r)
		if !slices.Contains(g.Caveats, uboCaveat) {
			t.Fatalf("graph %s (%s) lacks the UBO caveat: %q", id, g.Status, g.Caveats)
		}
		if g.Status == "ready" {
			return g
		}
		if g.Status != "queued" {
			t.Fatalf("graph %s status %q, want queued or ready", id, g.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("graph %s still queued after 60s\n%s", id, in.logText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestUBOScreenE2E(t *testing.T) {
	run := graphdbtest.Unique(t)
	// A test-only ownership file in the documented CSV edge format: the
	// root is owned 60% by a company carrying the exact name of a real
	// OFAC SDN entry (ent_num 36, AEROCARIBBEAN AIRLINES) and 40% by a
	// person.
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "hit.csv")
	csv := "owner_id,owner_name,owner_kind,owner_jurisdiction,owned_id,owned_name,owned_kind,owned_jurisdiction,relation,pct,pct_min,pct_max,role,as_of,source\n" +
		fmt.Sprintf("%[1]s_s,AEROCARIBBEAN AIRLINES,company,CU,%[1]s_r,%[1]s Caribbean Trading Ltd,company,VG,owns,60,,,,2026-01-01,e2e\n", run) +
		fmt.Sprintf("%[1]s_p,%[1]s Anna Example,person,,%[1]s_r,,,,owns,40,,,,2026-01-01,e2e\n", run)
	if err := os.WriteFile(csvPath, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteEntities(t, run) })
	in := start(t, testEnv(t, "SANCTIONS_RELOAD_INTERVAL=200ms"))
	// Real ownership data and the test file, through the core's CLI.
	out := runCLI(t, in.env, "ownership", "import", sharedData(t, "ownership", "openoil", "Nigeria_ownership_20140711.csv"), csvPath)
	t.Logf("ownership import: %s", out)
	ofac := func(f string) string { return sharedData(t, "ofac", f) }
	runCLI(t, in.env, "sanctions", "ingest", "--list", "us_sdn", "--no-graph", ofac("sdn.csv"), ofac("add.csv"), ofac("alt.csv"), ofac("sdn_comments.csv"))
	admin := in.key("ubo-a")
	other := in.key("ubo-b", "ubo")
	noScope := in.key("ubo-a", "kyc")
	// Wait for the screener to pick the list up.
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := in.do("GET", "/api/v1/sanctions/lists", admin.Key, nil)
		if strings.Contains(string(r.body), `"id":"us_sdn"`) && strings.Contains(string(r.body), `"loaded":true`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("us_sdn not loaded: %s", r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}

	var hitID string
	t.Run("listed owner: 202 queued, then ready and high", func(t *testing.T) {
		r := in.do("POST", "/api/v1/ubo/screen", admin.Key, map[string]any{"root_entity_name": run + " caribbean trading LTD", "root_jurisdiction": "British Virgin Islands"})
		if r.status != 202 {
			t.Fatalf("POST = %d %s, want 202", r.status, r.body)
		}
		q := uboOf(t, r)
		if q.Status != "queued" || q.GraphID == "" || q.MaxHops != 3 || q.RootJurisdiction == nil || *q.RootJurisdiction != "VG" || q.Cached {
			t.Fatalf("queued graph = %+v", q)
		}
		if !slices.Contains(q.Caveats, uboCaveat) || !slices.Contains(q.Coverage.Caveats, uboCaveat) {
			t.Errorf("queued answer lacks the UBO caveat: %q", q.Caveats)
		}
		hitID = q.GraphID
		g := in.waitReady(t, admin.Key, q.GraphID)
		if !g.RootFound || g.RootEntityID != run+"_r" || len(g.Nodes) != 3 || len(g.Edges) != 2 {
			t.Fatalf("ready graph: root %q found %v, %d nodes, %d edges", g.RootEntityID, g.RootFound, len(g.Nodes), len(g.Edges))
		}
		found := false
		for _, m := range g.SanctionsMatches {
			found = found || (m.EntityID == run+"_s" && m.List == "us_sdn" && m.SourceID == "36")
		}
		if !found {
			t.Errorf("sanctions matches = %+v, want %s_s on us_sdn 36", g.SanctionsMatches, run)
		}
		if g.OFAC50.Status != "blocked" || g.AggregateRisk != "high" || !strings.Contains(g.RiskReasons[0], "OFAC 50% rule") {
			t.Errorf("ofac %s, risk %s %q; want blocked, high", g.OFAC50.Status, g.AggregateRisk, g.RiskReasons)
		}
		v, ok := g.ShellCompanyVerdicts[run+"_r"]
		if !ok || len(v.Signals) == 0 || v.Signals[0].Name != "secrecy_jurisdiction" {
			t.Errorf("root verdict = %+v, want a secrecy_jurisdiction signal first", v)
		}
		for _, n := range g.Nodes {
			if !n.Sanctions.Screened || n.Blocklist.Status != "clear" {
				t.Errorf("node %s sanctions %+v blocklist %+v, want screened and clear", n.Name, n.Sanctions, n.Blocklist)
			}
		}
	})

	t.Run("repeat within 90 days: 200 cached", func(t *testing.T) {
		r := in.do("POST", "/api/v1/ubo/screen", admin.Key, map[string]any{"root_entity_name": run + " Caribbean Trading Ltd.", "root_jurisdiction": "VG", "max_hops": 3})
		if r.status != 200 {
			t.Fatalf("POST = %d %s, want 200", r.status, r.body)
		}
		g := uboOf(t, r)
		if !g.Cached || g.GraphID != hitID || g.Status != "ready" || g.AggregateRisk != "high" || !slices.Contains(g.Caveats, uboCaveat) {
			t.Errorf("cached answer = %s %s cached %v risk %s, want %s ready cached high", g.GraphID, g.Status, g.Cached, g.AggregateRisk, hitID)
		}
		// Another member's same request is not served from a's cache.
		r = in.do("POST", "/api/v1/ubo/screen", other.Key, map[string]any{"root_entity_name": run + " Caribbean Trading Ltd", "root_jurisdiction": "VG"})
		if r.status != 202 || uboOf(t, r).GraphID == hitID {
			t.Errorf("member b's request = %d %s, want 202 with a new graph", r.status, r.body)
		}
		// Nor can it read a's graph.
		if r := in.do("GET", "/api/v1/ubo/graph/"+hitID, other.Key, nil); r.status != 404 {
			t.Errorf("member b GET a's graph = %d, want 404", r.status)
		}
	})

	t.Run("real Nigerian ownership: Nigeria LNG", func(t *testing.T) {
		r := in.do("POST", "/api/v1/ubo/screen", admin.Key, map[string]any{"root_entity_name": "Nigeria LNG Limited", "root_jurisdiction": "NG"})
		if r.status != 202 && r.status != 200 {
			t.Fatalf("POST = %d %s", r.status, r.body)
		}
		g := in.waitReady(t, admin.Key, uboOf(t, r).GraphID)
		// By hand from Nigeria_ownership_20140711.csv: NNPC 49, Shell Gas BV
		// 25.6, Total LNG Nigeria 15, Eni International BV 10.4; above them
		// Royal Dutch Shell Plc, Total Gaz & Electricite Holdings France,
		// Eni SpA, then Elf Aquitaine SA at hop 3 (its owner Total SA is
		// beyond max_hops 3).
		if !g.RootFound || g.RootEntityID != "openoil:nigeria lng limited" || len(g.Nodes) != 9 || len(g.Edges) != 8 || !g.Truncated {
			t.Fatalf("root %q found %v: %d nodes, %d edges, truncated %v; want 9, 8, true", g.RootEntityID, g.RootFound, len(g.Nodes), len(g.Edges), g.Truncated)
		}
		eff := map[string]float64{}
		hops := map[string]int{}
		for _, n := range g.Nodes {
			hops[n.ID] = n.Hops
			if n.EffectiveMin != nil {
				eff[n.ID] = *n.EffectiveMin
			}
		}
		if eff["openoil:royal dutch shell plc"] != 25.6 || eff["openoil:eni spa"] != 10.4 || hops["openoil:elf aquitaine sa"] != 3 {
			t.Errorf("effective %v hops %v; want Royal Dutch Shell 25.6, Eni SpA 10.4, Elf Aquitaine at hop 3", eff, hops)
		}
		if len(g.SanctionsMatches) != 0 || g.AggregateRisk != "unknown" || !strings.Contains(strings.Join(g.RiskReasons, "|"), "sanctions screening was partial") {
			t.Errorf("matches %+v risk %s %q; want none, unknown (7 lists not loaded)", g.SanctionsMatches, g.AggregateRisk, g.RiskReasons)
		}
		if v := g.ShellCompanyVerdicts["openoil:nigeria lng limited"]; v.Verdict != "no_signals" {
			t.Errorf("root verdict = %+v, want no_signals (its chains are cut by max_hops, not ended)", v)
		}
		if v := g.ShellCompanyVerdicts["openoil:nigerian national petroleum corporation (nnpc)"]; v.Verdict != "weak_signals" || v.Signals[0].Name != "no_natural_person_at_top" {
			t.Errorf("NNPC verdict = %+v, want weak_signals: no owner recorded", v)
		}
	})

	t.Run("root not in the ownership data: ready, unknown", func(t *testing.T) {
		r := in.do("POST", "/api/v1/ubo/screen", admin.Key, map[string]any{"root_entity_name": run + " Nowhere Holdings", "max_hops": 2})
		g := in.waitReady(t, admin.Key, uboOf(t, r).GraphID)
		if g.RootFound || len(g.Nodes) != 0 || g.AggregateRisk != "unknown" || !strings.Contains(g.RiskReasons[0], "not in the ownership data") {
			t.Errorf("got found %v, %d nodes, risk %s %q", g.RootFound, len(g.Nodes), g.AggregateRisk, g.RiskReasons)
		}
	})

	t.Run("bad input names the field", func(t *testing.T) {
		tests := []struct {
			name  string
			body  any
			field string
		}{
			{"missing root_entity_name", map[string]any{"max_hops": 2}, "root_entity_name"},
			{"blank root_entity_name", map[string]any{"root_entity_name": "  "}, "root_entity_name"},
			{"root_entity_name of one letter", map[string]any{"root_entity_name": "A."}, "root_entity_name"},
			{"root_entity_name not a string", map[string]any{"root_entity_name": 12}, "root_entity_name"},
			{"max_hops above 6", map[string]any{"root_entity_name": "Acme", "max_hops": 7}, "max_hops"},
			{"max_hops zero", map[string]any{"root_entity_name": "Acme", "max_hops": 0}, "max_hops"},
			{"max_hops not an integer", map[string]any{"root_entity_name": "Acme", "max_hops": "3"}, "max_hops"},
			{"unknown jurisdiction", map[string]any{"root_entity_name": "Acme", "root_jurisdiction": "Atlantis"}, "root_jurisdiction"},
			{"malformed JSON", `{"root_entity_name": `, "body"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := in.do("POST", "/api/v1/ubo/screen", other.Key, tt.body)
				if r.status != 400 {
					t.Fatalf("status = %d %s, want 400", r.status, r.body)
				}
				if e := r.errorOf(t); e["field"] != tt.field {
					t.Errorf("error = %v, want field %s", e, tt.field)
				}
			})
		}
		r := in.do("GET", "/api/v1/ubo/graph/not-a-uuid", admin.Key, nil)
		if r.status != 400 || r.errorOf(t)["field"] != "id" {
			t.Errorf("GET bad id = %d %s, want 400 naming id", r.status, r.body)
		}
		if r := in.do("GET", "/api/v1/ubo/graph/6f1c2a0e-3d4b-4c5d-8e9f-0a1b2c3d4e5f", admin.Key, nil); r.status != 404 {
			t.Errorf("GET unknown id = %d %s, want 404", r.status, r.body)
		}
	})

	t.Run("401 without a key, 403 without the scope or with a sandbox key", func(t *testing.T) {
		body := map[string]any{"root_entity_name": "Acme"}
		if r := in.do("POST", "/api/v1/ubo/screen", "", body); r.status != 401 {
			t.Errorf("no key = %d, want 401", r.status)
		}
		if r := in.do("POST", "/api/v1/ubo/screen", noScope.Key, body); r.status != 403 {
			t.Errorf("kyc-only key = %d %s, want 403", r.status, r.body)
		}
		if r := in.do("GET", "/api/v1/ubo/graph/"+hitID, noScope.Key, nil); r.status != 403 {
			t.Errorf("kyc-only GET = %d, want 403", r.status)
		}
		sb := in.sandboxKey("ubo-e2e@example.com")
		if r := in.do("POST", "/api/v1/ubo/screen", sb.Key, body); r.status != 403 {
			t.Errorf("sandbox key = %d %s, want 403", r.status, r.body)
		}
	})

	t.Run("11th POST within 60 s is 429", func(t *testing.T) {
		k := in.key("ubo-c", "ubo")
		for i := 1; i <= 10; i++ {
			r := in.do("POST", "/api/v1/ubo/screen", k.Key, map[string]any{"root_entity_name": fmt.Sprintf("%s Limit Co %d", run, i)})
			if r.status != 202 {
				t.Fatalf("POST %d = %d %s, want 202", i, r.status, r.body)
			}
		}
		r := in.do("POST", "/api/v1/ubo/screen", k.Key, map[string]any{"root_entity_name": run + " Limit Co 11"})
		if r.status != 429 || r.header.Get("Retry-After") == "" {
			t.Errorf("11th POST = %d (Retry-After %q) %s, want 429 with Retry-After", r.status, r.header.Get("Retry-After"), r.body)
		}
		// GraphQL shares the REST route's bucket.
		g := in.gql(k.Key, `mutation { uboScreen(input: {rootEntityName: "Acme 12"}) { graphId } }`, nil)
		if codes := gqlErrorCodes(t, g); len(codes) != 1 || codes[0] != "rate_limited" {
			t.Errorf("uboScreen after 10 POSTs: codes %v (%s), want rate_limited", codes, g.body)
		}
	})

	t.Run("GraphQL", func(t *testing.T) {
		// uboScreen and uboGraph answer as REST does: the cached graph.
		r := in.gql(admin.Key, `mutation($n: String!) { uboScreen(input: {rootEntityName: $n, rootJurisdiction: "VG"}) {
			graphId status cached aggregateRisk ofac50 { status } shellCompanyVerdicts { entityId verdict signals { name } }
			sanctionsMatches { entityId list sourceId } nodes { id hops effectiveMin } caveats coverage { caveats } } }`,
			map[string]any{"n": run + " Caribbean Trading Ltd"})
		var sc struct {
			Data struct {
				UboScreen struct {
					GraphID       string
					Status        string
					Cached        bool
					AggregateRisk string
					Ofac50        struct{ Status string }
					Caveats       []string
				}
			}
		}
		if err := json.Unmarshal(r.body, &sc); err != nil {
			t.Fatal(err)
		}
		u := sc.Data.UboScreen
		if u.GraphID != hitID || !u.Cached || u.AggregateRisk != "high" || u.Ofac50.Status != "blocked" || !slices.Contains(u.Caveats, uboCaveat) {
			t.Errorf("uboScreen = %s", r.body)
		}
		r = in.gql(admin.Key, `query($id: UUID!) { uboGraph(id: $id) { graphId status aggregateRisk } }`, map[string]any{"id": hitID})
		if !strings.Contains(string(r.body), `"aggregateRisk":"high"`) {
			t.Errorf("uboGraph = %s", r.body)
		}
		if r := in.gql(other.Key, `query($id: UUID!) { uboGraph(id: $id) { graphId } }`, map[string]any{"id": hitID}); !strings.Contains(string(r.body), `"uboGraph":null`) {
			t.Errorf("member b's uboGraph of a's graph = %s, want null", r.body)
		}
		if r := in.gql(admin.Key, `mutation { uboScreen(input: {rootEntityName: "Acme", maxHops: 9}) { graphId } }`, nil); !strings.Contains(string(r.body), `"field":"input.maxHops"`) {
			t.Errorf("uboScreen maxHops 9 = %s, want an error naming input.maxHops", r.body)
		}

		// Nested analyst query over real data.
		r = in.gql(admin.Key, `{ entities(name: "Nigeria LNG Limited") { id name kind
			owners(maxHops: 1) { truncated links { hops relation pct entity { id name owners { links { pct entity { name } } } } } }
			beneficialOwners { owners { entity { name } } unidentified { entity { id } pctMin pctMax } caveats }
			sanctionsExposure(maxHops: 2) { status listed { entity { name } } coverage { caveats } }
			controllers { controllers { entity { name } } caveats }
			subsidiaries { links { entity { name } } } } }`, nil)
		var an struct {
			Data struct {
				Entities []struct {
					ID     string
					Owners struct {
						Truncated bool
						Links     []struct {
							Hops   int
							Pct    *float64
							Entity struct {
								ID     string
								Name   string
								Owners struct {
									Links []struct {
										Pct    *float64
										Entity struct{ Name string }
									}
								}
							}
						}
					}
					BeneficialOwners struct {
						Unidentified []struct {
							Entity         struct{ ID string }
							PctMin, PctMax float64
						}
						Caveats []string
					}
					SanctionsExposure struct {
						Status   string
						Coverage struct{ Caveats []string }
					}
					Controllers struct{ Caveats []string }
				}
			}
			Errors []any
		}
		if err := json.Unmarshal(r.body, &an); err != nil || len(an.Errors) > 0 || len(an.Data.Entities) != 1 {
			t.Fatalf("analyst query: %v %s", err, r.body)
		}
		e := an.Data.Entities[0]
		owners := map[string]float64{}
		var shellGasOwner string
		for _, l := range e.Owners.Links {
			if l.Pct != nil {
				owners[l.Entity.Name] = *l.Pct
			}
			if l.Entity.Name == "Shell Gas BV" && len(l.Entity.Owners.Links) == 1 {
				shellGasOwner = l.Entity.Owners.Links[0].Entity.Name
			}
		}
		want := map[string]float64{"Nigerian National Petroleum Corporation (NNPC)": 49, "Shell Gas BV": 25.6, "Total LNG Nigeria Limited": 15, "Eni International BV": 10.4}
		if fmt.Sprint(owners) != fmt.Sprint(want) || !e.Owners.Truncated || shellGasOwner != "Royal Dutch Shell Plc" {
			t.Errorf("owners = %v (truncated %v), Shell Gas BV's owner %q; want %v, truncated, Royal Dutch Shell Plc", owners, e.Owners.Truncated, shellGasOwner, want)
		}
		if !slices.Contains(e.BeneficialOwners.Caveats, uboCaveat) || !slices.Contains(e.SanctionsExposure.Coverage.Caveats, uboCaveat) ||
			!slices.Contains(e.Controllers.Caveats, uboCaveat) {
			t.Errorf("caveats missing: %s", r.body)
		}
		if e.SanctionsExposure.Status != "unknown" {
			t.Errorf("exposure status = %s, want unknown (screening degraded: 7 lists not loaded)", e.SanctionsExposure.Status)
		}

		// sanctionsExposure: the SDN-listed owner blocks the test root.
		r = in.gql(admin.Key, `query($id: ID!) { entity(id: $id) { name sanctionsExposure { status
			listed { entity { id } status listings { list entryId confirmed } } paths { owner pctMin } caveats } } }`,
			map[string]any{"id": run + "_r"})
		var ex struct {
			Data struct {
				Entity struct {
					SanctionsExposure struct {
						Status string
						Listed []struct {
							Entity   struct{ ID string }
							Status   string
							Listings []struct {
								List, EntryID string
								Confirmed     bool
							}
						}
						Paths []struct {
							Owner  string
							PctMin float64
						}
					}
				}
			}
		}
		if err := json.Unmarshal(r.body, &ex); err != nil {
			t.Fatal(err)
		}
		se := ex.Data.Entity.SanctionsExposure
		listedS := false
		for _, l := range se.Listed {
			for _, li := range l.Listings {
				listedS = listedS || (l.Entity.ID == run+"_s" && li.EntryID == "us_sdn:36" && li.Confirmed)
			}
		}
		if se.Status != "blocked" || !listedS || len(se.Paths) != 1 || se.Paths[0].Owner != run+"_s" || se.Paths[0].PctMin != 60 {
			t.Errorf("sanctionsExposure = %s, want blocked by %s_s (us_sdn:36, confirmed) through one 60%% path", r.body, run)
		}

		// Federation: the entity resolves through _entities.
		r = in.gql(admin.Key, `query($r: [_Any!]!) { _entities(representations: $r) { ... on OwnershipEntity { id name } } }`,
			map[string]any{"r": []any{map[string]any{"__typename": "OwnershipEntity", "id": "openoil:shell gas bv"}}})
		if !strings.Contains(string(r.body), `"name":"Shell Gas BV"`) {
			t.Errorf("_entities = %s", r.body)
		}

		// Cost: an unbounded traversal is refused with a clear error.
		r = in.gql(admin.Key, `{ entity(id: "openoil:shell gas bv") { owners(maxHops: 100) { links { hops } } } }`, nil)
		if !strings.Contains(string(r.body), "maxHops must be 1..6") || !strings.Contains(string(r.body), `"field":"maxHops"`) {
			t.Errorf("maxHops 100 = %s, want maxHops must be 1..6 naming maxHops", r.body)
		}
		r = in.gql(admin.Key, `{ entity(id: "openoil:shell gas bv") { owners(maxHops: 6) { links { entity {
			owners(maxHops: 6) { links { entity { owners(maxHops: 6) { links { entity { name } } } } } } } } } } }`, nil)
		if !strings.Contains(string(r.body), "complexity_limit") || strings.Contains(string(r.body), `"data":{`) {
			t.Errorf("deep 6-hop nesting = %s, want a complexity_limit refusal", r.body)
		}
		if codes := gqlErrorCodes(t, in.gql(noScope.Key, `{ entity(id: "openoil:shell gas bv") { name } }`, nil)); len(codes) != 1 || codes[0] != "forbidden" {
			t.Errorf("entity without the ubo scope: codes %v, want forbidden", codes)
		}
	})
}
