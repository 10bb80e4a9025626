package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
)

// The KYC ownership step through the binary: an ownership CSV imported with
// `compliance ownership import` makes the step report the listed owner and
// fail the run (OFAC 50%), and a company whose every owner is known and
// clean passes it; with all 8 lists loaded (one fixture entry each) and no
// other finding, that run's verdict is pass.
func TestE2EKYCOwnership(t *testing.T) {
	env := testEnv(t, "SANCTIONS_RELOAD_INTERVAL=200ms")
	runCLI(t, env, "migrate")
	run := graphdbtest.Unique(t)
	listed := run + " Sanctioned Holdings LLC"
	dir := t.TempDir()
	for i, list := range []string{"us_sdn", "us_cons", "un", "eu", "uk_hmt", "ca", "au_dfat", "ch_seco"} {
		name := fmt.Sprintf("%s Fixture Listed Entity %d", run, i)
		if list == "us_sdn" {
			name = listed
		}
		p := filepath.Join(dir, list+".jsonl")
		line := fmt.Sprintf(`{"list": %q, "source_id": "E2E-%d", "kind": "entity", "name": %q, "programs": ["TEST"]}`+"\n", list, i, name)
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		runCLI(t, env, "sanctions", "ingest", "--list", list, "--no-graph", p)
	}
	blocked, clean := run+" Blocked Trading Ltd", run+" Clean Shipping AS"
	csv := strings.Join([]string{
		"owner_id,owner_name,owner_kind,owned_id,owned_name,relation,pct,pct_min,pct_max,role,as_of,source",
		run + "s," + listed + ",company," + run + "b," + blocked + ",owns,60,,,,2025-01-31,e2e",
		run + "p," + run + " Ana Lima,person," + run + "b,,owns,40,,,,2025-01-31,e2e",
		run + "q," + run + " Bo Chen,person," + run + "c," + clean + ",owns,100,,,,2025-01-31,e2e",
	}, "\n") + "\n"
	file := filepath.Join(dir, "owners.csv")
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	neo := openGraph(t)
	t.Cleanup(func() {
		var ids []string
		for _, id := range []string{"s", "p", "q", "b", "c"} {
			ids = append(ids, run+id)
		}
		if err := neo.DeleteEntities(context.Background(), ids); err != nil {
			t.Error(err)
		}
	})
	runCLI(t, env, "ownership", "import", file)
	in := serveOnly(t, env)
	k := in.key("kyc-owners")

	ownershipOf := func(t *testing.T, r kycRun) (kycStep, kyc.OwnershipExposure) {
		t.Helper()
		for _, s := range r.Steps {
			if s.Step == "ownership" {
				var x kyc.OwnershipExposure
				if err := json.Unmarshal(s.Evidence, &x); err != nil {
					t.Fatalf("ownership evidence %s: %v", s.Evidence, err)
				}
				return s, x
			}
		}
		t.Fatalf("no ownership step in %+v", r.Steps)
		return kycStep{}, kyc.OwnershipExposure{}
	}
	statuses := func(r kycRun) []string {
		var out []string
		for _, s := range r.Steps {
			out = append(out, s.stepStatus())
		}
		return out
	}

	t.Run("listed owner of 60% blocks the company", func(t *testing.T) {
		first := in.screen(k.Key, map[string]any{"company_name": blocked, "country": "NO", "product": "crude"})
		done := in.completedRun(k.Key, first.ID)
		want := []string{"cluster_blocklist=pass", "regulatory_tradability=pass", "sanctions=pass", "directors=not_checked",
			"ownership=fail", "adverse_media=unmeasured", "verdict=fail"}
		if got := statuses(done); !reflect.DeepEqual(got, want) {
			t.Errorf("steps = %v, want %v", got, want)
		}
		step, x := ownershipOf(t, done)
		wantOwners := []kyc.ExposedOwner{{EntityID: run + "s", Name: listed, Lists: []string{"us_sdn"}, Confirmed: true, EffectiveShare: 0.6, Path: []string{listed, blocked}}}
		if !x.Found || x.EntityID != run+"b" || x.OFAC50Rule != kyc.OFAC50Blocked || x.AggregateBlockedShare != 0.6 ||
			!reflect.DeepEqual(x.BlockedOwners, wantOwners) || x.Coverage != graph.CaveatUBOPartial {
			t.Errorf("ownership evidence = %+v", x)
		}
		if !strings.Contains(step.Summary, "blocked under the OFAC 50 percent rule: 1 sanctioned or blocked owner(s), 60.0%") {
			t.Errorf("ownership summary = %q", step.Summary)
		}
		if done.Verdict != "fail" || !strings.Contains(done.VerdictReasoning, "ownership fail: blocked under the OFAC 50 percent rule") {
			t.Errorf("verdict = %s %q", done.Verdict, done.VerdictReasoning)
		}
	})

	t.Run("clean, fully known owners pass", func(t *testing.T) {
		first := in.screen(k.Key, map[string]any{"company_name": clean, "country": "NO", "product": "crude"})
		done := in.completedRun(k.Key, first.ID)
		want := []string{"cluster_blocklist=pass", "regulatory_tradability=pass", "sanctions=pass", "directors=not_checked",
			"ownership=pass", "adverse_media=unmeasured", "verdict=pass"}
		if got := statuses(done); !reflect.DeepEqual(got, want) {
			t.Errorf("steps = %v, want %v", got, want)
		}
		_, x := ownershipOf(t, done)
		if !x.Found || x.EntityID != run+"c" || x.OFAC50Rule != kyc.OFAC50Clear || len(x.BlockedOwners) != 0 {
			t.Errorf("ownership evidence = %+v", x)
		}
		if done.Verdict != "pass" || !strings.Contains(done.VerdictReasoning, "ownership pass: no sanctioned or blocked owner found in the ownership graph (coverage is partial)") {
			t.Errorf("verdict = %s %q", done.Verdict, done.VerdictReasoning)
		}
	})

	t.Run("company not in the ownership data is not screened", func(t *testing.T) {
		first := in.screen(k.Key, map[string]any{"company_name": run + " Unknown Freight AS", "country": "NO", "product": "crude"})
		done := in.completedRun(k.Key, first.ID)
		step, x := ownershipOf(t, done)
		if step.Status != "not_screened" || x.Found || x.OFAC50Rule != kyc.OFAC50NotAssessed {
			t.Errorf("ownership = %s %+v", step.Status, x)
		}
		if done.Verdict != "review" || !strings.Contains(done.VerdictReasoning, "ownership not_screened: ownership not screened: the ownership graph holds no entity") {
			t.Errorf("verdict = %s %q", done.Verdict, done.VerdictReasoning)
		}
	})
}
