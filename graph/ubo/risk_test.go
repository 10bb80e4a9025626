package ubo

import (
	"strings"
	"testing"
)

func TestAggregate(t *testing.T) {
	base := func() *Result {
		return &Result{
			RootEntityID: "R", RootFound: true,
			Nodes: []Node{
				{ID: "R", Name: "Root Co", Sanctions: NodeScreening{Screened: true}, Blocklist: BlocklistResult{Status: BlocklistClear}},
				{ID: "O", Name: "Owner Co", Sanctions: NodeScreening{Screened: true}, Blocklist: BlocklistResult{Status: BlocklistClear}},
			},
			Edges:                []Edge{{From: "O", To: "R", Relation: RelOwns, Pct: new(60.0)}},
			SanctionsCoverage:    "complete",
			BlocklistScreened:    true,
			OFAC50:               OFAC50{Status: OFACNotBlocked},
			ShellCompanyVerdicts: map[string]Verdict{},
		}
	}
	tests := []struct {
		name    string
		mod     func(r *Result)
		risk    string
		reasons []string // substrings, in order
	}{
		{"clean", func(r *Result) {}, RiskLow, []string{"no sanctions, blocklist, OFAC 50% or shell-company finding"}},
		{"root not in ownership data", func(r *Result) {
			*r = Result{RootFound: false, SanctionsCoverage: "complete", BlocklistScreened: true, OFAC50: OFAC50{Status: OFACUnknown}}
		}, RiskUnknown, []string{"the root entity is not in the ownership data"}},
		{"root blocked under OFAC 50", func(r *Result) {
			r.OFAC50 = OFAC50{Status: OFACBlocked, Evidence: []string{"SDN A owns 50%"}}
		}, RiskHigh, []string{"blocked under the OFAC 50% rule: SDN A owns 50%"}},
		{"root possibly blocked", func(r *Result) {
			r.OFAC50 = OFAC50{Status: OFACPossiblyBlocked, Evidence: []string{"band 25-75"}}
		}, RiskMedium, []string{"possibly blocked"}},
		{"root on a list", func(r *Result) {
			r.SanctionsMatches = []SanctionsMatch{{EntityID: "R", List: "us_sdn", SourceID: "123", ListedName: "ROOT CO"}}
		}, RiskHigh, []string{`the root Root Co matches a sanctions list (us_sdn 123 "ROOT CO")`}},
		{"owner on a list", func(r *Result) {
			r.SanctionsMatches = []SanctionsMatch{{EntityID: "O", List: "un", SourceID: "QDe.1", ListedName: "OWNER"}}
		}, RiskMedium, []string{"Owner Co in the ownership graph matches a sanctions list"}},
		{"root on confirmed cluster record", func(r *Result) {
			r.ClusterHits = []ClusterHit{{EntityID: "R", EntityName: "Root Co", Name: "Root Co", Severity: "confirmed"}}
		}, RiskHigh, []string{`the root Root Co matches cluster record "Root Co" (confirmed)`}},
		{"root on suspected cluster record is a lead", func(r *Result) {
			r.ClusterHits = []ClusterHit{{EntityID: "R", EntityName: "Root Co", Name: "Root Co", Severity: "suspected"}}
		}, RiskMedium, []string{"a publicly reported lead, not a confirmed fraud"}},
		{"root likely shell", func(r *Result) {
			r.ShellCompanyVerdicts["R"] = Verdict{EntityID: "R", Name: "Root Co", Verdict: VerdictLikelyShell, Signals: []Signal{{Name: SignalCircularOwnership}, {Name: SignalNomineeOfficers}}}
		}, RiskHigh, []string{"the root Root Co is a likely shell company (circular_ownership, nominee_officers)"}},
		{"root possible shell", func(r *Result) {
			r.ShellCompanyVerdicts["R"] = Verdict{EntityID: "R", Name: "Root Co", Verdict: VerdictPossibleShell, Signals: []Signal{{Name: SignalNomineeOfficers}}}
		}, RiskMedium, []string{"the root Root Co is a possible shell company (nominee_officers)"}},
		{"owner likely shell", func(r *Result) {
			r.ShellCompanyVerdicts["O"] = Verdict{EntityID: "O", Name: "Owner Co", Verdict: VerdictLikelyShell}
		}, RiskMedium, []string{"Owner Co in the ownership graph is a likely shell company"}},
		{"root weak signal stays low", func(r *Result) {
			r.ShellCompanyVerdicts["R"] = Verdict{EntityID: "R", Name: "Root Co", Verdict: VerdictWeakSignals, Signals: []Signal{{Name: SignalSecrecyJurisdiction}}}
		}, RiskLow, []string{"no sanctions", "weak shell signal (secrecy_jurisdiction)"}},
		{"partial sanctions coverage is unknown, not low", func(r *Result) {
			r.SanctionsCoverage, r.ListsMissing = "partial", []string{"ca", "au_dfat"}
		}, RiskUnknown, []string{"sanctions screening was partial: lists not screened: ca, au_dfat"}},
		{"blocklist not screened is unknown", func(r *Result) {
			r.BlocklistScreened = false
		}, RiskUnknown, []string{"the cluster blocklist was not screened"}},
		{"medium with missing data lists both", func(r *Result) {
			r.BlocklistScreened = false
			r.SanctionsMatches = []SanctionsMatch{{EntityID: "O", List: "eu", SourceID: "EU.1", ListedName: "OWNER"}}
		}, RiskMedium, []string{"matches a sanctions list", "the cluster blocklist was not screened"}},
		{"truncated traversal is unknown", func(r *Result) { r.Truncated = true }, RiskUnknown, []string{"stopped at max_hops"}},
		{"OFAC 50 status unknown is unknown", func(r *Result) {
			r.OFAC50 = OFAC50{Status: OFACUnknown}
		}, RiskUnknown, []string{"the OFAC 50% rule status is unknown"}},
		{"a node that failed sanctions screening is unknown", func(r *Result) {
			r.Nodes[1].Sanctions = NodeScreening{Screened: false, Reason: "timeout"}
		}, RiskUnknown, []string{"sanctions screening failed for: Owner Co"}},
		{"a node not screened against the blocklist is unknown", func(r *Result) {
			r.Nodes[1].Blocklist = BlocklistResult{Status: BlocklistNotScreened}
		}, RiskUnknown, []string{"the cluster blocklist was not screened for: Owner Co"}},
		{"root with no recorded owner is unknown", func(r *Result) {
			r.Edges = []Edge{{From: "O", To: "R", Relation: RelControls, Role: "board_appointment"}}
		}, RiskUnknown, []string{"the root has no recorded owner"}},
		{"ambiguous root name is unknown", func(r *Result) {
			r.Candidates = []string{"R2", "R3"}
		}, RiskUnknown, []string{"the root name is ambiguous: it matched 3 entities; Root Co (R) was assessed, not R2, R3"}},
		{"ambiguous root name with a finding keeps the finding", func(r *Result) {
			r.Candidates = []string{"R2"}
			r.SanctionsMatches = []SanctionsMatch{{EntityID: "O", List: "un", SourceID: "QDe.1", ListedName: "OWNER"}}
		}, RiskMedium, []string{"Owner Co in the ownership graph matches a sanctions list", "ambiguous: it matched 2 entities"}},
		{"every gap is listed", func(r *Result) {
			r.Truncated = true
			r.OFAC50 = OFAC50{Status: OFACUnknown}
			r.Edges = nil
			r.Nodes[0].Sanctions.Screened = false
			r.Nodes[1].Blocklist.Status = BlocklistNotScreened
		}, RiskUnknown, []string{"OFAC 50% rule status is unknown", "no recorded owner", "sanctions screening failed for: Root Co", "blocklist was not screened for: Owner Co", "stopped at max_hops"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.mod(r)
			risk, reasons := Aggregate(r)
			if risk != tt.risk {
				t.Errorf("Aggregate risk = %s, want %s (reasons %q)", risk, tt.risk, reasons)
			}
			if len(reasons) != len(tt.reasons) {
				t.Fatalf("Aggregate reasons = %q, want %d matching %q", reasons, len(tt.reasons), tt.reasons)
			}
			for i, want := range tt.reasons {
				if !strings.Contains(reasons[i], want) {
					t.Errorf("reason %d = %q, want it to contain %q", i, reasons[i], want)
				}
			}
		})
	}
}

func TestCoverageCarriesUBOCaveat(t *testing.T) {
	c := Coverage()
	if c.Caveats[0] != "Coverage is partial: no functioning US domestic beneficial-ownership registry exists after March 2025" {
		t.Errorf("Coverage().Caveats[0] = %q", c.Caveats[0])
	}
	if !c.SanctionsOnly || c.PEPScreening {
		t.Errorf("Coverage() = %+v, want sanctions-only and no PEP", c)
	}
	if got := len(c.Caveats); got != 5 {
		t.Errorf("len(Caveats) = %d, want 5", got)
	}
}
