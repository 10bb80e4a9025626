package kyc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// SanctionsScreener screens one name against the 8 lists
// (*sanctions.Screener implements it).
type SanctionsScreener interface {
	Screen(q sanctions.Query) (sanctions.Screening, error)
}

// OwnershipLookup answers a company's exposure to sanctioned or blocked
// owners through its beneficial-ownership graph. The UBO surface
// implements it (ubo.KYCExposure); without one the ownership step reports
// unavailable.
type OwnershipLookup interface {
	// Exposure returns the exposure of the company named company in
	// country (ISO alpha-2, "" when unknown). It fails with unavailable
	// when the graph cannot be consulted.
	Exposure(ctx context.Context, company, country string) (OwnershipExposure, error)
}

// OFAC 50 percent rule states of an ownership exposure.
const (
	OFAC50Blocked         = "blocked"          // blocked persons own 50% or more in aggregate: the entity is blocked by operation of law
	OFAC50PossiblyBlocked = "possibly_blocked" // an unconfirmed (fuzzy) listing or a share band reaches 50% only at its maximum: review
	OFAC50BelowThreshold  = "below_threshold"  // listed or possibly listed owners (see ExposedOwner.Confirmed), below 50% in aggregate
	OFAC50Clear           = "no_blocked_owners"
	OFAC50NotAssessed     = "not_assessed" // not found, screening degraded, or the traversal truncated
)

// OwnershipExposure is the ownership step's evidence.
type OwnershipExposure struct {
	// Found is false when the graph holds no entity for the company: the
	// step is then not_screened, never pass.
	Found    bool   `json:"found"`
	EntityID string `json:"entity_id,omitempty"` // the matched graph entity
	// BlockedOwners are the sanctioned or blocked owners found, direct or
	// indirect.
	BlockedOwners []ExposedOwner `json:"blocked_owners"`
	// AggregateBlockedShare is the sum of the confirmed blocked owners'
	// minimum effective shares, 0 to 1 (capped at 1). The OFAC 50 percent
	// rule itself aggregates direct holdings level by level, so an entity
	// can be blocked with an aggregate below 0.5 (a listed owner of 60% of
	// a holding that owns 60%).
	AggregateBlockedShare float64  `json:"aggregate_blocked_share"`
	OFAC50Rule            string   `json:"ofac_50_rule"` // one of the OFAC50 states
	Evidence              []string `json:"evidence"`     // the rule's evidence lines, one per node that is not clear
	Coverage              string   `json:"coverage"`     // the lookup's own coverage caveat
}

// ExposedOwner is one sanctioned or blocked owner with the evidence of the
// path through which it owns the company.
type ExposedOwner struct {
	EntityID string   `json:"entity_id"`
	Name     string   `json:"name"`
	Lists    []string `json:"lists"`
	// Confirmed is true for a listing matched on the exact normalized name
	// or an identifier; false for a fuzzy match (a lead, possibly listed).
	Confirmed bool `json:"confirmed"`
	// EffectiveShare is the minimum effective ownership of the company, 0
	// to 1 (the product of the shares along each path, summed over paths);
	// 0 for a party that only controls.
	EffectiveShare float64  `json:"effective_share"`
	Path           []string `json:"path"` // entity names from the owner down to the company
}

// ClusterEvidence is what a cluster blocklist check found.
type ClusterEvidence struct {
	Name            string         `json:"name"`
	Matched         bool           `json:"matched"`
	HighestSeverity string         `json:"highest_severity"`
	Matches         []ClusterMatch `json:"matches"`
	Unavailable     string         `json:"unavailable,omitempty"` // why the registry could not be consulted
	// ClaimedCountry is the country the company claims (ISO alpha-2), empty
	// when none was given or for a director. The check itself covers records
	// of every country; a confirmed match in another country is reported as
	// same name, other jurisdiction (review) rather than dropped.
	ClaimedCountry string `json:"claimed_country,omitempty"`
}

// ClusterMatch is one matching registry record.
type ClusterMatch struct {
	ID         string `json:"id"`
	Slug       string `json:"slug"`
	EntityName string `json:"entity_name"`
	Severity   string `json:"severity"`
	Country    string `json:"country"`
	Group      string `json:"group"`
	// OtherJurisdiction is true when the record has a country and it differs
	// from the claimed country: same name, other jurisdiction.
	OtherJurisdiction bool `json:"other_jurisdiction"`
}

// SanctionsEvidence is what a sanctions screening of one name found.
type SanctionsEvidence struct {
	Name          string        `json:"name"`
	Coverage      string        `json:"coverage"` // complete, partial or unavailable
	Degraded      bool          `json:"degraded"`
	ListsScreened []string      `json:"lists_screened"`
	ListsMissing  []string      `json:"lists_missing"`
	StaleHours    *int          `json:"stale_hours"`
	Threshold     float64       `json:"threshold"`
	Hits          []SanctionHit `json:"hits"`
	Unavailable   string        `json:"unavailable,omitempty"`
}

// SanctionHit is one listed entry scoring at or above the threshold.
type SanctionHit struct {
	List        string   `json:"list"`
	SourceID    string   `json:"source_id"`
	ListedName  string   `json:"listed_name"`
	MatchedName string   `json:"matched_name"`
	Kind        string   `json:"kind"`
	Programs    []string `json:"programs"`
	Score       float64  `json:"score"`
}

// DirectorEvidence is the directors step's finding for one director.
type DirectorEvidence struct {
	Name      string            `json:"name"`
	Status    Status            `json:"status"`
	Cluster   ClusterEvidence   `json:"cluster"`
	Sanctions SanctionsEvidence `json:"sanctions"`
}

// VerdictEvidence is the verdict step's evidence: the verdict and each
// reason behind it.
type VerdictEvidence struct {
	Verdict   Verdict  `json:"verdict"`
	Reasoning string   `json:"reasoning"`
	Reasons   []Reason `json:"reasons"`
	// Coverage is the run's coverage statement (sanctions-only, no PEP,
	// partial UBO coverage, adverse media unmeasured), set by Final so that
	// the final event carries it to subscribers, who get no run object
	// (the GraphQL subscription).
	Coverage *graph.Coverage `json:"coverage,omitempty"`
}

// Reason is one step's contribution to a verdict.
type Reason struct {
	Step   Step    `json:"step"`
	Status Status  `json:"status"`
	Effect Verdict `json:"effect"` // the verdict this reason alone calls for
	Text   string  `json:"text"`
}

// outcome is a step's result before it is logged.
type outcome struct {
	status   Status
	summary  string
	evidence any
}

// checkCluster checks name against the registry records of every country;
// claimed (possibly empty) only marks matches in another jurisdiction. A
// registry that cannot be consulted is reported in Unavailable.
func (e *Engine) checkCluster(ctx context.Context, name, claimed string) ClusterEvidence {
	ev := ClusterEvidence{Name: name, Matches: []ClusterMatch{}, ClaimedCountry: claimed}
	if e.Clusters == nil {
		ev.Unavailable = "the cluster registry is not configured on this server"
		return ev
	}
	res, err := e.Clusters.Check(ctx, name, "")
	if err != nil {
		ev.Unavailable = "the cluster registry could not be consulted: " + graph.AsError(err).Message
		return ev
	}
	ev.Matched, ev.HighestSeverity = res.Matched, string(res.HighestSeverity)
	for _, m := range res.Matches {
		other := claimed != "" && m.Country != "" && m.Country != claimed
		ev.Matches = append(ev.Matches, ClusterMatch{ID: m.ID, Slug: m.Slug, EntityName: m.EntityName, Severity: string(m.Severity), Country: m.Country, Group: m.Group, OtherJurisdiction: other})
	}
	return ev
}

// clusterStatus maps a cluster check to a step status: a confirmed record
// in the claimed country (or with no country) fails, a confirmed record only
// in another jurisdiction, likely and suspected call for review, unavailable
// is unavailable.
func clusterStatus(ev ClusterEvidence) (Status, string) {
	switch {
	case ev.Unavailable != "":
		return StatusUnavailable, "cluster blocklist unavailable: " + ev.Unavailable
	case !ev.Matched:
		return StatusPass, fmt.Sprintf("no cluster blocklist record matches %q (exact normalized name and aliases)", ev.Name)
	}
	names := make([]string, 0, len(ev.Matches))
	for _, m := range ev.Matches {
		names = append(names, fmt.Sprintf("%s (%s)", m.EntityName, m.Severity))
	}
	list := strings.Join(names, ", ")
	switch cluster.Severity(ev.HighestSeverity) {
	case cluster.Confirmed:
		var elsewhere []string
		for _, m := range ev.Matches {
			if cluster.Severity(m.Severity) != cluster.Confirmed {
				continue
			}
			if !m.OtherJurisdiction {
				return StatusFail, fmt.Sprintf("%q matches a confirmed scam-cluster record: %s", ev.Name, list)
			}
			elsewhere = append(elsewhere, m.Country)
		}
		return StatusReview, fmt.Sprintf("%q matches a confirmed scam-cluster record of the same name in another jurisdiction (%s, claimed %s); review whether it is the same entity: %s",
			ev.Name, strings.Join(elsewhere, ", "), ev.ClaimedCountry, list)
	case cluster.Suspected:
		return StatusReview, fmt.Sprintf("%q matches a suspected scam-cluster record (a publicly reported lead, not a confirmed fraud): %s", ev.Name, list)
	}
	return StatusReview, fmt.Sprintf("%q matches a scam-cluster record rated %s: %s", ev.Name, ev.HighestSeverity, list)
}

func (e *Engine) clusterStep(ctx context.Context, in Input) outcome {
	ev := e.checkCluster(ctx, in.CompanyName, in.Country)
	st, sum := clusterStatus(ev)
	return outcome{st, sum, ev}
}

func (e *Engine) tradabilityStep(in Input) outcome {
	if in.Country == "" || in.Product == "" {
		missing := "country"
		if in.Country != "" {
			missing = "product"
		} else if in.Product == "" {
			missing = "country and product"
		}
		return outcome{StatusNotChecked, "tradability not assessed: " + missing + " not given", nil}
	}
	if e.Matrix == nil {
		return outcome{StatusUnavailable, "tradability unavailable: the regulatory matrix is not loaded", nil}
	}
	t, err := e.Matrix.Check(in.Country, in.Product, "")
	if err != nil {
		return outcome{StatusUnavailable, "tradability unavailable: " + graph.AsError(err).Message, nil}
	}
	switch t.Status {
	case regulatory.Blocked:
		return outcome{StatusFail, fmt.Sprintf("%s (%s) is blocked for %s: %s", t.Country, t.Direction, t.Category, t.Notes), t}
	case regulatory.Restricted:
		return outcome{StatusReview, fmt.Sprintf("%s (%s) is restricted for %s: %s", t.Country, t.Direction, t.Category, t.Notes), t}
	}
	return outcome{StatusPass, fmt.Sprintf("%s (%s) is allowed for %s (matrix %s)", t.Country, t.Direction, t.Category, t.Version), t}
}

func (e *Engine) screenName(name, country string, kind sanctions.Kind) SanctionsEvidence {
	ev := SanctionsEvidence{Name: name, Hits: []SanctionHit{}, ListsScreened: []string{}, ListsMissing: []string{}}
	if e.Sanctions == nil {
		ev.Coverage, ev.Degraded, ev.Unavailable = "unavailable", true, "the sanctions screener is not configured on this server"
		return ev
	}
	res, err := e.Sanctions.Screen(sanctions.Query{Name: name, Country: country, Kind: kind, Limit: 20})
	if err != nil {
		ev.Coverage, ev.Degraded, ev.Unavailable = "unavailable", true, graph.AsError(err).Message
		return ev
	}
	ev.Coverage, ev.Degraded, ev.ListsScreened, ev.ListsMissing = res.Coverage, res.Degraded, res.ListsScreened, res.ListsMissing
	ev.StaleHours, ev.Threshold = res.StaleHours, res.Threshold
	for _, m := range res.Matches {
		ev.Hits = append(ev.Hits, SanctionHit{
			List: m.Entry.List, SourceID: m.Entry.SourceID, ListedName: m.Entry.Name, MatchedName: m.Explanation.MatchedName,
			Kind: string(m.Entry.Kind), Programs: nonNil(m.Entry.Programs), Score: m.Score,
		})
	}
	return ev
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sanctionsStatus maps a screening to a step status: a hit calls for
// review, a degraded lookup is degraded (never pass).
func sanctionsStatus(ev SanctionsEvidence) (Status, string) {
	switch {
	case len(ev.Hits) > 0:
		top := ev.Hits[0]
		return StatusReview, fmt.Sprintf("%d potential sanctions match(es) for %q at threshold %.2f; best: %s %s %q (score %.2f)",
			len(ev.Hits), ev.Name, ev.Threshold, top.List, top.SourceID, top.ListedName, top.Score)
	case ev.Coverage == "unavailable":
		msg := "sanctions lookup unavailable: no list could be screened"
		if ev.Unavailable != "" {
			msg = "sanctions lookup unavailable: " + ev.Unavailable
		}
		return StatusUnavailable, msg
	case ev.Degraded:
		return StatusDegraded, fmt.Sprintf("sanctions lookup degraded: no match for %q on %d lists, but %s not screened (no snapshot)",
			ev.Name, len(ev.ListsScreened), strings.Join(ev.ListsMissing, ", "))
	}
	sum := fmt.Sprintf("no match for %q on the %d lists at threshold %.2f", ev.Name, len(ev.ListsScreened), ev.Threshold)
	if ev.StaleHours != nil {
		sum += fmt.Sprintf(" (oldest snapshot %d hours old)", *ev.StaleHours)
	}
	return StatusPass, sum
}

func (e *Engine) sanctionsStep(in Input) outcome {
	ev := e.screenName(in.CompanyName, in.Country, "")
	st, sum := sanctionsStatus(ev)
	return outcome{st, sum, ev}
}

// directorsStep cross-checks each director against the cluster blocklist
// and the sanctions lists. The step's status is the worst of theirs.
func (e *Engine) directorsStep(ctx context.Context, in Input) outcome {
	if len(in.Directors) == 0 {
		return outcome{StatusNotChecked, "no directors given", []DirectorEvidence{}}
	}
	evs := make([]DirectorEvidence, 0, len(in.Directors))
	worst := StatusPass
	var notes []string
	for _, d := range in.Directors {
		de := DirectorEvidence{Name: d, Cluster: e.checkCluster(ctx, d, ""), Sanctions: e.screenName(d, "", sanctions.Person)}
		cst, csum := clusterStatus(de.Cluster)
		if cst == StatusFail { // a person's name matching a confirmed record is a lead, not a confirmation of identity
			cst = StatusReview
		}
		sst, ssum := sanctionsStatus(de.Sanctions)
		de.Status = worse(cst, sst)
		if cst != StatusPass {
			notes = append(notes, csum)
		}
		if sst != StatusPass {
			notes = append(notes, ssum)
		}
		worst = worse(worst, de.Status)
		evs = append(evs, de)
	}
	if worst == StatusPass {
		return outcome{StatusPass, fmt.Sprintf("%d director(s): no cluster blocklist record and no sanctions match", len(evs)), evs}
	}
	return outcome{worst, fmt.Sprintf("%d director(s): %s", len(evs), strings.Join(notes, "; ")), evs}
}

// severity orders statuses from best to worst for combining.
func severity(s Status) int {
	switch s {
	case StatusPass, StatusNotChecked:
		return 0
	case StatusUnmeasured, StatusNotScreened:
		return 1
	case StatusDegraded:
		return 2
	case StatusUnavailable:
		return 3
	case StatusReview:
		return 4
	case StatusFail:
		return 5
	}
	return 3
}

func worse(a, b Status) Status {
	if severity(b) > severity(a) {
		return b
	}
	return a
}

func (e *Engine) ownershipStep(ctx context.Context, in Input) outcome {
	if e.Ownership == nil {
		return outcome{StatusUnavailable, "ownership exposure unavailable: the beneficial-ownership graph is not wired on this server", nil}
	}
	x, err := e.Ownership.Exposure(ctx, in.CompanyName, in.Country)
	if err != nil {
		return outcome{StatusUnavailable, "ownership exposure unavailable: " + graph.AsError(err).Message, nil}
	}
	if x.BlockedOwners == nil {
		x.BlockedOwners = []ExposedOwner{}
	}
	if x.Evidence == nil {
		x.Evidence = []string{}
	}
	switch {
	case !x.Found:
		return outcome{StatusNotScreened, fmt.Sprintf("ownership not screened: the ownership graph holds no entity for %q", in.CompanyName), x}
	case x.OFAC50Rule == OFAC50Blocked && len(x.BlockedOwners) == 0:
		return outcome{StatusFail, "the company itself is listed: blocked under the OFAC 50 percent rule", x}
	case x.OFAC50Rule == OFAC50Blocked:
		return outcome{StatusFail, fmt.Sprintf("blocked under the OFAC 50 percent rule: %d sanctioned or blocked owner(s), %.1f%% effective ownership in aggregate", len(x.BlockedOwners), 100*x.AggregateBlockedShare), x}
	case x.OFAC50Rule == OFAC50PossiblyBlocked:
		return outcome{StatusReview, "possibly blocked under the OFAC 50 percent rule (an unconfirmed listing, or blocked holdings reach 50% only at the top of a share band): " + strings.Join(x.Evidence, "; "), x}
	case len(x.BlockedOwners) > 0:
		return outcome{StatusReview, fmt.Sprintf("%d sanctioned or blocked owner(s) hold %.1f%% in aggregate (below 50%%)", len(x.BlockedOwners), 100*x.AggregateBlockedShare), x}
	case x.OFAC50Rule == OFAC50Clear:
		return outcome{StatusPass, "no sanctioned or blocked owner found in the ownership graph (coverage is partial)", x}
	}
	return outcome{StatusDegraded, "ownership found but the OFAC 50 percent rule could not be assessed: " + strings.Join(x.Evidence, "; "), x}
}

func adverseMediaStep() outcome {
	return outcome{StatusUnmeasured, CaveatAdverseMedia, map[string]any{"findings": []any{}, "caveat": CaveatAdverseMedia}}
}

// marshal returns the evidence as JSON, null for nil.
func marshal(v any) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// unmarshal decodes logged evidence into v, reporting whether it could.
func unmarshal(raw json.RawMessage, v any) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}
