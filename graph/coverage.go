package graph

// SanctionsLists are the 8 sanctions lists the service screens against, by
// the ids the operator CLI and the API use.
var SanctionsLists = []SanctionsList{
	{ID: "us_sdn", Name: "US OFAC Specially Designated Nationals (SDN)"},
	{ID: "us_cons", Name: "US OFAC Consolidated (non-SDN)"},
	{ID: "un", Name: "UN Security Council Consolidated"},
	{ID: "eu", Name: "EU Financial Sanctions Files"},
	{ID: "uk_hmt", Name: "UK HM Treasury OFSI Consolidated"},
	{ID: "ca", Name: "Canada SEMA Consolidated Autonomous Sanctions"},
	{ID: "au_dfat", Name: "Australia DFAT Consolidated"},
	{ID: "ch_seco", Name: "Swiss SECO Sanctions"},
}

// SanctionsList names one list the service covers.
type SanctionsList struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Coverage is the statement of what the service does and does not screen,
// which every surface (REST, GraphQL, MCP) relays with its answers.
type Coverage struct {
	SanctionsLists []string `json:"sanctions_lists"`
	SanctionsOnly  bool     `json:"sanctions_only"`
	PEPScreening   bool     `json:"pep_screening"`
	Caveats        []string `json:"caveats"`
}

// The caveats the spec requires consumers to relay.
const (
	CaveatSanctionsOnly = "Sanctions coverage is the 8 listed lists only; coverage is reported as sanctions-only."
	CaveatNoPEP         = "PEP screening is not offered: a politically exposed person who is not sanctioned is not flagged."
	CaveatSuspected     = "A cluster record with severity 'suspected' is a publicly reported lead, not a confirmed fraud."
	CaveatDecision      = "Outputs are decision support for a compliance professional, not a clearance and not legal advice."
	// CaveatUBOPartial qualifies every UBO result.
	CaveatUBOPartial = "Coverage is partial: no functioning US domestic beneficial-ownership registry exists after March 2025"
)

// ServiceCoverage returns the service-wide coverage statement.
func ServiceCoverage() Coverage {
	ids := make([]string, len(SanctionsLists))
	for i, l := range SanctionsLists {
		ids[i] = l.ID
	}
	return Coverage{
		SanctionsLists: ids,
		SanctionsOnly:  true,
		PEPScreening:   false,
		Caveats:        []string{CaveatSanctionsOnly, CaveatNoPEP, CaveatSuspected, CaveatDecision},
	}
}
