package resolvers

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/resolvers/generated"
	"github.com/tradecompliance/compliance/resolvers/model"
)

// The UBO surface: uboScreen and uboGraph answer as the REST routes do;
// the OwnershipEntity fields walk the ownership graph through per-request
// dataloaders, so each level of a nested query is one batched read.

// loaderWait is how long a loader collects keys before fetching: gqlgen
// starts the fields of a list's items on their own goroutines at once, so
// a few milliseconds gather a whole level.
const loaderWait = 5 * time.Millisecond

// beneficialHops is how far beneficialOwners and controllers walk upwards.
const beneficialHops = ownership.MaxMaxHops

type subKey struct {
	root     string
	hops     int
	upstream bool
}

// uboLoaders are one request's dataloaders.
type uboLoaders struct {
	entities  *batcher[string, ownership.Node]
	subgraphs *batcher[subKey, ownership.Subgraph]

	mu    sync.Mutex
	nodes map[string]ownership.Node // the nodes subgraphs start from
}

type loadersKey struct{}

// withUBOLoaders returns ctx carrying fresh loaders over r.Ownership.
func (r *Resolver) withUBOLoaders(ctx context.Context) context.Context {
	if r.Ownership == nil {
		return ctx
	}
	l := &uboLoaders{nodes: map[string]ownership.Node{}}
	l.entities = newBatcher(loaderWait, 500, func(ctx context.Context, ids []string) (map[string]ownership.Node, error) {
		return r.Ownership.EntitiesIn(ctx, ids)
	})
	l.subgraphs = newBatcher(loaderWait, 500, func(ctx context.Context, keys []subKey) (map[subKey]ownership.Subgraph, error) {
		type group struct {
			hops     int
			upstream bool
		}
		groups := map[group]map[string]ownership.Node{}
		l.mu.Lock()
		for _, k := range keys {
			g := group{k.hops, k.upstream}
			if groups[g] == nil {
				groups[g] = map[string]ownership.Node{}
			}
			groups[g][k.root] = l.nodes[k.root]
		}
		l.mu.Unlock()
		out := map[subKey]ownership.Subgraph{}
		for _, g := range slices.SortedFunc(maps.Keys(groups), func(a, b group) int { return a.hops - b.hops }) {
			subs, err := ubo.WalkMany(ctx, r.Ownership, groups[g], g.hops, g.upstream)
			if err != nil {
				return nil, err
			}
			for root, s := range subs {
				out[subKey{root, g.hops, g.upstream}] = s
			}
		}
		return out, nil
	})
	return context.WithValue(ctx, loadersKey{}, l)
}

func loadersFrom(ctx context.Context) (*uboLoaders, error) {
	l, _ := ctx.Value(loadersKey{}).(*uboLoaders)
	if l == nil {
		return nil, graph.Errorf(graph.CodeUnavailable, "the ownership graph is not configured")
	}
	return l, nil
}

// subgraph returns n's subgraph through the request's loader.
func subgraph(ctx context.Context, n ownership.Node, hops int, upstream bool) (ownership.Subgraph, error) {
	l, err := loadersFrom(ctx)
	if err != nil {
		return ownership.Subgraph{}, err
	}
	l.mu.Lock()
	l.nodes[n.ID] = n
	l.mu.Unlock()
	s, _, err := l.subgraphs.Load(ctx, subKey{n.ID, hops, upstream})
	return s, err
}

// requireUBO returns the caller when it uses a production key with the ubo
// scope, as the REST routes require.
func requireUBO(ctx context.Context) (*graph.Caller, error) {
	if _, err := graph.RequireProduction(ctx); err != nil {
		return nil, err
	}
	return graph.RequireScope(ctx, ubo.Scope)
}

// checkHops returns maxHops, or an invalid error naming it when it is
// outside 1..ownership.MaxMaxHops: an unbounded traversal is refused.
func checkHops(maxHops *int, def int) (int, error) {
	if maxHops == nil {
		return def, nil
	}
	if *maxHops < 1 || *maxHops > ownership.MaxMaxHops {
		return 0, graph.Invalid("maxHops", "maxHops must be 1..%d", ownership.MaxMaxHops)
	}
	return *maxHops, nil
}

// hopsCost is the complexity of a field walking maxHops levels: its
// selection counted twice per level, so nested deep traversals multiply and
// are refused by the complexity limit (two nested 6-hop walks of one field
// each cost about 500; three cost about 5600 against the default limit of
// 1000). An out-of-range maxHops costs 1 here and is
// refused by the resolver with a message naming maxHops.
func hopsCost(child int, maxHops *int, def int) int {
	h := def
	if maxHops != nil {
		h = *maxHops
	}
	if h < 1 || h > ownership.MaxMaxHops {
		return 1
	}
	return 1 + 2*h*max(child, 1)
}

// uboComplexity sets the cost of the ownership fields.
func uboComplexity(c *generated.ComplexityRoot) {
	c.OwnershipEntity.Owners = func(child int, maxHops *int) int { return hopsCost(child, maxHops, 1) }
	c.OwnershipEntity.Subsidiaries = func(child int, maxHops *int) int { return hopsCost(child, maxHops, 1) }
	c.OwnershipEntity.SanctionsExposure = func(child int, maxHops *int) int { return hopsCost(child, maxHops, 3) }
	c.OwnershipEntity.BeneficialOwners = func(child int, _ *float64) int { return 1 + beneficialHops*max(child, 1) }
	c.OwnershipEntity.Controllers = func(child int) int { return 1 + beneficialHops*max(child, 1) }
	c.Query.Entities = func(child int, _ string, limit *int) int {
		n := 20
		if limit != nil && *limit > 0 {
			n = *limit
		}
		return 1 + child*max(1, n/10)
	}
}

func entityModel(n ownership.Node) *model.OwnershipEntity { return &model.OwnershipEntity{Node: n} }

// entityByID returns the entity with id through the loader, or nil.
func (r *Resolver) entityByID(ctx context.Context, id string) (*model.OwnershipEntity, error) {
	if _, err := requireUBO(ctx); err != nil {
		return nil, err
	}
	l, err := loadersFrom(ctx)
	if err != nil {
		return nil, err
	}
	n, ok, err := l.entities.Load(ctx, id)
	if err != nil || !ok {
		return nil, err
	}
	return entityModel(n), nil
}

// links returns the edges of sub as links from its root, each with the
// far node and its distance.
func links(sub ownership.Subgraph, upstream bool) *model.OwnershipLinks {
	nodes := map[string]ownership.Node{}
	for _, n := range sub.Nodes {
		nodes[n.ID] = n
	}
	dist := map[string]int{sub.Root: 0}
	frontier := []string{sub.Root}
	for len(frontier) > 0 {
		var next []string
		for _, id := range frontier {
			for _, e := range sub.Edges {
				near, far := e.To, e.From
				if !upstream {
					near, far = e.From, e.To
				}
				if near != id {
					continue
				}
				if _, ok := dist[far]; !ok {
					dist[far] = dist[id] + 1
					next = append(next, far)
				}
			}
		}
		frontier = next
	}
	out := &model.OwnershipLinks{Links: []model.OwnershipLink{}, Truncated: sub.Truncated, Caveats: ubo.Coverage().Caveats}
	for _, e := range sub.Edges {
		far := e.From
		if !upstream {
			far = e.To
		}
		out.Links = append(out.Links, model.OwnershipLink{
			Entity: entityModel(nodes[far]), Hops: dist[far], From: e.From, To: e.To, Relation: string(e.Relation),
			Pct: e.Pct, PctMin: e.PctMin, PctMax: e.PctMax, Role: optional(string(e.Role)), AsOf: optional(e.AsOf), Source: optional(e.Source),
		})
	}
	if sub.Truncated {
		out.Caveats = append([]string{ownership.CaveatTruncated}, out.Caveats...)
	}
	return out
}

func pathModels(ps []ownership.Path) []model.OwnershipPath {
	out := make([]model.OwnershipPath, 0, len(ps))
	for _, p := range ps {
		mp := model.OwnershipPath{Owner: p.Owner, PctMin: p.Share.Min, PctMax: p.Share.Max, Unknown: p.Share.Unknown, Hops: []model.OwnershipHop{}}
		for _, h := range p.Hops {
			mp.Hops = append(mp.Hops, model.OwnershipHop{
				From: h.From, To: h.To, Relation: string(h.Relation), PctMin: h.Share.Min, PctMax: h.Share.Max, Unknown: h.Share.Unknown,
				Role: optional(string(h.Role)), AsOf: optional(h.AsOf), Source: optional(h.Source),
			})
		}
		out = append(out, mp)
	}
	return out
}

func ownerModels(os []ownership.Owner) []model.BeneficialOwner {
	out := make([]model.BeneficialOwner, 0, len(os))
	for _, o := range os {
		out = append(out, model.BeneficialOwner{Entity: entityModel(o.Node), PctMin: o.Share.Min, PctMax: o.Share.Max,
			Unknown: o.Share.Unknown, Status: o.Status, Paths: pathModels(o.Paths)})
	}
	return out
}

func controllerModels(cs []ownership.Controller) []model.OwnershipController {
	out := make([]model.OwnershipController, 0, len(cs))
	for _, c := range cs {
		out = append(out, model.OwnershipController{Entity: entityModel(c.Node), Means: nonNil(c.Means), Paths: pathModels(c.Paths)})
	}
	return out
}

// exposure screens sub against the sanctions lists and applies the OFAC 50%
// rule; a degraded screening never answers not_blocked.
func (r *Resolver) exposure(sub ownership.Subgraph, root string) *model.SanctionsExposure {
	listed := func(ownership.Node) (ownership.Check, error) {
		return ownership.Check{}, graph.Errorf(graph.CodeUnavailable, "sanctions screening is not configured")
	}
	if r.Screener != nil {
		listed = ownership.ScreenerPredicate(r.Screener)
	}
	ex := ownership.Screen(sub, root, listed)
	cov := ubo.Coverage()
	out := &model.SanctionsExposure{Status: ex.Status, Listed: []model.ExposedParty{}, Paths: pathModels(ex.Paths),
		ControlOnly: nonNil(ex.ControlOnly), Degraded: ex.Degraded, Truncated: ex.Truncated,
		Caveats: append(slices.Clone(ex.Caveats), cov.Caveats...), Coverage: &cov}
	if ex.Degraded && ex.Status == ownership.NotBlocked {
		out.Status = ubo.OFACUnknown
		out.Caveats = append([]string{sanctions.CaveatDegraded}, out.Caveats...)
	}
	for _, ne := range ex.Nodes {
		p := model.ExposedParty{Entity: entityModel(ne.Node), Status: ne.Status, Listings: []model.OwnershipListing{},
			BlockedShareMin: ne.BlockedShare.Min, BlockedShareMax: ne.BlockedShare.Max}
		for _, l := range ne.Listings {
			p.Listings = append(p.Listings, model.OwnershipListing{List: l.List, EntryID: l.EntryID, Name: l.Name, Score: l.Score, Confirmed: l.Confirmed})
		}
		out.Listed = append(out.Listed, p)
	}
	return out
}

// graphModel is a UBO graph as the schema shows it: the REST view's fields.
func graphModel(g ubo.Graph) *model.UboGraph {
	v := g.View()
	out := &model.UboGraph{
		GraphID: v.GraphID, Status: v.Status, RootEntityName: v.RootEntityName, RootJurisdiction: v.RootJurisdiction,
		MaxHops: v.MaxHops, RequestedAt: v.RequestedAt, BuiltAt: v.BuiltAt, Cached: v.Cached,
		RootCandidates: []string{}, Nodes: []ubo.Node{}, Edges: []ubo.Edge{}, SanctionsMatches: []ubo.SanctionsMatch{},
		ClusterHits: []ubo.ClusterHit{}, BeneficialOwners: []ubo.Owner{}, ControlOnlyPersons: []ubo.Owner{},
		ShellCompanyVerdicts: []ubo.Verdict{}, RiskReasons: []string{}, ListsMissing: []string{},
		Coverage: &v.Coverage, Caveats: v.Caveats,
	}
	res := g.Result
	if res == nil {
		return out
	}
	out.RootEntityID = optional(res.RootEntityID)
	out.RootFound, out.Truncated, out.BlocklistScreened = res.RootFound, res.Truncated, res.BlocklistScreened
	out.RootCandidates = nonNil(res.Candidates)
	if res.Nodes != nil {
		out.Nodes = res.Nodes
	}
	if res.Edges != nil {
		out.Edges = res.Edges
	}
	if res.SanctionsMatches != nil {
		out.SanctionsMatches = res.SanctionsMatches
	}
	if res.ClusterHits != nil {
		out.ClusterHits = res.ClusterHits
	}
	out.BeneficialOwners = ownersWithRoles(res.BeneficialOwners)
	out.ControlOnlyPersons = ownersWithRoles(res.ControlOnly)
	ofac := res.OFAC50
	ofac.Evidence = nonNil(ofac.Evidence)
	out.Ofac50 = &ofac
	for _, id := range slices.Sorted(maps.Keys(res.ShellCompanyVerdicts)) {
		out.ShellCompanyVerdicts = append(out.ShellCompanyVerdicts, res.ShellCompanyVerdicts[id])
	}
	out.AggregateRisk = optional(res.AggregateRisk)
	out.RiskReasons = nonNil(res.RiskReasons)
	out.SanctionsCoverage = optional(res.SanctionsCoverage)
	out.ListsMissing = nonNil(res.ListsMissing)
	return out
}

func ownersWithRoles(os []ubo.Owner) []ubo.Owner {
	out := make([]ubo.Owner, len(os))
	for i, o := range os {
		o.Roles = nonNil(o.Roles)
		out[i] = o
	}
	return out
}

var uboFieldNames = map[string]string{
	"root_entity_name":  "input.rootEntityName",
	"root_jurisdiction": "input.rootJurisdiction",
	"max_hops":          "input.maxHops",
}
