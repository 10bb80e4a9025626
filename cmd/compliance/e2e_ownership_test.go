package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graphdb"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

// ownershipEnv is the environment for `compliance ownership import`: it
// needs only the graph database.
func ownershipEnv(t *testing.T) []string {
	neo := graphdbtest.Lookup(t)
	return append(os.Environ(), "NEO4J_URI="+neo.URI, "NEO4J_USER="+neo.User,
		"NEO4J_PASSWORD="+neo.Password, "NEO4J_DATABASE="+neo.Database, "LOG_LEVEL=error")
}

func importOut(t *testing.T, out []byte) ownershipImportResult {
	t.Helper()
	var res ownershipImportResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("import output %s: %v", out, err)
	}
	return res
}

// openGraph is in e2e_clusters_test.go (the same helper; merge of the
// ubo and clusters branches).

func TestE2EOwnershipImportCSV(t *testing.T) {
	env := ownershipEnv(t)
	run := graphdbtest.Unique(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "edges.csv")
	csv := strings.Join([]string{
		"owner_id,owner_name,owner_kind,owned_id,owned_name,relation,pct,pct_min,pct_max,role,as_of,source",
		run + "p1,Ana Lima,person," + run + "a,Alpha Ltd,owns,60,,,,2024-01-31,registry",
		run + "a,,," + run + "r,Root Co,owns,50,,,,2024-01-31,registry",
		run + "p2,Bo Chen,person," + run + "r,,owns,,25,50,,,registry",
		run + "p3,Cy Dee,person," + run + "r,,controls,,,,board_appointment,,filing",
	}, "\n") + "\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	neo := openGraph(t)
	t.Cleanup(func() {
		var ids []string
		for _, id := range []string{"p1", "p2", "p3", "a", "r"} {
			ids = append(ids, run+id)
		}
		if err := neo.DeleteEntities(context.Background(), ids); err != nil {
			t.Error(err)
		}
	})
	want := graphdb.ImportStats{Nodes: 5, Owns: 3, Controls: 1}
	for i := range 2 {
		res := importOut(t, runCLI(t, env, "ownership", "import", file))
		if res.Written != want {
			t.Errorf("import #%d wrote %+v, want %+v", i+1, res.Written, want)
		}
		if len(res.Files) != 1 || res.Files[0].Format != "csv" || res.Files[0].Records != 4 {
			t.Errorf("import #%d files = %+v", i+1, res.Files)
		}
	}
	ctx := context.Background()
	sub, err := neo.Upstream(ctx, run+"r", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.Nodes) != 5 || len(sub.Edges) != 4 {
		t.Errorf("after two imports the upstream of r has %d nodes and %d edges, want 5 and 4", len(sub.Nodes), len(sub.Edges))
	}
	res := ownership.Compute(sub, run+"r", ownership.Options{})
	var got []string
	for _, o := range res.Owners {
		got = append(got, strings.TrimPrefix(o.Node.ID, run)+" "+o.Share.String()+" "+o.Status)
	}
	if want := []string{"p2 25-50% beneficial_owner", "p1 30% beneficial_owner"}; !reflect.DeepEqual(got, want) {
		t.Errorf("owners = %q, want %q", got, want)
	}
	if len(res.ControlOnly) != 1 || res.ControlOnly[0].Node.Name != "Cy Dee" {
		t.Errorf("control only = %+v, want Cy Dee", res.ControlOnly)
	}
}

func TestE2EOwnershipImportErrors(t *testing.T) {
	env := ownershipEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("owner_id,owner_name,owned_id,owned_name,pct\na,A,b,B,60\nc,C,d,D,sixty\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad line", []string{"ownership", "import", bad}, bad + " line 3: pct must be a number"},
		{"bad format flag", []string{"ownership", "import", "--format", "xml", bad}, `--format "xml" must be bods, csv or openoil`},
		{"missing file", []string{"ownership", "import", filepath.Join(dir, "nope.csv")}, "no such file"},
		{"no file", []string{"ownership", "import"}, "no FILE given"},
		{"unknown subcommand", []string{"ownership", "export"}, `unknown ownership command "export"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binary(t), tc.args...)
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err == nil {
				t.Fatalf("compliance %v succeeded: %s", tc.args, out)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.want)
			}
		})
	}
}

// TestE2EOwnershipImportOpenOil imports the real BP and Nigerian files
// through the binary, twice, and checks hand-computed figures on the
// stored graph (rows cited in graph/ownership/importer's tests).
func TestE2EOwnershipImportOpenOil(t *testing.T) {
	env := ownershipEnv(t)
	bp := sharedData(t, "ownership", "openoil", "BP_ownership_20140822.csv")
	ng := sharedData(t, "ownership", "openoil", "Nigeria_ownership_20140711.csv")
	var first ownershipImportResult
	for i := range 2 {
		res := importOut(t, runCLI(t, env, "ownership", "import", bp, ng))
		if i == 0 {
			first = res
		} else if res.Written != first.Written {
			t.Errorf("re-import wrote %+v, first import %+v", res.Written, first.Written)
		}
	}
	if want := (graphdb.ImportStats{Nodes: 1178 + 64, Owns: 1163 + 60}); first.Written != want {
		t.Errorf("import wrote %+v, want %+v", first.Written, want)
	}
	neo := openGraph(t)
	ctx := context.Background()
	tests := []struct {
		root string
		hops int
		want []string
	}{
		{"openoil:abu dhabi marine areas limited", 4, []string{"openoil:bp p l c 33.335% beneficial_owner"}},
		{"openoil:nigeria lng limited", 4, []string{
			"openoil:nigerian national petroleum corporation (nnpc) 49% beneficial_owner",
			"openoil:royal dutch shell plc 25.6% beneficial_owner",
			"openoil:total sa 15% below_threshold",
			"openoil:eni spa 10.4% below_threshold",
		}},
	}
	for _, tc := range tests {
		sub, err := neo.Upstream(ctx, tc.root, tc.hops)
		if err != nil {
			t.Fatal(err)
		}
		res := ownership.Compute(sub, tc.root, ownership.Options{})
		var got []string
		for _, o := range res.Unidentified {
			got = append(got, o.Node.ID+" "+o.Share.String()+" "+o.Status)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: top owners %q, want %q", tc.root, got, tc.want)
		}
	}
	nodes, err := neo.EntitiesByName(ctx, "bp  P L C", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0].ID != "openoil:bp p l c" {
		t.Errorf("EntitiesByName(bp  P L C) = %+v, want openoil:bp p l c", nodes)
	}
}
