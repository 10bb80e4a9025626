package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
	"github.com/tradecompliance/compliance/rest"
)

// demoClusters is the demo dataset scripts/run imports.
const demoClusters = "../../scripts/demo/clusters.jsonl"

// envValue returns the value of name in env.
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// pgCount runs a count(*) query against the database of env.
func pgCount(t *testing.T, env []string, sql string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, envValue(env, "DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func importCLI(t *testing.T, env []string, files ...string) cluster.ImportResult {
	t.Helper()
	var res cluster.ImportResult
	out := runCLI(t, env, append([]string{"clusters", "import"}, files...)...)
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("clusters import printed %s: %v", out, err)
	}
	return res
}

// `compliance clusters import` loads the demo dataset, is idempotent, and
// refuses a bad file naming it and the line, writing nothing.
func TestClustersImportCLI(t *testing.T) {
	env := testEnv(t)
	runCLI(t, env, "migrate")
	cleanupMirror(t, env)

	if got, want := importCLI(t, env, demoClusters), (cluster.ImportResult{Records: 7, Added: 7, Version: 1}); got != want {
		t.Errorf("first import = %+v, want %+v", got, want)
	}
	if got, want := importCLI(t, env, demoClusters), (cluster.ImportResult{Records: 7, Unchanged: 7, Version: 1}); got != want {
		t.Errorf("re-import = %+v, want %+v", got, want)
	}
	if n := pgCount(t, env, `SELECT count(*) FROM cluster_aliases`); n != 6 {
		t.Errorf("aliases stored = %d, want 6", n)
	}

	dir := t.TempDir()
	csvFile := filepath.Join(dir, "more.csv")
	os.WriteFile(csvFile, []byte("slug,entity_name,aliases,severity,country,group\n"+
		"demo-gulf-petro-brokers,Demo Gulf Petro Brokers Ltd,Demo GPB|Example Petro Brokerage,likely,AE,demo-phantom-cargo-ring\n"+
		"demo-csv-entity,Demo CSV Entity,,suspected,,\n"), 0o600)
	if got, want := importCLI(t, env, csvFile), (cluster.ImportResult{Records: 2, Added: 1, Updated: 1, SeverityChanged: 1, Version: 2}); got != want {
		t.Errorf("csv import = %+v, want %+v", got, want)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"entity_name":"Demo Fine Entity","severity":"likely"}`+"\n"+`{"entity_name":"Demo Bad Entity","severity":"catastrophic"}`+"\n"), 0o600)
	cmd := exec.Command(binary(t), "clusters", "import", bad)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), bad+":2: severity:") {
		t.Errorf("bad import: %v\n%s\nwant a failure naming %s:2 and severity", err, out, bad)
	}
	if n := pgCount(t, env, `SELECT count(*) FROM cluster_records WHERE entity_name = 'Demo Fine Entity'`); n != 0 {
		t.Errorf("a failed import wrote %d records", n)
	}
	if n := pgCount(t, env, `SELECT count(*) FROM cluster_records`); n != 8 {
		t.Errorf("records = %d, want 8", n)
	}

	// `clusters graph` rewrites the mirror: 8 entities, 2 groups, 6 hub edges, 3 alias edges.
	var st graphdb.MirrorStats
	if err := json.Unmarshal(runCLI(t, env, "clusters", "graph"), &st); err != nil {
		t.Fatal(err)
	}
	if st != (graphdb.MirrorStats{Entities: 8, Groups: 2, MemberEdges: 6, AliasEdges: 3}) {
		t.Errorf("clusters graph = %+v", st)
	}
	cmd = exec.Command(binary(t), "clusters", "import")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "needs at least one file") {
		t.Errorf("import without a file: %v %s", err, out)
	}
}

// data returns the data member of a success envelope, failing t on any
// other answer.
func (r response) data(t testing.TB, status int) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d: %s", r.status, status, r.body)
	}
	m := r.json(t)
	d, _ := m["data"].(map[string]any)
	if m["ok"] != true || d == nil {
		t.Fatalf("not a success envelope: %s", r.body)
	}
	return d
}

// wantError checks a failure's status, code and field.
func wantError(t *testing.T, what string, r response, status int, code, field string) {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: status %d, want %d: %s", what, r.status, status, r.body)
		return
	}
	e := r.errorOf(t)
	if e["code"] != code || (field != "" && e["field"] != field) {
		t.Errorf("%s: error %v, want code %s field %q", what, e, code, field)
	}
}

func slugsOf(v any) []string {
	var out []string
	for _, m := range v.([]any) {
		out = append(out, m.(map[string]any)["slug"].(string))
	}
	return out
}

// startClusters starts a server with the demo dataset imported.
func startClusters(t *testing.T, extra ...string) *instance {
	t.Helper()
	in := start(t, testEnv(t, append([]string{"CLUSTER_RELOAD_INTERVAL=100ms", "SANCTIONS_RELOAD_INTERVAL=200ms"}, extra...)...))
	cleanupMirror(t, in.env)
	importCLI(t, in.env, demoClusters)
	// The server reloads its registry within CLUSTER_RELOAD_INTERVAL of the
	// import; wait for it so that every test starts from the imported state.
	w := in.key("reload-wait", "cluster")
	waitFor(t, 15*time.Second, "the server to load the imported registry", func() bool {
		return in.do("GET", "/api/v1/clusters/check?entity=demo+gpb", w.Key, nil).data(t, 200)["matched"] == true
	})
	return in
}

// cleanupMirror deletes, when t ends, the graph nodes mirrored from the
// database of env (the graph server is shared by every test).
func cleanupMirror(t *testing.T, env []string) {
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, envValue(env, "DATABASE_URL"))
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, `SELECT id::text FROM cluster_records UNION ALL SELECT id::text FROM cluster_groups`)
		if err != nil {
			return
		}
		ids, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		neo, err := graphdb.Open(ctx, graphdb.Config(graphdbtest.Lookup(t)))
		if err != nil {
			return
		}
		defer neo.Close(ctx)
		if err := neo.DeleteClusterNodes(ctx, ids); err != nil {
			t.Logf("cleanup of the graph mirror: %v", err)
		}
	})
}

func TestE2EClustersListAndCheck(t *testing.T) {
	in := startClusters(t)
	k := in.key("acme", "cluster")

	d := in.do("GET", "/api/v1/clusters", k.Key, nil).data(t, 200)
	if d["count"] != float64(7) || len(d["clusters"].([]any)) != 7 || d["severity"] != nil || len(d["caveats"].([]any)) != 3 {
		t.Errorf("list = %v", d)
	}
	first := d["clusters"].([]any)[0].(map[string]any)
	if first["slug"] != "demo-lone-example-lpg" || first["severity"] != "suspected" || first["note"] != cluster.LeadNote ||
		first["source"] != "DEMO DATA — fictional, for development only" || first["country"] != "SG" || first["group"] != nil {
		t.Errorf("newest record = %v", first)
	}

	lists := []struct {
		name, query string
		want        []string
		echo        map[string]any
	}{
		{"severity", "severity=confirmed", []string{"demo-gulf-petro-brokers", "demo-imaginary-diesel-corp"}, map[string]any{"severity": "confirmed"}},
		{"country by name", "country=United+Arab+Emirates", []string{"demo-example-bitumen-trading", "demo-gulf-petro-brokers"}, map[string]any{"country": "AE"}},
		{"since", "since=2026-10-01T10:00:00Z", []string{"demo-lone-example-lpg", "demo-placeholder-lng-partners"}, map[string]any{"since": "2026-10-01T10:00:00Z"}},
		{"all three", "severity=likely&country=ae&since=2026-01-01", []string{"demo-example-bitumen-trading"},
			map[string]any{"severity": "likely", "country": "AE", "since": "2026-01-01T00:00:00Z"}},
		{"nothing", "severity=suspected&country=CH", nil, map[string]any{"severity": "suspected", "country": "CH"}},
	}
	for _, c := range lists {
		t.Run("list "+c.name, func(t *testing.T) {
			d := in.do("GET", "/api/v1/clusters?"+c.query, k.Key, nil).data(t, 200)
			got := slugsOf(d["clusters"])
			if strings.Join(got, ",") != strings.Join(c.want, ",") || d["count"] != float64(len(c.want)) {
				t.Errorf("clusters = %v, want %v", got, c.want)
			}
			f := d["filters"].(map[string]any)
			for _, name := range []string{"severity", "country", "since"} {
				if f[name] != c.echo[name] || d[name] != c.echo[name] {
					t.Errorf("filter %s echoed as %v / %v, want %v", name, f[name], d[name], c.echo[name])
				}
			}
		})
	}
	wantError(t, "bad severity", in.do("GET", "/api/v1/clusters?severity=high", k.Key, nil), 400, "invalid", "severity")
	wantError(t, "bad country", in.do("GET", "/api/v1/clusters?country=Atlantis", k.Key, nil), 400, "invalid", "country")
	wantError(t, "bad since", in.do("GET", "/api/v1/clusters?since=last+week", k.Key, nil), 400, "invalid", "since")
	wantError(t, "no key", in.do("GET", "/api/v1/clusters", "", nil), 401, "unauthenticated", "")
	noScope := in.key("acme", "kyc")
	wantError(t, "no cluster scope", in.do("GET", "/api/v1/clusters", noScope.Key, nil), 403, "forbidden", "")

	checks := []struct {
		name, query string
		want        []string
		highest     any
		leadOnly    bool
	}{
		{"exact name", "entity=Demo+Gulf+Petro+Brokers+Ltd", []string{"demo-gulf-petro-brokers"}, "confirmed", false},
		{"normalized", "entity=DEMO-GULF-PETRO-BROKERS,+LTD.", []string{"demo-gulf-petro-brokers"}, "confirmed", false},
		{"shared alias, highest first", "entity=demo+gpb", []string{"demo-gulf-petro-brokers", "demo-example-bitumen-trading"}, "confirmed", false},
		{"country restricts", "entity=Example+Petro+Brokerage&country=GB", []string{"demo-sample-energy-holdings"}, "suspected", true},
		{"substring never matches", "entity=Demo+Gulf+Petro", nil, nil, false},
		{"superstring never matches", "entity=Demo+Gulf+Petro+Brokers+Ltd+Holdings", nil, nil, false},
		{"unknown", "entity=Nothing+Like+It", nil, nil, false},
	}
	for _, c := range checks {
		t.Run("check "+c.name, func(t *testing.T) {
			d := in.do("GET", "/api/v1/clusters/check?"+c.query, k.Key, nil).data(t, 200)
			got := slugsOf(d["matches"])
			if strings.Join(got, ",") != strings.Join(c.want, ",") || d["matched"] != (len(c.want) > 0) ||
				d["highest_severity"] != c.highest || d["lead_only"] != c.leadOnly || len(d["caveats"].([]any)) != 3 {
				t.Errorf("check = %v, want %v highest %v lead_only %v", d, c.want, c.highest, c.leadOnly)
			}
		})
	}
	wantError(t, "punctuation only", in.do("GET", "/api/v1/clusters/check?entity=%26%26+--", k.Key, nil), 400, "invalid", "entity")
	wantError(t, "one letter", in.do("GET", "/api/v1/clusters/check?entity=a", k.Key, nil), 400, "invalid", "entity")
	wantError(t, "no entity", in.do("GET", "/api/v1/clusters/check", k.Key, nil), 400, "invalid", "entity")
	wantError(t, "bad country", in.do("GET", "/api/v1/clusters/check?entity=demo+gpb&country=Atlantis", k.Key, nil), 400, "invalid", "country")
	wantError(t, "check without key", in.do("GET", "/api/v1/clusters/check?entity=demo+gpb", "", nil), 401, "unauthenticated", "")

	// A sandbox key may check, not list.
	sb := in.do("POST", "/api/v1/keys/sandbox", "", map[string]any{"email": "analyst@example.com"}).json(t)
	sk, _ := sb["key"].(string)
	if sk == "" {
		sk, _ = sb["data"].(map[string]any)["key"].(string)
	}
	if d := in.do("GET", "/api/v1/clusters/check?entity=demo+gpb", sk, nil).data(t, 200); d["matched"] != true {
		t.Errorf("sandbox check = %v", d)
	}
	wantError(t, "sandbox list", in.do("GET", "/api/v1/clusters", sk, nil), 403, "forbidden", "")
}

func TestE2EClusterGraph(t *testing.T) {
	in := startClusters(t)
	k := in.key("acme", "cluster")

	d := in.do("GET", "/api/v1/clusters/demo-phantom-cargo-ring/graph", k.Key, nil).data(t, 200)
	nodes := d["nodes"].([]any)
	var kinds []string
	for _, n := range nodes {
		m := n.(map[string]any)
		kinds = append(kinds, m["kind"].(string)+":"+m["slug"].(string))
	}
	wantNodes := "group:demo-phantom-cargo-ring,entity:demo-example-bitumen-trading,entity:demo-gulf-petro-brokers," +
		"entity:demo-placeholder-lng-partners,entity:demo-sample-energy-holdings"
	if strings.Join(kinds, ",") != wantNodes {
		t.Errorf("nodes = %v, want %s", kinds, wantNodes)
	}
	hub, cross, vias := 0, 0, []string{}
	for _, e := range d["edges"].([]any) {
		m := e.(map[string]any)
		switch m["kind"] {
		case "hub":
			hub++
		case "cross_reference":
			cross++
			vias = append(vias, m["via"].(string))
		}
	}
	if hub != 4 || cross != 2 {
		t.Errorf("edges: %d hub, %d cross-reference (%v); want 4 and 2", hub, cross, vias)
	}
	sn := d["sanctions_network"].(map[string]any)
	if sn["coverage"] != "not_screened" || sn["degraded"] != false || sn["stale_hours"] != nil || len(sn["members"].([]any)) != 0 {
		t.Errorf("sanctions_network = %v", sn)
	}
	wantCaption := "Teardown group demo-phantom-cargo-ring: 4 entities in 1 group (1 confirmed, 1 likely, 2 suspected); 4 hub edges (group membership), 2 cross-reference edges (shared alias). Sanctions network: not_screened."
	if d["caption"] != wantCaption || d["kind"] != "group" {
		t.Errorf("caption = %q, want %q", d["caption"], wantCaption)
	}

	// An entity slug gives its whole connected network.
	d = in.do("GET", "/api/v1/clusters/demo-imaginary-diesel-corp/graph", k.Key, nil).data(t, 200)
	if len(d["nodes"].([]any)) != 3 || len(d["edges"].([]any)) != 3 || d["kind"] != "entity" {
		t.Errorf("entity graph = %v", d)
	}
	wantError(t, "single unlinked row", in.do("GET", "/api/v1/clusters/demo-lone-example-lpg/graph", k.Key, nil), 404, "not_found", "")
	wantError(t, "unknown slug", in.do("GET", "/api/v1/clusters/demo-nothing/graph", k.Key, nil), 404, "not_found", "")
	wantError(t, "malformed slug", in.do("GET", "/api/v1/clusters/Bad_Slug/graph", k.Key, nil), 400, "invalid", "slug")
	wantError(t, "other item", in.do("GET", "/api/v1/clusters/demo-fake-sblc-group/members", k.Key, nil), 404, "not_found", "")
	wantError(t, "graph without key", in.do("GET", "/api/v1/clusters/demo-fake-sblc-group/graph", "", nil), 401, "unauthenticated", "")
}

// Each coverage state of sanctions_network, produced through the binary
// with the real UN list: unavailable (empty snapshot, degraded),
// not_screened, available (members quoted verbatim with their entity_id),
// withheld (a protected record), no_links_recorded, and stale_hours once
// the snapshot is older than 48 hours.
func TestE2EClusterSanctionsNetwork(t *testing.T) {
	in := startClusters(t)
	k := in.key("acme", "cluster")
	un := sharedData(t, "un", "un_consolidated.xml")
	graphOf := func(slug string) map[string]any {
		t.Helper()
		return in.do("GET", "/api/v1/clusters/"+slug+"/graph", k.Key, nil).data(t, 200)
	}
	sanctionsOf := func(slug string) map[string]any { return graphOf(slug)["sanctions_network"].(map[string]any) }

	// Names of two linked UN entries: TAi.092 states it is associated with TAi.034.
	const listed, linked = "un:TAi.034", "un:TAi.092"
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	importCLI(t, in.env, write("nolinks.csv", "slug,entity_name,severity,group,sanctions_source,source\n"+
		"test-unlisted,Test Unlisted Trading Co,likely,test-sn-nolinks,un,TEST FIXTURE\n"+
		"test-filler-c,Test Filler C,suspected,test-sn-nolinks,,TEST FIXTURE\n"))

	// Nothing ingested yet: the snapshot is empty (the graph is shared
	// between runs: empty its UN list first).
	if _, err := openGraph(t).ReplaceSanctionsList(context.Background(), "test-empty", "un", nil); err != nil {
		t.Fatal(err)
	}
	sn := sanctionsOf("test-sn-nolinks")
	g := graphOf("test-sn-nolinks")
	if sn["coverage"] != "unavailable" || sn["degraded"] != true || !strings.HasPrefix(g["caveats"].([]any)[0].(string), "Degraded") {
		t.Errorf("before any list: %v", g)
	}
	if sn := sanctionsOf("demo-phantom-cargo-ring"); sn["coverage"] != "not_screened" || sn["degraded"] != false {
		t.Errorf("demo group before any list = %v", sn)
	}

	runCLI(t, in.env, "sanctions", "ingest", "--list", "un", un)
	neo := openGraph(t)
	links, err := neo.SanctionsLinks(context.Background(), linked)
	if err != nil || len(links) == 0 {
		t.Fatalf("links of %s = %v, %v", linked, links, err)
	}
	listedName := ""
	for _, l := range links {
		if l.ID == listed {
			listedName = l.Name
		}
	}
	back, _ := neo.SanctionsLinks(context.Background(), listed)
	linkedName := ""
	for _, l := range back {
		if l.ID == linked {
			linkedName = l.Name
		}
	}
	if listedName == "" || linkedName == "" {
		t.Fatalf("names of %s and %s not found: %v %v", listed, linked, links, back)
	}
	importCLI(t, in.env, write("listed.csv", "slug,entity_name,severity,group,sanctions_source,protected,source\n"+
		"test-listed,\""+listedName+"\",confirmed,test-sn-available,un,false,TEST FIXTURE (a UN-listed name)\n"+
		"test-filler-a,Test Filler A,suspected,test-sn-available,,false,TEST FIXTURE\n"+
		"test-protected,\""+linkedName+"\",confirmed,test-sn-withheld,un,true,TEST FIXTURE (a UN-listed name)\n"+
		"test-filler-b,Test Filler B,suspected,test-sn-withheld,,false,TEST FIXTURE\n"))

	deadline := time.Now().Add(20 * time.Second)
	for sanctionsOf("test-sn-nolinks")["coverage"] == "unavailable" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if sn := sanctionsOf("test-sn-nolinks"); sn["coverage"] != "no_links_recorded" || sn["degraded"] != false || sn["stale_hours"] != nil {
		t.Errorf("unlisted screened entity = %v", sn)
	}
	// The listed entity's other links are published; its link to the
	// protected record's entry is withheld although that record belongs
	// to another network (the policy holds registry-wide).
	sn = sanctionsOf("test-sn-available")
	members, _ := sn["members"].([]any)
	found := false
	for _, m := range members {
		mm := m.(map[string]any)
		if mm["entity_id"] == linked {
			t.Errorf("the protected record's entry %s is published in another network: %v", linked, mm)
		}
		if mm["list"] == "un" && mm["quoted"] != "" && mm["cluster_entity"] == "test-listed" && mm["listed_entry_id"] == listed {
			found = true
		}
	}
	if sn["coverage"] != "available" || sn["degraded"] != false || !found || sn["withheld_entities"] != float64(1) {
		t.Errorf("listed entity = %v, want available with members of %s and 1 withheld entity", sn, listed)
	}
	if sn := sanctionsOf("test-sn-withheld"); sn["coverage"] != "withheld" || len(sn["members"].([]any)) != 0 || sn["withheld_entities"] != float64(1) {
		t.Errorf("protected entity = %v", sn)
	}
	if sn := sanctionsOf("demo-phantom-cargo-ring"); sn["coverage"] != "not_screened" {
		t.Errorf("demo group = %v", sn)
	}

	// An old snapshot qualifies the answer without withholding it.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, envValue(in.env, "DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE sanctions_snapshots SET created_at = now() - interval '73 hours', checked_at = now() - interval '73 hours'`); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for sanctionsOf("test-sn-available")["stale_hours"] == nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if sn := sanctionsOf("test-sn-available"); sn["stale_hours"] != float64(73) || sn["coverage"] != "available" {
		t.Errorf("stale snapshot: %v, want stale_hours 73 and still available", sn)
	}

	// The list is loaded in the server's screener but its graph load is
	// lost (a failed load step): the lookup reads the graph, so the answer
	// is unavailable and degraded, never a clean no_links_recorded.
	if _, err := neo.ReplaceSanctionsList(ctx, "test-empty", "un", nil); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"test-sn-available", "test-sn-nolinks"} {
		if sn := sanctionsOf(slug); sn["coverage"] != "unavailable" || sn["degraded"] != true || len(sn["members"].([]any)) != 0 {
			t.Errorf("%s with the UN list missing from the graph = %v, want unavailable and degraded", slug, sn)
		}
	}
}

// A record listed under an alias is found with the real OFAC SDN list:
// CENTRAL BANK OF IRAN is an alias ("aka") of SDN entry 4632 (BANK MARKAZI
// JOMHOURI ISLAMI IRAN), whose links are published (it was a false
// no_links_recorded when only primary names were looked up); a record whose
// own alias is the entry's primary name is found too.
func TestE2EClusterSanctionsNetworkAliases(t *testing.T) {
	// The real OFAC rows of SDN entry 4632 and of the entries its links
	// name (IRGC-QF, Hizballah) or that name it (four entries), cut from
	// ../shared/data into the test's directory: loading the whole list
	// into the local Bolt server takes most of a minute.
	keep := map[string]bool{"4632": true, "4697": true, "10465": true, "47576": true, "48257": true, "48258": true, "48259": true}
	ingest := []string{"sanctions", "ingest", "--list", "us_sdn"}
	for _, f := range []string{"sdn.csv", "add.csv", "alt.csv", "sdn_comments.csv"} {
		if p := ofacRows(t, sharedData(t, "ofac", f), keep); p != "" {
			ingest = append(ingest, p)
		}
	}
	in := startClusters(t)
	k := in.key("acme", "cluster")
	sanctionsOf := func(slug string) map[string]any {
		t.Helper()
		return in.do("GET", "/api/v1/clusters/"+slug+"/graph", k.Key, nil).data(t, 200)["sanctions_network"].(map[string]any)
	}
	runCLI(t, in.env, ingest...)
	p := filepath.Join(t.TempDir(), "cbi.csv")
	if err := os.WriteFile(p, []byte("slug,entity_name,aliases,severity,group,sanctions_source,source\n"+
		"test-cbi,CENTRAL BANK OF IRAN,,confirmed,test-sn-entry-alias,us_sdn,TEST FIXTURE (an SDN alias)\n"+
		"test-filler-d,Test Filler D,,suspected,test-sn-entry-alias,,TEST FIXTURE\n"+
		"test-record-alias,Test Record Alias Holding,Bank Markazi Jomhouri Islami Iran,confirmed,test-sn-record-alias,us_sdn,TEST FIXTURE (an alias naming an SDN entry)\n"+
		"test-filler-e,Test Filler E,,suspected,test-sn-record-alias,,TEST FIXTURE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	importCLI(t, in.env, p)

	const entry = "us_sdn:4632"
	for _, tc := range []struct{ slug, entity string }{
		{"test-sn-entry-alias", "test-cbi"},           // the alias is the entry's
		{"test-sn-record-alias", "test-record-alias"}, // the alias is the record's
	} {
		// The server loads the new snapshot within SANCTIONS_RELOAD_INTERVAL.
		deadline := time.Now().Add(20 * time.Second)
		sn := sanctionsOf(tc.slug)
		for sn["coverage"] == "unavailable" && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			sn = sanctionsOf(tc.slug)
		}
		members, _ := sn["members"].([]any)
		n := 0
		for _, m := range members {
			mm := m.(map[string]any)
			if mm["listed_entry_id"] == entry && mm["cluster_entity"] == tc.entity && mm["list"] == "us_sdn" && mm["quoted"] != "" {
				n++
			}
		}
		if sn["coverage"] != "available" || sn["degraded"] != false || n < 3 || n != len(members) {
			t.Errorf("%s: sanctions_network = %v, want available with the links of %s (3 or more) for %s", tc.slug, sn, entry, tc.entity)
		}
	}
}

// ofacRows writes the rows of the OFAC CSV file at path whose entry number
// (first field) is in keep to a file of the same name in a temporary
// directory, and returns its path, or "" when no row is kept.
func ofacRows(t *testing.T, path string, keep map[string]bool) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(rec) > 0 && keep[strings.TrimSpace(rec[0])] {
			w.Write(rec)
		}
	}
	w.Flush()
	if b.Len() == 0 {
		return ""
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// openGraph opens the graph database the tests use.
func openGraph(t *testing.T) *graphdb.DB {
	t.Helper()
	neo, err := graphdb.Open(context.Background(), graphdb.Config(graphdbtest.Lookup(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { neo.Close(context.Background()) })
	return neo
}

func validSubmission(email, name string) map[string]any {
	return map[string]any{
		"submitter_email": email, "entity_name": name,
		"pitch_summary":  "Offered 2 million barrels of Bonny Light at a 30% discount against an upfront SBLC fee.",
		"submitter_role": "trader", "entity_country": "Nigeria",
		"entity_linkedin_url":  "https://www.linkedin.com/company/example",
		"entity_email_domains": []string{"example-petro.test"}, "contact_channels": []string{"whatsapp"},
		"evidence_urls":  []string{"https://evidence.example/doc1"},
		"evidence_notes": map[string]any{"claimed_volume_mt": 270000, "cargo_specs": "API 35"},
	}
}

// The contribution flow through the binary: validation, the 201 shape,
// ownership of the GET, both limits, and triage by the CLI with its
// registry changes, events and 409 on a second triage. A running server
// serves the CLI's change to checks within the reload interval.
func TestE2EClusterSubmissions(t *testing.T) {
	in := startClusters(t, "WEBHOOK_ALLOW_PRIVATE_TARGETS=true", "CLUSTER_INVESTIGATOR=Example Investigations Desk")
	k := in.key("acme", "cluster", "webhooks")
	k2 := in.key("acme", "cluster")
	other := in.key("globex", "cluster")
	hook := in.do("POST", "/api/v1/webhooks", k.Key, map[string]any{"url": "https://hooks.example.com/cluster",
		"events": []string{"cluster.entity_added", "cluster.entity_severity_changed"}}).data(t, 201)

	bad := []struct {
		name, field string
		edit        func(m map[string]any)
	}{
		{"no email", "submitter_email", func(m map[string]any) { delete(m, "submitter_email") }},
		{"bad email", "submitter_email", func(m map[string]any) { m["submitter_email"] = "not-an-email" }},
		{"email with name", "submitter_email", func(m map[string]any) { m["submitter_email"] = "Bob <bob@example.com>" }},
		{"name too short", "entity_name", func(m map[string]any) { m["entity_name"] = "X" }},
		{"name too long", "entity_name", func(m map[string]any) { m["entity_name"] = strings.Repeat("n", 301) }},
		{"pitch too short", "pitch_summary", func(m map[string]any) { m["pitch_summary"] = "too short" }},
		{"pitch too long", "pitch_summary", func(m map[string]any) { m["pitch_summary"] = strings.Repeat("p", 5001) }},
		{"linkedin not a uri", "entity_linkedin_url", func(m map[string]any) { m["entity_linkedin_url"] = "linkedin/foo" }},
		{"evidence not a uri", "evidence_urls", func(m map[string]any) { m["evidence_urls"] = []string{"ftp://x.example/a"} }},
		{"evidence wrong type", "evidence_urls", func(m map[string]any) { m["evidence_urls"] = "https://x.example" }},
		{"notes wrong type", "evidence_notes", func(m map[string]any) { m["evidence_notes"] = []string{"x"} }},
	}
	badKey := in.key("badinput", "cluster") // bad requests count against the per-key limit too
	for i, c := range bad {
		if i%5 == 4 {
			badKey = in.key("badinput", "cluster")
		}
		body := validSubmission("tipster@example.com", "Demo Submitted Petro Ltd")
		c.edit(body)
		wantError(t, c.name, in.do("POST", "/api/v1/clusters/submit", badKey.Key, body), 400, "invalid", c.field)
	}
	wantError(t, "malformed json", in.do("POST", "/api/v1/clusters/submit", in.key("badinput", "cluster").Key, "{"), 400, "invalid", "body")
	wantError(t, "submit without key", in.do("POST", "/api/v1/clusters/submit", "", validSubmission("a@example.com", "Demo X")), 401, "unauthenticated", "")

	d := in.do("POST", "/api/v1/clusters/submit", k.Key, validSubmission("Tipster@Example.com", "Demo Submitted Petro Ltd")).data(t, 201)
	id, _ := d["request_id"].(string)
	if !strings.HasPrefix(id, "sub_") || d["status"] != "pending" || d["review_eta_hours"] != float64(72) ||
		d["licensing_acknowledgment"] != cluster.LicensingAcknowledgment || len(d["next_steps"].([]any)) != 3 || d["version"] != "v1-beta" {
		t.Errorf("submit = %v", d)
	}
	if strings.Contains(string(in.do("GET", "/api/v1/clusters/submissions/"+id, k.Key, nil).body), "ipster") {
		t.Error("the submission shows the submitter's email")
	}
	for _, who := range []struct {
		name, key, id string
		status        int
	}{
		{"submitting key", k.Key, id, 200},
		{"another key of the member", k2.Key, id, 200},
		{"without prefix", k.Key, strings.TrimPrefix(id, "sub_"), 200},
		{"another member", other.Key, id, 403},
		{"unknown", k.Key, "sub_" + "00000000-0000-4000-8000-000000000000", 404},
		{"malformed", k.Key, "sub_nope", 400},
	} {
		r := in.do("GET", "/api/v1/clusters/submissions/"+who.id, who.key, nil)
		if r.status != who.status {
			t.Errorf("GET submission as %s = %d %s, want %d", who.name, r.status, r.body, who.status)
		}
	}
	s := in.do("GET", "/api/v1/clusters/submissions/"+id, k.Key, nil).data(t, 200)
	if s["request_id"] != id || s["triage_status"] != "pending" || s["entity_name"] != "Demo Submitted Petro Ltd" ||
		s["triaged_at"] != nil || s["triaged_by"] != nil || s["linked_blocklist_id"] != nil || s["version"] != "v1-beta" {
		t.Errorf("pending submission = %v", s)
	}

	// 5 per minute per key: the 6th is refused.
	for i := 0; i < 4; i++ {
		in.do("POST", "/api/v1/clusters/submit", k2.Key, validSubmission("other@example.com", fmt.Sprintf("Demo Rate %d", i))).data(t, 201)
	}
	in.do("POST", "/api/v1/clusters/submit", k2.Key, validSubmission("other@example.com", "Demo Rate 4")).data(t, 201)
	r := in.do("POST", "/api/v1/clusters/submit", k2.Key, validSubmission("other@example.com", "Demo Rate 5"))
	wantError(t, "6th submission in a minute", r, 429, "rate_limited", "")
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}

	// 50 per 24 hours per submitter email, whatever the key.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, envValue(in.env, "DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO cluster_submissions (id, member_id, key_id, submitter_email, entity_name, pitch_summary, submitted_at)
		SELECT gen_random_uuid(), member_id, key_id, 'busy@example.com', 'Demo Earlier ' || g, pitch_summary, now() - interval '1 hour'
		FROM cluster_submissions, generate_series(1, 49) g WHERE id = $1`, strings.TrimPrefix(id, "sub_")); err != nil {
		t.Fatal(err)
	}
	in.do("POST", "/api/v1/clusters/submit", other.Key, validSubmission("BUSY@example.com", "Demo Fiftieth")).data(t, 201)
	r = in.do("POST", "/api/v1/clusters/submit", other.Key, validSubmission("busy@example.com", "Demo Fifty-first"))
	wantError(t, "51st submission of an email", r, 429, "rate_limited", "")
	if msg := r.errorOf(t)["message"].(string); !strings.Contains(msg, "50 submissions per 24 hours per submitter email") {
		t.Errorf("429 message = %q", msg)
	}

	// Nothing matches before triage.
	if d := in.do("GET", "/api/v1/clusters/check?entity=Demo+Submitted+Petro+Ltd", k.Key, nil).data(t, 200); d["matched"] != false {
		t.Fatalf("check before triage = %v", d)
	}
	var pending []rest.SubmissionView
	json.Unmarshal(runCLI(t, in.env, "submissions", "list", "--status", "pending"), &pending)
	if len(pending) != 56 { // 1 + 5 + 49 inserted + 1
		t.Errorf("pending submissions = %d, want 56", len(pending))
	}

	var tri rest.SubmissionView
	json.Unmarshal(runCLI(t, in.env, "submissions", "triage", id, "--status", "accepted", "--note", "verified by desk"), &tri)
	if tri.TriageStatus != "accepted" || tri.LinkedBlocklistID == nil || tri.TriagedBy == nil || *tri.TriagedBy != "Example Investigations Desk" || tri.TriagedAt == nil {
		t.Fatalf("accepted = %+v", tri)
	}
	// The running server serves the CLI's change within the reload interval.
	deadline := time.Now().Add(5 * time.Second)
	var chk map[string]any
	for {
		chk = in.do("GET", "/api/v1/clusters/check?entity=demo+submitted+petro+ltd", k.Key, nil).data(t, 200)
		if chk["matched"] == true || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	m := chk["matches"].([]any)
	if len(m) != 1 || m[0].(map[string]any)["id"] != *tri.LinkedBlocklistID || chk["highest_severity"] != "confirmed" ||
		m[0].(map[string]any)["source"] != "Accepted cluster submission; attributed to Example Investigations Desk" || m[0].(map[string]any)["country"] != "NG" {
		t.Errorf("check after accept = %v", chk)
	}
	if strings.Contains(string(in.do("GET", "/api/v1/clusters", k.Key, nil).body), "ipster") {
		t.Error("the list names the submitter")
	}
	s = in.do("GET", "/api/v1/clusters/submissions/"+id, k2.Key, nil).data(t, 200)
	if s["triage_status"] != "accepted" || s["linked_blocklist_id"] != *tri.LinkedBlocklistID || s["triaged_by"] != "Example Investigations Desk" {
		t.Errorf("accepted submission = %v", s)
	}

	// Only pending can be triaged.
	cmd := exec.Command(binary(t), "submissions", "triage", id, "--status", "rejected")
	cmd.Env = in.env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "only a pending submission can be triaged") {
		t.Errorf("second triage: %v %s", err, out)
	}

	// Duplicate by exact normalized name, or by an alias.
	// A fresh key of the member for each submission: 5 per minute per key.
	submitAs := func(body map[string]any) string {
		return in.do("POST", "/api/v1/clusters/submit", in.key("globex", "cluster").Key, body).data(t, 201)["request_id"].(string)
	}
	dup := submitAs(validSubmission("x@example.com", "DEMO SUBMITTED PETRO, LTD."))
	json.Unmarshal(runCLI(t, in.env, "submissions", "triage", dup, "--status", "duplicate"), &tri)
	if tri.TriageStatus != "duplicate" || tri.LinkedBlocklistID == nil || *tri.LinkedBlocklistID != m[0].(map[string]any)["id"] {
		t.Errorf("duplicate = %+v", tri)
	}
	idOf := func(slug string) string {
		return in.do("GET", "/api/v1/clusters/check?entity="+url.QueryEscape(slug), k.Key, nil).data(t, 200)["matches"].([]any)[0].(map[string]any)["id"].(string)
	}
	// "FCX Demo" is an alias of a Swiss and a Panamanian record: the submitted country picks one.
	fcx := validSubmission("x@example.com", "fcx demo")
	fcx["entity_country"] = "Switzerland"
	dup = submitAs(fcx)
	json.Unmarshal(runCLI(t, in.env, "submissions", "triage", dup, "--status", "duplicate"), &tri)
	if tri.TriageStatus != "duplicate" || tri.LinkedBlocklistID == nil || *tri.LinkedBlocklistID != idOf("Fictional Crude Exchange SA (Demo)") {
		t.Errorf("duplicate by alias = %+v", tri)
	}
	// An alias of two records (of no submitted country) names both, for --link.
	dup = submitAs(validSubmission("x@example.com", "Demo GPB"))
	cmd = exec.Command(binary(t), "submissions", "triage", dup, "--status", "duplicate")
	cmd.Env = in.env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "2 blocklist records have this alias: demo-gulf-petro-brokers (") ||
		!strings.Contains(string(out), "demo-example-bitumen-trading (") {
		t.Errorf("duplicate of an alias of two records: %v %s", err, out)
	}
	gpb := idOf("Demo Gulf Petro Brokers Ltd")
	json.Unmarshal(runCLI(t, in.env, "submissions", "triage", dup, "--status", "duplicate", "--link", gpb), &tri)
	if tri.TriageStatus != "duplicate" || tri.LinkedBlocklistID == nil || *tri.LinkedBlocklistID != gpb {
		t.Errorf("duplicate with --link = %+v", tri)
	}

	// Accepting the name of an imported record yields the investigator's own
	// confirmed record for the submitted country; the imported record stays
	// as its source says, and a re-import of the source changes neither.
	checkIn := func(entity, country string) map[string]any {
		return in.do("GET", "/api/v1/clusters/check?entity="+url.QueryEscape(entity)+"&country="+country, k.Key, nil).data(t, 200)
	}
	waitChecked := func(entity, country, severity string) map[string]any {
		deadline := time.Now().Add(5 * time.Second)
		d := checkIn(entity, country)
		for d["highest_severity"] != severity && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			d = checkIn(entity, country)
		}
		if d["highest_severity"] != severity {
			t.Errorf("check %q in %q = %v, want %s", entity, country, d, severity)
		}
		return d
	}
	raise := submitAs(validSubmission("x@example.com", "Example Bitumen Trading FZE"))
	json.Unmarshal(runCLI(t, in.env, "submissions", "triage", raise, "--status", "accepted"), &tri)
	bitumen := *tri.LinkedBlocklistID
	lngBody := validSubmission("x@example.com", "Placeholder LNG Partners (Demo)")
	lngBody["entity_country"] = "SG"
	lng := submitAs(lngBody)
	json.Unmarshal(runCLI(t, in.env, "submissions", "triage", lng, "--status", "accepted"), &tri)
	lngRecord := *tri.LinkedBlocklistID
	rej := submitAs(validSubmission("x@example.com", "Demo Rejected Co"))
	json.Unmarshal(runCLI(t, in.env, "submissions", "triage", rej, "--status", "rejected"), &tri)
	if tri.TriageStatus != "rejected" || tri.LinkedBlocklistID != nil {
		t.Errorf("rejected = %+v", tri)
	}
	for round, reimport := range []bool{false, true} {
		if reimport {
			if res := importCLI(t, in.env, demoClusters); res.Added != 0 || res.Updated != 0 || res.SeverityChanged != 0 {
				t.Errorf("re-import after the accepts = %+v, want unchanged", res)
			}
		}
		for _, c := range []struct {
			entity, country, severity, id string
		}{
			{"Example Bitumen Trading FZE", "NG", "confirmed", bitumen},
			{"Example Bitumen Trading FZE", "AE", "likely", ""},
			{"Placeholder LNG Partners (Demo)", "SG", "confirmed", lngRecord},
			{"Placeholder LNG Partners (Demo)", "NG", "suspected", ""},
		} {
			d := waitChecked(c.entity, c.country, c.severity)
			ms, _ := d["matches"].([]any)
			if len(ms) != 1 || (c.id != "" && ms[0].(map[string]any)["id"] != c.id) ||
				(c.id != "" && ms[0].(map[string]any)["source"] != "Accepted cluster submission; attributed to Example Investigations Desk") {
				t.Errorf("round %d: check %q in %s = %v", round, c.entity, c.country, d)
			}
		}
	}
	if n := pgCount(t, in.env, `SELECT count(*) FROM cluster_submissions s JOIN cluster_records r ON r.id = s.linked_blocklist_id
		WHERE s.triage_status = 'accepted' AND r.severity <> 'confirmed'`); n != 0 {
		t.Errorf("%d accepted submissions link a record that is not confirmed", n)
	}

	// Events: entity_added for each accepted submission (each made a new
	// investigator record) and no severity change, to the subscribed member.
	subID := strings.TrimPrefix(hook["id"].(string), "wh_")
	var added, changed int
	conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE e.type = 'cluster.entity_added' AND e.payload->>'severity' = 'confirmed' AND e.payload->>'entity_name' IN
				('Demo Submitted Petro Ltd', 'Example Bitumen Trading FZE', 'Placeholder LNG Partners (Demo)')),
			count(*) FILTER (WHERE e.type = 'cluster.entity_severity_changed')
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.subscription_id = $1`, subID).Scan(&added, &changed)
	if added != 3 || changed != 0 {
		t.Errorf("events: %d entity_added, %d severity_changed; want 3 and 0", added, changed)
	}

	// Without the submission storage: 503.
	if _, err := conn.Exec(ctx, `DROP TABLE cluster_submissions`); err != nil {
		t.Fatal(err)
	}
	wantError(t, "storage absent", in.do("POST", "/api/v1/clusters/submit", in.key("initech", "cluster").Key, validSubmission("z@example.com", "Demo Z")), 503, "unavailable", "")
}

// camel returns v with every object key in lowerCamelCase and null members
// dropped, so a REST answer compares with a GraphQL one.
func camel(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if val == nil {
				continue
			}
			parts := strings.Split(k, "_")
			for i := 1; i < len(parts); i++ {
				parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
			}
			out[strings.Join(parts, "")] = camel(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = camel(e)
		}
		return out
	}
	return v
}

// gqlData returns data.<field> of a GraphQL answer, failing on errors.
func gqlData(t *testing.T, r response, field string) any {
	t.Helper()
	var out struct {
		Data   map[string]any
		Errors []any
	}
	if err := json.Unmarshal(r.body, &out); err != nil || len(out.Errors) > 0 || out.Data[field] == nil {
		t.Fatalf("GraphQL %s = %s", field, r.body)
	}
	return out.Data[field]
}

const gqlRecord = `id slug entityName aliases severity country group addedAt source note`

// GraphQL gives the same answers as REST for the list, the check, the
// graph and a submission, and the same errors.
func TestE2EClustersRESTMatchesGraphQL(t *testing.T) {
	in := startClusters(t)
	k := in.key("acme", "cluster")
	same := func(what string, rest, gql any) {
		t.Helper()
		if !reflect.DeepEqual(camel(rest), camel(gql)) {
			rj, _ := json.Marshal(camel(rest))
			gj, _ := json.Marshal(camel(gql))
			t.Errorf("%s differs:\nREST    %s\nGraphQL %s", what, rj, gj)
		}
	}

	rl := in.do("GET", "/api/v1/clusters?severity=suspected&since=2026-01-01", k.Key, nil).data(t, 200)
	gl := gqlData(t, in.gql(k.Key, `query($s: String, $since: String) { clusters(severity: $s, since: $since) { count clusters { `+gqlRecord+` } filters { severity country since } caveats } }`,
		map[string]any{"s": "suspected", "since": "2026-01-01"}), "clusters")
	same("list", map[string]any{"count": rl["count"], "clusters": rl["clusters"], "filters": rl["filters"], "caveats": rl["caveats"]}, gl)

	for _, q := range []struct{ entity, country string }{{"demo gpb", ""}, {"Example Petro Brokerage", "GB"}, {"Demo Gulf Petro", ""}} {
		rc := in.do("GET", "/api/v1/clusters/check?entity="+url.QueryEscape(q.entity)+"&country="+q.country, k.Key, nil).data(t, 200)
		gc := gqlData(t, in.gql(k.Key, `query($e: String!, $c: String) { clusterCheck(entity: $e, country: $c) { matched matches { `+gqlRecord+` } highestSeverity entity normalized country leadOnly caveats } }`,
			map[string]any{"e": q.entity, "c": q.country}), "clusterCheck")
		same("check "+q.entity, rc, gc)
	}

	rg := in.do("GET", "/api/v1/clusters/demo-phantom-cargo-ring/graph", k.Key, nil).data(t, 200)
	gg := gqlData(t, in.gql(k.Key, `{ clusterGraph(slug: "demo-phantom-cargo-ring") { slug kind nodes { id kind slug label severity country }
		edges { kind relation from to via } caption source truncated caveats
		sanctionsNetwork { members { entityId list sourceId name quoted listedEntryId clusterEntity } coverage degraded staleHours screenedEntities withheldEntities note } } }`, nil), "clusterGraph")
	same("graph", rg, gg)

	sub := gqlData(t, in.gql(k.Key, `mutation($in: ClusterSubmissionInput!) { submitCluster(input: $in) { requestId status reviewEtaHours licensingAcknowledgment nextSteps version submittedAt } }`,
		map[string]any{"in": map[string]any{"submitterEmail": "gql@example.com", "entityName": "Demo GraphQL Submitted",
			"pitchSummary": "A pitch of at least forty characters about a phantom cargo.", "evidenceUrls": []string{"https://e.example/x"},
			"evidenceNotes": map[string]any{"claimed_principal": "Example"}}}), "submitCluster").(map[string]any)
	id, _ := sub["requestId"].(string)
	if !strings.HasPrefix(id, "sub_") || sub["status"] != "pending" || sub["reviewEtaHours"] != float64(72) {
		t.Errorf("submitCluster = %v", sub)
	}
	rs := in.do("GET", "/api/v1/clusters/submissions/"+id, k.Key, nil).data(t, 200)
	gs := gqlData(t, in.gql(k.Key, `query($id: String!) { clusterSubmission(requestId: $id) { requestId triageStatus entityName submittedAt triagedAt triagedBy linkedBlocklistId version } }`,
		map[string]any{"id": id}), "clusterSubmission")
	same("submission", rs, gs)

	// The same errors, as extensions.code.
	other := in.key("globex", "cluster")
	sandbox := in.do("POST", "/api/v1/keys/sandbox", "", map[string]any{"email": "gqlsandbox@example.com"}).json(t)
	sk, _ := sandbox["key"].(string)
	if sk == "" {
		sk, _ = sandbox["data"].(map[string]any)["key"].(string)
	}
	for _, c := range []struct {
		name, key, query, code string
	}{
		{"punctuation entity", k.Key, `{ clusterCheck(entity: "--") { matched } }`, "invalid"},
		{"bad severity", k.Key, `{ clusters(severity: "high") { count } }`, "invalid"},
		{"no linked network", k.Key, `{ clusterGraph(slug: "demo-lone-example-lpg") { slug } }`, "not_found"},
		{"another member's submission", other.Key, `{ clusterSubmission(requestId: "` + id + `") { requestId } }`, "forbidden"},
		{"no key", "", `{ clusterCheck(entity: "demo gpb") { matched } }`, "unauthenticated"},
		{"sandbox list", sk, `{ clusters { count } }`, "forbidden"},
		{"short pitch", k.Key, `mutation { submitCluster(input: {submitterEmail: "a@example.com", entityName: "Demo", pitchSummary: "short"}) { requestId } }`, "invalid"},
	} {
		r := in.gql(c.key, c.query, nil)
		if !strings.Contains(string(r.body), `"code":"`+c.code+`"`) {
			t.Errorf("GraphQL %s = %s, want code %s", c.name, r.body, c.code)
		}
	}
	if r := in.gql(sk, `{ clusterCheck(entity: "demo gpb") { matched highestSeverity } }`, nil); !strings.Contains(string(r.body), `"highestSeverity":"confirmed"`) {
		t.Errorf("sandbox clusterCheck = %s", r.body)
	}
}

// A change made by the CLI (or by another instance) is served by every
// running instance within the reload interval.
func TestE2EClusterRegistryReloadsOnEveryInstance(t *testing.T) {
	env := testEnv(t, "CLUSTER_RELOAD_INTERVAL=200ms")
	a := start(t, env)
	cleanupMirror(t, env)
	b := serveOnly(t, env)
	ka := a.key("acme", "cluster")
	for _, in := range []*instance{a, b} {
		if d := in.do("GET", "/api/v1/clusters/check?entity=demo+gpb", ka.Key, nil).data(t, 200); d["matched"] != false {
			t.Fatalf("%s before import: %v", in.base, d)
		}
	}
	importCLI(t, env, demoClusters)
	for _, in := range []*instance{a, b} {
		start := time.Now()
		for {
			d := in.do("GET", "/api/v1/clusters/check?entity=demo+gpb", ka.Key, nil).data(t, 200)
			if d["matched"] == true {
				break
			}
			if time.Since(start) > 3*time.Second {
				t.Fatalf("%s still answers %v 3 s after the import", in.base, d)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// With the Bolt server unreachable, the check and the list still answer
// (Postgres and the in-memory index), and a graph is read from the
// registry of record: source "registry", sanctions_network unavailable and
// degraded, never a clean screen.
func TestE2EClusterGraphWithoutBoltServer(t *testing.T) {
	dead := fmt.Sprintf("bolt://127.0.0.1:%d", freePort(t))
	env := testEnv(t, "CLUSTER_RELOAD_INTERVAL=100ms")
	runCLI(t, env, "migrate")
	env = append(env, "NEO4J_URI="+dead)
	in := serveOnly(t, env)
	runCLI(t, env, "clusters", "import", "--no-graph", demoClusters)
	k := in.key("acme", "cluster")

	if r := in.do("GET", "/readyz", "", nil); r.status != 503 {
		t.Errorf("readyz with the Bolt server down = %d, want 503", r.status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for in.do("GET", "/api/v1/clusters/check?entity=demo+gpb", k.Key, nil).data(t, 200)["matched"] != true {
		if time.Now().After(deadline) {
			t.Fatal("check does not match the imported records")
		}
		time.Sleep(50 * time.Millisecond)
	}
	d := in.do("GET", "/api/v1/clusters/demo-phantom-cargo-ring/graph", k.Key, nil).data(t, 200)
	sn := d["sanctions_network"].(map[string]any)
	if d["source"] != "registry" || len(d["nodes"].([]any)) != 5 || len(d["edges"].([]any)) != 6 ||
		sn["coverage"] != "unavailable" || sn["degraded"] != true || !strings.HasPrefix(d["caveats"].([]any)[0].(string), "Degraded") {
		t.Errorf("graph with the Bolt server down = %v", d)
	}
	wantError(t, "unlinked record", in.do("GET", "/api/v1/clusters/demo-lone-example-lpg/graph", k.Key, nil), 404, "not_found", "")
}
