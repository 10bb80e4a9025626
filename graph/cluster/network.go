package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tradecompliance/compliance/graph"
)

// Caveats of every cluster answer, besides the service-wide ones.
const (
	CaveatRegistryOnly   = "The cluster check queries the fraud-cluster registry only: it is a pre-screen, not a regulatory KYC and not a sanctions screen."
	CaveatCountryUnknown = "A country restricts matches to records of that country and to records with no country on file: their country is unknown, so the filter cannot rule them out."
	CaveatNoInferred     = "Edges come only from curated teardown-group membership and deterministic shared-alias links; inferred links (shared address, shared identifier) are never published."
	CaveatDegraded       = "Degraded: the sanctions-network lookup did not complete or the sanctions list an entity was sourced from is not loaded in the local snapshot, so absence is not evidence of absence and this must not be recorded as a clean screen."
	// LeadNote is attached to every suspected match.
	LeadNote = "suspected: a publicly reported lead, not a confirmed fraud"
)

// Caveats returns the caveats every cluster response carries.
func Caveats() []string {
	return []string{graph.CaveatSuspected, CaveatRegistryOnly, graph.CaveatDecision}
}

// GroupRef names a teardown group.
type GroupRef struct {
	ID   string
	Slug string
}

// AliasLink is a SHARES_ALIAS edge as seen from one entity: Other is the
// entity at the other end, Key the shared normalized name and Name that
// name as the From entity writes it.
type AliasLink struct {
	From, To string
	Other    Record
	Key      string
	Name     string
}

// SharedName returns the first normalized name of a (its entity name, then
// its aliases, in order) that is also a name of b, with that name as a
// writes it: the key and label of the cross-reference edge from a to b.
// ok is false when they share none.
func SharedName(a, b Record) (key, name string, ok bool) {
	bk := b.Keys()
	for _, n := range append([]string{a.EntityName}, a.Aliases...) {
		k := Normalize(n)
		if len([]rune(k)) >= MinCheckChars && slices.Contains(bk, k) {
			return k, n, true
		}
	}
	return "", "", false
}

// GraphStore reads the registry's mirror in the graph (graphdb implements
// it). Records it returns carry no aliases.
type GraphStore interface {
	ClusterEntity(ctx context.Context, id string) (Record, bool, error)
	EntityGroups(ctx context.Context, id string) ([]GroupRef, error)
	GroupMembers(ctx context.Context, groupID string) ([]Record, error)
	AliasNeighbours(ctx context.Context, id string) ([]AliasLink, error)
}

// ProtectedSource lists the registry's protected records (relational
// implements it), so that their sanctions links are withheld from every
// network, not only from the networks they are part of.
type ProtectedSource interface {
	ProtectedEntities(ctx context.Context) ([]Record, error)
}

// SlugResolver resolves a slug in the source of truth: the record with that
// entity slug, or the records of the group with that slug.
type SlugResolver interface {
	RecordsBySlug(ctx context.Context, slug string) (recs []Record, groupID string, isGroup bool, err error)
}

// SanctionsMember is a sanctions entry linked to a listed cluster entity,
// quoted verbatim from its list's remarks.
type SanctionsMember struct {
	EntityID string `json:"entity_id"` // the source entry, "<list>:<source_id>"
	List     string `json:"list"`
	SourceID string `json:"source_id"`
	Name     string `json:"name"`
	Quoted   string `json:"quoted"`
	// ListedEntryID is the entry of the cluster entity itself that states
	// (or is named in) the link; ClusterEntity is that entity's slug.
	ListedEntryID string `json:"listed_entry_id"`
	ClusterEntity string `json:"cluster_entity"`
}

// SanctionsGraph answers whether a name is itself listed (exact normalized
// primary name, never substring), whether it holds an entry, what an entry
// is linked to, and how many entries of a list it holds (graphdb).
type SanctionsGraph interface {
	ListedByName(ctx context.Context, name string) ([]string, error)
	EntryExists(ctx context.Context, entryID string) (bool, error)
	LinkedMembers(ctx context.Context, entryID string) ([]SanctionsMember, error)
	// ListEntries returns 0 for a list never loaded into the graph or
	// whose load failed.
	ListEntries(ctx context.Context, list string) (int, error)
}

// ListedNames finds listed entries by exact normalized name on both sides:
// any of the names given (a record's entity name and aliases) against the
// primary names and aliases of every entry (the in-process screener,
// sanctions.Screener, implements it; the graph holds no aliases).
type ListedNames interface {
	// ExactListed returns the ids ("<list>:<source_id>") of the entries
	// one of whose names has the normalized key of one of names, sorted.
	ExactListed(names []string) []string
	// ListLoaded reports whether list is held.
	ListLoaded(list string) bool
}

// RecordSource reads records, with their aliases, from the registry of
// record (relational implements it): the graph mirror holds no aliases.
type RecordSource interface {
	RecordsByID(ctx context.Context, ids []string) ([]Record, error)
}

// SnapshotState gives the local sanctions snapshot's age in hours once it
// is older than 48 hours. Whether a list is populated is decided from the
// graph the lookup reads (SanctionsGraph.ListEntries), not from here.
type SnapshotState struct {
	StaleHours *int
}

// Coverage states of a sanctions network.
const (
	CoverageAvailable   = "available"
	CoverageNoLinks     = "no_links_recorded"
	CoverageNotScreened = "not_screened"
	CoverageWithheld    = "withheld"
	CoverageUnavailable = "unavailable"
)

// SanctionsNetwork is the sanctions block of a cluster graph.
type SanctionsNetwork struct {
	Members    []SanctionsMember `json:"members"`
	Coverage   string            `json:"coverage"`
	Degraded   bool              `json:"degraded"`
	StaleHours *int              `json:"stale_hours"`
	// Screened is the number of network entities sourced from a sanctions
	// list (only those are looked up); Withheld those whose links are
	// withheld under the protected-entity policy.
	Screened int    `json:"screened_entities"`
	Withheld int    `json:"withheld_entities"`
	Note     string `json:"note"`
}

// Node kinds and edge kinds of a cluster graph.
const (
	NodeEntity = "entity"
	NodeGroup  = "group"

	EdgeHub            = "hub"             // entity MEMBER_OF group
	EdgeCrossReference = "cross_reference" // entities sharing a normalized name or alias
)

// Node is a node of a cluster graph.
type Node struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Slug     string   `json:"slug"`
	Label    string   `json:"label"`
	Severity Severity `json:"severity,omitempty"`
	Country  string   `json:"country,omitempty"`
}

// Edge is an edge of a cluster graph.
type Edge struct {
	Kind     string `json:"kind"`
	Relation string `json:"relation"` // member_of or shares_alias
	From     string `json:"from"`
	To       string `json:"to"`
	Via      string `json:"via,omitempty"` // the shared name, for cross-reference edges
}

// Network is a cluster graph: the connected network around a group or an
// entity slug.
type Network struct {
	Slug             string           `json:"slug"`
	Kind             string           `json:"kind"` // group or entity
	Nodes            []Node           `json:"nodes"`
	Edges            []Edge           `json:"edges"`
	Caption          string           `json:"caption"`
	SanctionsNetwork SanctionsNetwork `json:"sanctions_network"`
	// Source is graph, or registry when the graph database was
	// unavailable and the network was read from Postgres.
	Source    string   `json:"source"`
	Truncated bool     `json:"truncated"`
	Caveats   []string `json:"caveats"`
}

// DefaultMaxNodes bounds a network's entities.
const DefaultMaxNodes = 500

// Networks builds cluster graphs.
type Networks struct {
	Slugs     SlugResolver
	Graph     GraphStore
	Fallback  GraphStore // read when Graph is unavailable; nil for none
	Sanctions SanctionsGraph
	// Names finds the entries a record is listed under, by its entity name
	// and aliases against entries' primary names and aliases; nil falls
	// back to Sanctions.ListedByName (entries' primary names only).
	Names ListedNames
	// Records gives the screened records' aliases (the graph mirror holds
	// none); nil uses the aliases the records carry.
	Records RecordSource
	// Protected lists every protected record of the registry; nil limits
	// the protected-entity policy to the records of the network itself.
	Protected ProtectedSource
	Snapshot  func() SnapshotState
	MaxNodes  int // DefaultMaxNodes when 0
}

// Network sources.
const (
	SourceGraph    = "graph"    // read from the graph database
	SourceRegistry = "registry" // the graph database was unavailable: read from the registry of record
)

// Network returns the network of slug: the records it names and every
// entity and group reachable from them over MEMBER_OF and SHARES_ALIAS
// edges, read from Graph. When Graph is unavailable and Fallback is set,
// the same network is read from Fallback (source "registry") and its
// sanctions network is unavailable and degraded. It fails with invalid
// naming slug for a malformed slug, not_found when the slug names nothing
// or a network of fewer than two entities (a single record with no alias
// link, alone or in a group of one), and unavailable when
// the network cannot be read. A failed sanctions lookup does not fail it:
// the sanctions network is then unavailable and degraded.
func (n *Networks) Network(ctx context.Context, slug string) (Network, error) {
	if !ValidSlug(slug) {
		return Network{}, graph.Invalid("slug", "slug must be lower-case letters and digits separated by hyphens")
	}
	start, groupID, isGroup, err := n.Slugs.RecordsBySlug(ctx, slug)
	if err != nil {
		return Network{}, graph.Unavailable("cluster registry", err)
	}
	if len(start) == 0 {
		return Network{}, graph.Errorf(graph.CodeNotFound, "no linked cluster network for slug %q", slug)
	}
	out, recs, err := n.walk(ctx, n.Graph, slug, start, groupID, isGroup)
	out.Source = SourceGraph
	if graph.ErrorCode(err) == graph.CodeUnavailable && n.Fallback != nil {
		out, recs, err = n.walk(ctx, n.Fallback, slug, start, groupID, isGroup)
		out.Source = SourceRegistry
	}
	if err != nil {
		return Network{}, err
	}
	if len(recs) < 2 {
		// One entity alone (a group of one, or a record whose only link
		// is its group's hub) is a single row, not a network.
		return Network{}, graph.Errorf(graph.CodeNotFound, "no linked cluster network for slug %q", slug)
	}
	if out.Source == SourceRegistry {
		out.SanctionsNetwork = SanctionsNetwork{Members: []SanctionsMember{}, Coverage: CoverageUnavailable, Degraded: true,
			Note: "The graph database is unavailable: the network was read from the registry of record and the sanctions network could not be looked up."}
		for _, r := range recs {
			if r.SanctionsSource != "" {
				out.SanctionsNetwork.Screened++
			}
		}
		if n.Snapshot != nil {
			out.SanctionsNetwork.StaleHours = n.Snapshot().StaleHours
		}
	} else {
		out.SanctionsNetwork = n.sanctionsNetwork(ctx, recs)
	}
	groups := 0
	for _, nd := range out.Nodes {
		if nd.Kind == NodeGroup {
			groups++
		}
	}
	out.Caption = caption(out, groups, len(recs))
	out.Caveats = append(Caveats(), CaveatNoInferred, graph.CaveatSanctionsOnly, graph.CaveatNoPEP)
	if out.SanctionsNetwork.Degraded {
		out.Caveats = append([]string{CaveatDegraded}, out.Caveats...)
	}
	return out, nil
}

// walk reads the network around the start records from store, breadth
// first, and returns it without its sanctions network, caption and
// caveats, with its entity records ordered by slug.
func (n *Networks) walk(ctx context.Context, store GraphStore, slug string, start []Record, groupID string, isGroup bool) (Network, []Record, error) {
	max := n.MaxNodes
	if max <= 0 {
		max = DefaultMaxNodes
	}
	out := Network{Slug: slug, Kind: NodeEntity, Nodes: []Node{}, Edges: []Edge{}}
	ents := map[string]Record{}
	groups := map[string]string{}
	edges := map[Edge]bool{}
	var entQueue, groupQueue []string
	addEnt := func(r Record) {
		if _, ok := ents[r.ID]; ok {
			return
		}
		if len(ents) >= max {
			out.Truncated = true
			return
		}
		ents[r.ID] = r
		entQueue = append(entQueue, r.ID)
	}
	addGroup := func(g GroupRef) {
		if _, ok := groups[g.ID]; ok {
			return
		}
		groups[g.ID] = g.Slug
		groupQueue = append(groupQueue, g.ID)
	}
	if isGroup {
		out.Kind = NodeGroup
		addGroup(GroupRef{ID: groupID, Slug: slug})
	} else {
		addEnt(start[0])
	}
	for len(entQueue) > 0 || len(groupQueue) > 0 {
		if len(groupQueue) > 0 {
			gid := groupQueue[0]
			groupQueue = groupQueue[1:]
			ms, err := store.GroupMembers(ctx, gid)
			if err != nil {
				return Network{}, nil, err
			}
			for _, m := range ms {
				addEnt(m)
				if _, ok := ents[m.ID]; ok {
					edges[Edge{Kind: EdgeHub, Relation: "member_of", From: m.ID, To: gid}] = true
				}
			}
			continue
		}
		id := entQueue[0]
		entQueue = entQueue[1:]
		gs, err := store.EntityGroups(ctx, id)
		if err != nil {
			return Network{}, nil, err
		}
		for _, g := range gs {
			addGroup(g)
			edges[Edge{Kind: EdgeHub, Relation: "member_of", From: id, To: g.ID}] = true
		}
		links, err := store.AliasNeighbours(ctx, id)
		if err != nil {
			return Network{}, nil, err
		}
		for _, l := range links {
			addEnt(l.Other)
			if _, ok := ents[l.Other.ID]; ok {
				edges[Edge{Kind: EdgeCrossReference, Relation: "shares_alias", From: l.From, To: l.To, Via: l.Name}] = true
			}
		}
	}
	if len(groups) == 0 && len(edges) == 0 {
		return Network{}, nil, graph.Errorf(graph.CodeNotFound, "no linked cluster network for slug %q", slug)
	}
	// Postgres is the source of truth for the records named by the slug.
	for _, r := range start {
		if _, ok := ents[r.ID]; ok {
			ents[r.ID] = r
		}
	}
	for gid, gslug := range groups {
		out.Nodes = append(out.Nodes, Node{ID: gid, Kind: NodeGroup, Slug: gslug, Label: gslug})
	}
	var recs []Record
	for _, r := range ents {
		recs = append(recs, r)
		out.Nodes = append(out.Nodes, Node{ID: r.ID, Kind: NodeEntity, Slug: r.Slug, Label: r.EntityName, Severity: r.Severity, Country: r.Country})
	}
	slices.SortFunc(out.Nodes, func(a, b Node) int {
		if a.Kind != b.Kind {
			return strings.Compare(b.Kind, a.Kind) // groups first
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	slices.SortFunc(recs, func(a, b Record) int { return strings.Compare(a.Slug, b.Slug) })
	slug2 := map[string]string{}
	for _, nd := range out.Nodes {
		slug2[nd.ID] = nd.Slug
	}
	for e := range edges {
		out.Edges = append(out.Edges, e)
	}
	slices.SortFunc(out.Edges, func(a, b Edge) int {
		if a.Kind != b.Kind {
			return strings.Compare(b.Kind, a.Kind) // hub edges first
		}
		if c := strings.Compare(slug2[a.From], slug2[b.From]); c != 0 {
			return c
		}
		return strings.Compare(slug2[a.To], slug2[b.To])
	})
	return out, recs, nil
}

func caption(n Network, groups, entities int) string {
	hub, cross := 0, 0
	for _, e := range n.Edges {
		if e.Kind == EdgeHub {
			hub++
		} else {
			cross++
		}
	}
	var sev []string
	for _, s := range Severities {
		c := 0
		for _, nd := range n.Nodes {
			if nd.Severity == s {
				c++
			}
		}
		if c > 0 {
			sev = append(sev, fmt.Sprintf("%d %s", c, s))
		}
	}
	what := "Entity " + n.Slug
	if n.Kind == NodeGroup {
		what = "Teardown group " + n.Slug
	}
	s := fmt.Sprintf("%s: %d %s in %d %s (%s); %d hub %s (group membership), %d cross-reference %s (shared alias). Sanctions network: %s.",
		what, entities, plural(entities, "entity", "entities"), groups, plural(groups, "group", "groups"), strings.Join(sev, ", "),
		hub, plural(hub, "edge", "edges"), cross, plural(cross, "edge", "edges"), n.SanctionsNetwork.Coverage)
	if n.Truncated {
		s += fmt.Sprintf(" Truncated at %d entities.", entities)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sanctionsNetwork looks up, for each entity sourced from a sanctions list,
// whether it is itself listed (its entity name or an alias equal, on the
// normalized key, to an entry's primary name or alias) and what its entries
// are linked to.
func (n *Networks) sanctionsNetwork(ctx context.Context, recs []Record) SanctionsNetwork {
	sn := SanctionsNetwork{Members: []SanctionsMember{}}
	var screened []Record
	for _, r := range recs {
		if r.SanctionsSource != "" {
			screened = append(screened, r)
		}
	}
	sn.Screened = len(screened)
	// The snapshot's age qualifies every state, not_screened included.
	var snap SnapshotState
	if n.Snapshot != nil {
		snap = n.Snapshot()
	}
	sn.StaleHours = snap.StaleHours
	if len(screened) == 0 {
		sn.Coverage = CoverageNotScreened
		sn.Note = "No entity of this network was sourced from a sanctions list; this is not a determination that any entity is unlisted."
		return sn
	}
	unavailable := func(why string) SanctionsNetwork {
		return SanctionsNetwork{Members: []SanctionsMember{}, Coverage: CoverageUnavailable, Degraded: true,
			StaleHours: snap.StaleHours, Screened: len(screened), Note: why}
	}
	if n.Sanctions == nil {
		return unavailable("The sanctions-network lookup is not configured.")
	}
	// The lookup reads the graph's entries, loaded by a step of its own that
	// can fail: a record is screened only against a list the graph holds.
	loaded := map[string]bool{} // per request
	for _, r := range screened {
		if _, ok := loaded[r.SanctionsSource]; ok {
			continue
		}
		c, err := n.Sanctions.ListEntries(ctx, r.SanctionsSource)
		if err != nil {
			return unavailable("The sanctions-network lookup did not complete.")
		}
		loaded[r.SanctionsSource] = c > 0
		if c == 0 || (n.Names != nil && !n.Names.ListLoaded(r.SanctionsSource)) {
			return unavailable(fmt.Sprintf("The sanctions list %s, which entity %s was sourced from, is not loaded in the local snapshot.", r.SanctionsSource, r.Slug))
		}
	}
	// The records' aliases come from the registry of record.
	if n.Records != nil {
		ids := make([]string, len(screened))
		for i, r := range screened {
			ids[i] = r.ID
		}
		fresh, err := n.Records.RecordsByID(ctx, ids)
		if err != nil {
			return unavailable("The sanctions-network lookup did not complete.")
		}
		for i, r := range screened {
			for _, f := range fresh {
				if f.ID == r.ID {
					screened[i].Aliases = f.Aliases
				}
			}
		}
	}
	// The listed entries of protected records first: their links are
	// withheld in both directions, so a link found under another record's
	// entry that names one of them is withheld too, whether or not the
	// protected record is part of this network.
	listed := make([][]string, len(screened))
	protectedEntry := map[string]string{} // entry id -> protected record's slug
	inNetwork := map[string]bool{}
	for i, r := range screened {
		inNetwork[r.ID] = true
		ids, err := n.listedEntries(ctx, r)
		if err != nil {
			return unavailable(lookupFailed(err))
		}
		listed[i] = ids
		if r.Protected {
			for _, id := range ids {
				protectedEntry[id] = r.Slug
			}
		}
	}
	// A protected record is withheld by the entries its names are listed
	// under, whether or not it was sourced from a sanctions list (an
	// unsourced record is not screened, but its listed entry is still its
	// own).
	var others []Record
	if n.Protected != nil {
		var err error
		if others, err = n.Protected.ProtectedEntities(ctx); err != nil {
			return unavailable("The sanctions-network lookup did not complete.")
		}
	} else {
		for _, r := range recs {
			if r.Protected {
				others = append(others, r)
			}
		}
	}
	for _, r := range others {
		if inNetwork[r.ID] {
			continue
		}
		ids, err := n.listedEntries(ctx, r)
		if err != nil {
			return unavailable(lookupFailed(err))
		}
		for _, id := range ids {
			if _, ok := protectedEntry[id]; !ok {
				protectedEntry[id] = r.Slug
			}
		}
	}
	withheld := map[string]bool{} // slugs of protected records whose links are withheld
	for i, r := range screened {
		var found []SanctionsMember
		for _, id := range listed[i] {
			ms, err := n.Sanctions.LinkedMembers(ctx, id)
			if err != nil {
				return unavailable("The sanctions-network lookup did not complete.")
			}
			// The links of a protected record's entry are withheld even
			// under another record listed under the same entry.
			if slug, ok := protectedEntry[id]; ok && len(ms) > 0 {
				withheld[slug] = true
				continue
			}
			for _, m := range ms {
				if r.Protected {
					withheld[r.Slug] = true
					continue
				}
				if slug, ok := protectedEntry[m.EntityID]; ok {
					withheld[slug] = true
					continue
				}
				m.ListedEntryID, m.ClusterEntity = id, r.Slug
				found = append(found, m)
			}
		}
		sn.Members = append(sn.Members, found...)
	}
	sn.Withheld = len(withheld)
	switch {
	case len(sn.Members) > 0:
		sn.Coverage = CoverageAvailable
		sn.Note = "Linked-to entries quoted verbatim from the lists' remarks, for entities themselves listed (exact normalized name or alias)."
		if sn.Withheld > 0 {
			sn.Note += fmt.Sprintf(" Links of %d protected %s are withheld.", sn.Withheld, plural(sn.Withheld, "entity", "entities"))
		}
	case sn.Withheld > 0:
		sn.Coverage = CoverageWithheld
		sn.Note = "Sanctions links exist but are withheld under the protected-entity policy."
	default:
		sn.Coverage = CoverageNoLinks
		sn.Note = "Screened against a populated sanctions snapshot: no links recorded."
	}
	return sn
}

// errEntryMissing is a listed entry the graph does not hold: its links
// cannot be read, so the lookup is incomplete.
var errEntryMissing = errors.New("a listed entry is not held in the graph")

func lookupFailed(err error) string {
	if errors.Is(err, errEntryMissing) {
		return "The sanctions-network lookup did not complete: an entry an entity is listed under is not loaded in the graph (its list's graph load lags the local snapshot)."
	}
	return "The sanctions-network lookup did not complete."
}

// listedEntries returns the ids of the entries r is listed under, sorted:
// its entity name and aliases against the entries' primary names and
// aliases by exact normalized key (Names), each checked to be held in the
// graph whose links are read (an entry missing there, its list's graph
// load lagging the snapshot, fails the lookup rather than hiding links),
// and its entity name against the graph's primary names (the screener
// lagging the graph).
// Without Names, the graph's primary names are looked up for every name of
// r.
func (n *Networks) listedEntries(ctx context.Context, r Record) ([]string, error) {
	names := append([]string{r.EntityName}, r.Aliases...)
	var ids []string
	graphNames := names
	if n.Names != nil {
		ids = slices.Clone(n.Names.ExactListed(names))
		for _, id := range ids {
			ok, err := n.Sanctions.EntryExists(ctx, id)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("%w: %s", errEntryMissing, id)
			}
		}
		// The graph's own primary-name match too: the screener's index
		// can lag the graph (it is rebuilt up to a reload interval after
		// a new snapshot, or not at all when the rebuild fails), and an
		// entry it does not hold yet must not read as no links.
		graphNames = names[:1]
	}
	for _, name := range graphNames {
		found, err := n.Sanctions.ListedByName(ctx, name)
		if err != nil {
			return nil, err
		}
		for _, id := range found {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids, nil
}
