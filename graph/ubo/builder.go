package ubo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// Ownership is the ownership graph a build reads.
type Ownership interface {
	// FindRoot returns the entities named name (normalized, exact), those
	// of jurisdiction first when it is not "", at most limit. None is not
	// an error.
	FindRoot(ctx context.Context, name, jurisdiction string, limit int) ([]Node, error)
	// Upstream returns the owners and controllers of root up to maxHops,
	// root included, and whether owners exist beyond maxHops.
	Upstream(ctx context.Context, root string, maxHops int) (nodes []Node, edges []Edge, truncated bool, err error)
}

// Assessment is what the effective-ownership engine says about a root.
type Assessment struct {
	// Effective is each owner's effective ownership of the root, min..max
	// percent, by entity id.
	Effective        map[string][2]float64
	BeneficialOwners []Owner
	ControlOnly      []Owner
	OFAC50           OFAC50
}

// Assessor computes effective ownership, beneficial owners and the OFAC
// 50% status of root over its upstream graph, given the nodes that are
// blocked (matched a sanctions list), with evidence per node.
type Assessor func(nodes []Node, edges []Edge, root string, blocked map[string]string) Assessment

// Builder builds UBO graphs: it resolves the root in the ownership graph,
// traverses its owners, screens every node against the sanctions lists and
// the cluster blocklist, and assesses ownership, shell signals and risk.
type Builder struct {
	Ownership Ownership
	Screener  *sanctions.Screener // nil: sanctions screening unavailable
	Checker   cluster.Checker     // nil: the blocklist is not screened
	Assess    Assessor            // nil: no effective ownership, OFAC 50% unknown
	// Threshold is the sanctions match threshold; 0 means the screener's
	// default.
	Threshold float64
	Now       func() time.Time // nil: time.Now
}

// maxRootCandidates bounds the entities a root name may resolve to.
const maxRootCandidates = 10

// Build implements the job's build. It fails (and the job is retried) only
// when the ownership graph or the blocklist cannot be read; a root not in
// the ownership data is a ready result with risk unknown.
func (b *Builder) Build(ctx context.Context, req Request) (*Result, error) {
	now := time.Now().UTC()
	if b.Now != nil {
		now = b.Now().UTC()
	}
	res := &Result{
		Candidates: []string{}, Nodes: []Node{}, Edges: []Edge{}, SanctionsMatches: []SanctionsMatch{},
		ClusterHits: []ClusterHit{}, BeneficialOwners: []Owner{}, ControlOnly: []Owner{},
		OFAC50:               OFAC50{Status: OFACUnknown, Evidence: []string{}},
		ShellCompanyVerdicts: map[string]Verdict{}, ListsMissing: []string{},
	}
	cands, err := b.Ownership.FindRoot(ctx, req.RootEntityName, req.RootJurisdiction, maxRootCandidates)
	if err != nil {
		return nil, err
	}
	if req.RootJurisdiction != "" {
		cands = slices.DeleteFunc(cands, func(n Node) bool {
			return n.Jurisdiction != "" && !strings.EqualFold(n.Jurisdiction, req.RootJurisdiction)
		})
	}
	if len(cands) == 0 {
		res.SanctionsCoverage, res.BlocklistScreened = b.coverage(res)
		res.AggregateRisk, res.RiskReasons = Aggregate(res)
		return res, nil
	}
	root := cands[0]
	for _, c := range cands[1:] {
		res.Candidates = append(res.Candidates, c.ID)
	}
	res.RootFound, res.RootEntityID = true, root.ID
	nodes, edges, truncated, err := b.Ownership.Upstream(ctx, root.ID, req.MaxHops)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(nodes, func(n Node) bool { return n.ID == root.ID }) {
		nodes = append([]Node{root}, nodes...)
	}
	setHops(nodes, edges, root.ID)
	res.Nodes, res.Edges, res.Truncated = nodes, edges, truncated
	if res.Edges == nil {
		res.Edges = []Edge{}
	}

	blocked, err := b.screen(ctx, res)
	if err != nil {
		return nil, err
	}
	if b.Assess != nil {
		a := b.Assess(res.Nodes, res.Edges, root.ID, blocked)
		for i := range res.Nodes {
			if e, ok := a.Effective[res.Nodes[i].ID]; ok && res.Nodes[i].ID != root.ID {
				lo, hi := e[0], e[1]
				res.Nodes[i].EffectiveMin, res.Nodes[i].EffectiveMax = &lo, &hi
			}
		}
		res.BeneficialOwners, res.ControlOnly, res.OFAC50 = nonNilOwners(a.BeneficialOwners), nonNilOwners(a.ControlOnly), a.OFAC50
		if res.OFAC50.Evidence == nil {
			res.OFAC50.Evidence = []string{}
		}
	}
	res.ShellCompanyVerdicts = Shell(res.Nodes, res.Edges, now)
	res.AggregateRisk, res.RiskReasons = Aggregate(res)
	return res, nil
}

func nonNilOwners(o []Owner) []Owner {
	if o == nil {
		return []Owner{}
	}
	return o
}

// coverage reports what screening can cover before any node is screened.
func (b *Builder) coverage(res *Result) (string, bool) {
	if b.Screener == nil {
		res.ListsMissing = listIDs()
		return "unavailable", b.Checker != nil
	}
	var missing []string
	for _, l := range b.Screener.Lists() {
		if !l.Loaded {
			missing = append(missing, l.ID)
		}
	}
	res.ListsMissing = append([]string{}, missing...)
	switch {
	case len(missing) == len(graph.SanctionsLists):
		return "unavailable", b.Checker != nil
	case len(missing) > 0:
		return "partial", b.Checker != nil
	}
	return "complete", b.Checker != nil
}

func listIDs() []string {
	ids := make([]string, len(graph.SanctionsLists))
	for i, l := range graph.SanctionsLists {
		ids[i] = l.ID
	}
	return ids
}

// screen screens every node against the sanctions lists and the cluster
// blocklist, filling the result's matches, hits and per-node statuses. It
// returns the nodes that matched a list, with the match as evidence.
func (b *Builder) screen(ctx context.Context, res *Result) (map[string]string, error) {
	res.SanctionsCoverage, res.BlocklistScreened = b.coverage(res)
	blocked := map[string]string{}
	for i := range res.Nodes {
		n := &res.Nodes[i]
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Sanctions.
		switch {
		case b.Screener == nil || res.SanctionsCoverage == "unavailable":
			n.Sanctions = NodeScreening{Reason: "no sanctions list is loaded"}
		default:
			sc, err := b.Screener.Screen(sanctions.Query{Name: n.Name, Country: strings.ToUpper(n.Jurisdiction), Kind: sanctionsKind(n.Kind), Threshold: b.Threshold})
			if err != nil {
				n.Sanctions = NodeScreening{Reason: "the name cannot be screened: " + graphMessage(err)}
				break
			}
			n.Sanctions = NodeScreening{Screened: true, Matches: len(sc.Matches)}
			for _, m := range sc.Matches {
				res.SanctionsMatches = append(res.SanctionsMatches, SanctionsMatch{
					EntityID: n.ID, EntityName: n.Name, List: m.Entry.List, SourceID: m.Entry.SourceID,
					ListedName: m.Entry.Name, MatchedName: m.Explanation.MatchedName, Score: m.Score,
					Programs: nonNilStrings(m.Entry.Programs),
				})
				if _, ok := blocked[n.ID]; !ok {
					blocked[n.ID] = fmt.Sprintf("%s matches %s %s %q (score %.2f)", n.Name, m.Entry.List, m.Entry.SourceID, m.Entry.Name, m.Score)
				}
			}
		}
		// Cluster blocklist.
		if b.Checker == nil {
			n.Blocklist = BlocklistResult{Status: BlocklistNotScreened, Reason: "the cluster registry is not available"}
			continue
		}
		cr, err := b.Checker.Check(ctx, n.Name, "")
		if graph.ErrorCode(err) == graph.CodeInvalid {
			n.Blocklist = BlocklistResult{Status: BlocklistNotScreened, Reason: "the name cannot be checked: " + graphMessage(err)}
			continue
		}
		if err != nil {
			return nil, err
		}
		if !cr.Matched {
			n.Blocklist = BlocklistResult{Status: BlocklistClear}
			continue
		}
		n.Blocklist = BlocklistResult{Status: BlocklistHit, HighestSeverity: string(cr.HighestSeverity)}
		for _, rec := range cr.Matches {
			res.ClusterHits = append(res.ClusterHits, ClusterHit{
				EntityID: n.ID, EntityName: n.Name, RecordID: rec.ID, Slug: rec.Slug, Name: rec.EntityName, Severity: string(rec.Severity),
			})
		}
	}
	return blocked, nil
}

func graphMessage(err error) string {
	if e, ok := err.(*graph.Error); ok && e.Code != graph.CodeInternal {
		return e.Message
	}
	return "internal error"
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sanctionsKind(kind string) sanctions.Kind {
	switch kind {
	case KindPerson:
		return sanctions.Person
	case KindVessel:
		return sanctions.Vessel
	case KindCompany, KindTrust:
		return sanctions.Entity
	}
	return ""
}

// setHops sets each node's distance from root along edges taken upwards
// (owner or controller of). Nodes not reached keep -1.
func setHops(nodes []Node, edges []Edge, root string) {
	up := map[string][]string{}
	for _, e := range edges {
		up[e.To] = append(up[e.To], e.From)
	}
	dist := map[string]int{root: 0}
	frontier := []string{root}
	for len(frontier) > 0 {
		var next []string
		for _, id := range frontier {
			for _, o := range up[id] {
				if _, ok := dist[o]; !ok {
					dist[o] = dist[id] + 1
					next = append(next, o)
				}
			}
		}
		frontier = next
	}
	for i := range nodes {
		if d, ok := dist[nodes[i].ID]; ok {
			nodes[i].Hops = d
		} else {
			nodes[i].Hops = -1
		}
	}
}
