// Package ubo is the UBO screening surface: the beneficial-ownership graph
// of a root entity, every node screened against the 8 sanctions lists and
// the cluster blocklist, shell-company verdicts per entity and an aggregate
// risk with its reasons. A graph is built in the background (Builder) and
// kept per member for CacheTTL (Service).
//
// The package imports no driver: the ownership graph, the graph rows and
// the sanctions and cluster checks come through the interfaces below.
package ubo

import (
	"errors"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
)

// Statuses of a UBO graph.
const (
	StatusQueued = "queued"
	StatusReady  = "ready"
)

// Limits of a UBO screening request.
const (
	DefaultMaxHops = 3
	// MaxHops is the highest max_hops accepted: the ownership traversal's
	// bound.
	MaxHops = ownership.MaxMaxHops
	// CacheTTL is how long a built graph answers the same request.
	CacheTTL = 90 * 24 * time.Hour
	// MaxNameChars bounds root_entity_name.
	MaxNameChars = 300
)

// Node kinds. Nodes of other kinds from the ownership data are reported as
// they come.
const (
	KindCompany = "company"
	KindPerson  = "person"
	KindTrust   = "trust"
	KindVessel  = "vessel"
)

// Relations of an edge.
const (
	RelOwns     = "owns"
	RelControls = "controls"
)

// Node is one entity of a UBO graph as the API shows it.
type Node struct {
	ID           string     `json:"id"`
	Kind         string     `json:"kind"`
	Name         string     `json:"name"`
	Jurisdiction string     `json:"jurisdiction,omitempty"` // ISO 3166-1 alpha-2
	Address      string     `json:"address,omitempty"`
	Founded      *time.Time `json:"founded,omitempty"` // incorporation date, when known
	Nominee      bool       `json:"nominee,omitempty"` // the data marks it a nominee
	Hops         int        `json:"hops"`              // distance from the root (0 = root)
	// Effective ownership of the root held by this node, min..max percent,
	// when it owns the root through ownership edges (nil otherwise).
	EffectiveMin *float64 `json:"effective_pct_min,omitempty"`
	EffectiveMax *float64 `json:"effective_pct_max,omitempty"`
	// Sanctions is what screening found for this node.
	Sanctions NodeScreening `json:"sanctions"`
	// Blocklist is what the cluster blocklist check found for this node.
	Blocklist BlocklistResult `json:"blocklist"`
}

// Edge is one ownership or control relation: From owns or controls To.
type Edge struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Relation string   `json:"relation"` // owns | controls
	Pct      *float64 `json:"pct,omitempty"`
	PctMin   *float64 `json:"pct_min,omitempty"`
	PctMax   *float64 `json:"pct_max,omitempty"`
	Role     string   `json:"role,omitempty"` // controls: board_appointment, voting_rights, other_influence
	Source   string   `json:"source,omitempty"`
}

// NodeScreening is the sanctions screening of one node.
type NodeScreening struct {
	Screened bool   `json:"screened"`
	Matches  int    `json:"matches"`
	Reason   string `json:"reason,omitempty"` // why it was not screened
}

// BlocklistResult is the cluster blocklist check of one node.
type BlocklistResult struct {
	Status          string `json:"status"` // clear | hit | not_screened
	HighestSeverity string `json:"highest_severity,omitempty"`
	Reason          string `json:"reason,omitempty"`
}

// Blocklist statuses.
const (
	BlocklistClear       = "clear"
	BlocklistHit         = "hit"
	BlocklistNotScreened = "not_screened"
)

// SanctionsMatch is one listed party a node matched.
type SanctionsMatch struct {
	EntityID    string   `json:"entity_id"`
	EntityName  string   `json:"entity_name"`
	List        string   `json:"list"`
	SourceID    string   `json:"source_id"`
	ListedName  string   `json:"listed_name"`
	MatchedName string   `json:"matched_name"`
	Score       float64  `json:"score"`
	Programs    []string `json:"programs"`
}

// ClusterHit is one cluster-registry record a node matched.
type ClusterHit struct {
	EntityID   string `json:"entity_id"`
	EntityName string `json:"entity_name"`
	RecordID   string `json:"record_id"`
	Slug       string `json:"slug"`
	Name       string `json:"name"`
	Severity   string `json:"severity"`
}

// Owner is a beneficial owner or a control-only person of the root.
type Owner struct {
	EntityID string   `json:"entity_id"`
	Name     string   `json:"name"`
	PctMin   float64  `json:"pct_min"`
	PctMax   float64  `json:"pct_max"`
	Possible bool     `json:"possible,omitempty"` // a band straddles the threshold
	Roles    []string `json:"roles,omitempty"`    // control-only persons
}

// Graph is a UBO graph resource: queued until the worker builds it.
type Graph struct {
	GraphID          string    `json:"graph_id"`
	Status           string    `json:"status"`
	RootEntityName   string    `json:"root_entity_name"`
	RootJurisdiction string    `json:"root_jurisdiction"`
	MaxHops          int       `json:"max_hops"`
	RequestedAt      time.Time `json:"requested_at"`
	BuiltAt          *time.Time
	Cached           bool // answered from the cache
	// Result is nil while queued.
	Result *Result
}

// Result is what a build found.
type Result struct {
	// RootEntityID is the ownership-graph entity the root name resolved to,
	// "" when the root is not in the ownership data.
	RootEntityID string `json:"root_entity_id"`
	// RootFound is false when the root is not in the ownership data; the
	// graph is then empty and the risk is unknown.
	RootFound bool `json:"root_found"`
	// Candidates are the other entities the root name matched (ids), when
	// it matched more than one; the first match by jurisdiction was used.
	Candidates           []string           `json:"root_candidates"`
	Nodes                []Node             `json:"nodes"`
	Edges                []Edge             `json:"edges"`
	Truncated            bool               `json:"truncated"` // the traversal stopped at max_hops with owners beyond
	SanctionsMatches     []SanctionsMatch   `json:"sanctions_matches"`
	ClusterHits          []ClusterHit       `json:"cluster_hits"`
	BeneficialOwners     []Owner            `json:"beneficial_owners"`
	ControlOnly          []Owner            `json:"control_only_persons"`
	OFAC50               OFAC50             `json:"ofac_50"`
	ShellCompanyVerdicts map[string]Verdict `json:"shell_company_verdicts"`
	AggregateRisk        string             `json:"aggregate_risk"`
	RiskReasons          []string           `json:"risk_reasons"`
	SanctionsCoverage    string             `json:"sanctions_coverage"` // complete | partial | unavailable
	ListsMissing         []string           `json:"lists_missing"`
	BlocklistScreened    bool               `json:"blocklist_screened"`

	// buildFailed marks the result of a build that failed on its last
	// attempt (Failed); it is not serialized.
	buildFailed bool

	// exposure is the core's OFAC 50 percent answer the build computed
	// (per-node listings, confirmed or not, and evidence paths), kept for
	// KYCExposure; it is not serialized, so a cached result lacks it.
	exposure ownership.Exposure
}

// OFAC50 is the OFAC 50 percent rule status of the root.
type OFAC50 struct {
	Status   string   `json:"status"` // blocked | possibly_blocked | not_blocked | unknown
	Evidence []string `json:"evidence"`
}

// OFAC 50 statuses.
const (
	OFACBlocked         = "blocked"
	OFACPossiblyBlocked = "possibly_blocked"
	OFACNotBlocked      = "not_blocked"
	OFACUnknown         = "unknown"
)

// Coverage returns the coverage statement every UBO result carries: the
// service's (sanctions-only, no PEP, suspected = lead, decision support)
// with the partial-UBO caveat first.
func Coverage() graph.Coverage {
	c := graph.ServiceCoverage()
	c.Caveats = append([]string{graph.CaveatUBOPartial}, c.Caveats...)
	return c
}

// Cacheable reports whether r may answer later identical requests: the
// build succeeded and found the root. A failed build or a root not in the
// ownership data is rebuilt on the next request, so new data or a
// recovered dependency is seen. A nil result is not cacheable.
func (r *Result) Cacheable() bool {
	return r != nil && !r.buildFailed && r.RootFound
}

// Failed returns the result of a build that failed on its last attempt:
// nothing was assessed, the risk is unknown, and the reason says why in
// words safe to show (the message of a graph error, else a generic one).
func Failed(err error) *Result {
	why := "a dependency was unavailable"
	var ge *graph.Error
	if errors.As(err, &ge) && ge.Code != graph.CodeInternal && ge.Message != "" {
		why = ge.Message
	}
	return &Result{
		buildFailed: true,
		Candidates:  []string{}, Nodes: []Node{}, Edges: []Edge{}, SanctionsMatches: []SanctionsMatch{},
		ClusterHits: []ClusterHit{}, BeneficialOwners: []Owner{}, ControlOnly: []Owner{},
		OFAC50:               OFAC50{Status: OFACUnknown, Evidence: []string{}},
		ShellCompanyVerdicts: map[string]Verdict{},
		AggregateRisk:        RiskUnknown,
		RiskReasons:          []string{"the graph could not be built (" + why + "): nothing was screened or assessed; request it again later"},
		SanctionsCoverage:    "unavailable",
		ListsMissing:         []string{},
	}
}

// View is a graph as REST shows it: the resource's fields, the result's
// fields flattened in when ready, and the coverage statement always.
type View struct {
	GraphID          string     `json:"graph_id"`
	Status           string     `json:"status"`
	RootEntityName   string     `json:"root_entity_name"`
	RootJurisdiction *string    `json:"root_jurisdiction"`
	MaxHops          int        `json:"max_hops"`
	RequestedAt      time.Time  `json:"requested_at"`
	BuiltAt          *time.Time `json:"built_at"`
	Cached           bool       `json:"cached"`
	*Result
	Coverage graph.Coverage `json:"coverage"`
	Caveats  []string       `json:"caveats"`
}

// View returns g as REST shows it.
func (g Graph) View() View {
	c := Coverage()
	v := View{
		GraphID: g.GraphID, Status: g.Status, RootEntityName: g.RootEntityName, MaxHops: g.MaxHops,
		RequestedAt: g.RequestedAt.UTC(), BuiltAt: g.BuiltAt, Cached: g.Cached, Result: g.Result,
		Coverage: c, Caveats: c.Caveats,
	}
	if g.RootJurisdiction != "" {
		j := g.RootJurisdiction
		v.RootJurisdiction = &j
	}
	return v
}
