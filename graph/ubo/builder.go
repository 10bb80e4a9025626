package ubo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// OwnershipStore is the ownership graph a build reads (graphdb.DB is one).
type OwnershipStore interface {
	// EntitiesByName returns up to limit entities whose normalized name is
	// name's, ordered by id.
	EntitiesByName(ctx context.Context, name string, limit int) ([]ownership.Node, error)
	// Neighbours returns each id's direct owners and controllers
	// (upstream) or what it owns and controls (downstream), with edges, in
	// one batched read; a build walks the root's owners level by level
	// with it (WalkMany).
	Neighbours(ctx context.Context, ids []string, upstream bool) (map[string][]Link, error)
}

// Builder builds UBO graphs: it resolves the root in the ownership graph,
// traverses its owners, screens every node against the sanctions lists and
// the cluster blocklist, computes effective ownership and the OFAC 50%
// status (graph/ownership), shell-company verdicts and the aggregate risk.
type Builder struct {
	Ownership OwnershipStore
	Screener  *sanctions.Screener // nil: sanctions screening unavailable
	Checker   cluster.Checker     // nil: the blocklist is not screened
	// Threshold is the sanctions match threshold; 0 means the screener's
	// default.
	Threshold float64
	// BOThreshold is the beneficial-ownership threshold in percent; 0
	// means ownership.DefaultThreshold (25).
	BOThreshold float64
	Now         func() time.Time // nil: time.Now
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
	all, err := b.Ownership.EntitiesByName(ctx, req.RootEntityName, maxRootCandidates)
	if err != nil {
		return nil, err
	}
	// The jurisdiction's entities first; with a jurisdiction given, an
	// entity of another known jurisdiction is not the root.
	var cands []ownership.Node
	for _, n := range all {
		if req.RootJurisdiction == "" || strings.EqualFold(n.Jurisdiction, req.RootJurisdiction) {
			cands = append(cands, n)
		}
	}
	if req.RootJurisdiction != "" {
		for _, n := range all {
			if n.Jurisdiction == "" {
				cands = append(cands, n)
			}
		}
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
	subs, err := WalkMany(ctx, b.Ownership, map[string]ownership.Node{root.ID: root}, req.MaxHops, true)
	if err != nil {
		return nil, err
	}
	sub := subs[root.ID]
	res.Nodes, res.Edges, res.Truncated = viewNodes(sub.Nodes), viewEdges(sub.Edges), sub.Truncated
	setHops(res.Nodes, res.Edges, root.ID)

	if err := b.screen(ctx, res); err != nil {
		return nil, err
	}
	b.assess(res, sub, root.ID)
	res.ShellCompanyVerdicts = Shell(res.Nodes, res.Edges, sub.Frontier, now)
	res.AggregateRisk, res.RiskReasons = Aggregate(res)
	return res, nil
}

// assess computes effective ownership and beneficial owners
// (ownership.Compute) and the OFAC 50% status (ownership.Screen, with the
// node screening as its predicate).
func (b *Builder) assess(res *Result, sub ownership.Subgraph, root string) {
	cr := ownership.Compute(sub, root, ownership.Options{Threshold: b.BOThreshold})
	res.Truncated = res.Truncated || cr.Truncated
	eff := map[string]ownership.Share{}
	for _, o := range cr.Owners {
		eff[o.Node.ID] = o.Share
	}
	for _, o := range cr.Unidentified {
		eff[o.Node.ID] = o.Share
	}
	for i := range res.Nodes {
		if s, ok := eff[res.Nodes[i].ID]; ok {
			lo, hi := s.Min, s.Max
			res.Nodes[i].EffectiveMin, res.Nodes[i].EffectiveMax = &lo, &hi
		}
	}
	for _, o := range cr.BeneficialOwners {
		res.BeneficialOwners = append(res.BeneficialOwners, Owner{
			EntityID: o.Node.ID, Name: o.Node.Name, PctMin: o.Share.Min, PctMax: o.Share.Max,
			Possible: o.Status == ownership.StatusPossible,
		})
	}
	for _, c := range cr.ControlOnly {
		res.ControlOnly = append(res.ControlOnly, Owner{EntityID: c.Node.ID, Name: c.Node.Name, Roles: c.Means})
	}

	// The OFAC 50% status uses the core's sanctions predicate over the
	// same screener: listed for certain on an exact normalized name or an
	// identifier, possibly listed on a fuzzy match. Nodes the screening
	// could not cover make the answer degraded.
	notScreened := map[string]bool{}
	for _, n := range res.Nodes {
		if !n.Sanctions.Screened {
			notScreened[n.ID] = true
		}
	}
	var listed ownership.Predicate
	if b.Screener != nil {
		listed = ownership.ScreenerPredicate(b.Screener)
	}
	ex := ownership.Screen(sub, root, func(n ownership.Node) (ownership.Check, error) {
		if listed == nil || notScreened[n.ID] {
			return ownership.Check{}, errNotScreened
		}
		return listed(n)
	})
	res.exposure = ex
	res.OFAC50 = OFAC50{Status: ex.Status, Evidence: []string{}}
	if ex.Degraded && ex.Status == ownership.NotBlocked {
		res.OFAC50.Status = OFACUnknown
		res.OFAC50.Evidence = append(res.OFAC50.Evidence, "not every node could be screened against every list: not blocked cannot be stated")
	}
	names := map[string]string{}
	for _, n := range res.Nodes {
		names[n.ID] = n.Name
	}
	for _, ne := range ex.Nodes {
		line := fmt.Sprintf("%s is %s", ne.Node.Name, strings.ReplaceAll(ne.Status, "_", " "))
		if len(ne.Listings) > 0 {
			line += " (listed: " + ne.Listings[0].List + " " + ne.Listings[0].Name + ")"
		}
		if len(ne.Holdings) > 0 {
			var hs []string
			for _, h := range ne.Holdings {
				hs = append(hs, fmt.Sprintf("%s holds %s", names[h.Owner], h.Hop.Share))
			}
			line += fmt.Sprintf("; blocked owners hold %s directly: %s", ne.BlockedShare, strings.Join(hs, ", "))
		}
		res.OFAC50.Evidence = append(res.OFAC50.Evidence, line)
	}
	for _, id := range ex.ControlOnly {
		res.OFAC50.Evidence = append(res.OFAC50.Evidence, names[id]+" is listed but only controls (control does not block under the 50% rule)")
	}
}

var errNotScreened = errors.New("not screened")

// viewNodes returns the ownership nodes as the API shows them.
func viewNodes(ns []ownership.Node) []Node {
	out := make([]Node, len(ns))
	for i, n := range ns {
		out[i] = Node{ID: n.ID, Kind: string(n.Kind), Name: n.Name, Jurisdiction: n.Jurisdiction, Address: n.Address,
			Founded: foundedOn(n.FoundedOn), Nominee: n.Nominee}
	}
	return out
}

// foundedOn parses YYYY, YYYY-MM or YYYY-MM-DD as the first day of the
// period, or nil: a partial date counts as recent only when its whole
// period is.
func foundedOn(s string) *time.Time {
	for _, layout := range []string{time.DateOnly, "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t
		}
	}
	return nil
}

// viewEdges returns the ownership edges as the API shows them.
func viewEdges(es []ownership.Edge) []Edge {
	out := make([]Edge, len(es))
	for i, e := range es {
		rel := RelOwns
		if e.Relation == ownership.Controls {
			rel = RelControls
		}
		out[i] = Edge{From: e.From, To: e.To, Relation: rel, Pct: e.Pct, PctMin: e.PctMin, PctMax: e.PctMax, Role: string(e.Role), Source: e.Source}
	}
	return out
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
// fails when the blocklist cannot be read.
func (b *Builder) screen(ctx context.Context, res *Result) error {
	res.SanctionsCoverage, res.BlocklistScreened = b.coverage(res)
	for i := range res.Nodes {
		n := &res.Nodes[i]
		if err := ctx.Err(); err != nil {
			return err
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
			return err
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
	return nil
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
