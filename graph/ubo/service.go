package ubo

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/country"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// Request is one UBO screening request.
type Request struct {
	RootEntityName   string `json:"root_entity_name"`
	RootJurisdiction string `json:"root_jurisdiction"` // ISO alpha-2 after Normalize, "" for any
	MaxHops          int    `json:"max_hops"`
}

// Key is what a cached graph answers for: the same member, normalized root
// name, jurisdiction and hops.
type Key struct {
	// RootName is sanctions.NormalizeKey of the root name, the key the
	// ownership graph resolves the root by (graphdb EntitiesByName), so two
	// names share a cached graph only when they resolve to the same root.
	// A name whose key is empty (only legal forms) is keyed "=" followed by
	// its cluster.Normalize form; it resolves to no root.
	RootName     string
	Jurisdiction string // ISO alpha-2, "" for any
	MaxHops      int
}

// Normalize validates r and returns it with its defaults filled in and its
// jurisdiction resolved to ISO alpha-2, and its cache key. maxHops nil
// means DefaultMaxHops. It fails with invalid naming root_entity_name,
// root_jurisdiction or max_hops.
func Normalize(name, jurisdiction string, maxHops *int) (Request, Key, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Request{}, Key{}, graph.Invalid("root_entity_name", "root_entity_name is required")
	}
	if utf8.RuneCountInString(name) > MaxNameChars {
		return Request{}, Key{}, graph.Invalid("root_entity_name", "root_entity_name must be at most %d characters", MaxNameChars)
	}
	if !hasControlFree(name) {
		return Request{}, Key{}, graph.Invalid("root_entity_name", "root_entity_name must not hold control characters")
	}
	norm := cluster.Normalize(name)
	if utf8.RuneCountInString(norm) < 2 {
		return Request{}, Key{}, graph.Invalid("root_entity_name", "root_entity_name must hold at least 2 letters or digits")
	}
	key := sanctions.NormalizeKey(name)
	if key == "" {
		key = "=" + norm
	}
	r := Request{RootEntityName: name, MaxHops: DefaultMaxHops}
	if j := strings.TrimSpace(jurisdiction); j != "" {
		c, ok := country.Default().Resolve(j)
		if !ok {
			return Request{}, Key{}, graph.Invalid("root_jurisdiction", "root_jurisdiction %q is not a known country (ISO 3166 alpha-2 or alpha-3, or a name)", j)
		}
		r.RootJurisdiction = c.ISO2
	}
	if maxHops != nil {
		if *maxHops < 1 || *maxHops > MaxHops {
			return Request{}, Key{}, graph.Invalid("max_hops", "max_hops must be 1..%d", MaxHops)
		}
		r.MaxHops = *maxHops
	}
	return r, Key{RootName: key, Jurisdiction: r.RootJurisdiction, MaxHops: r.MaxHops}, nil
}

func hasControlFree(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// Store keeps the members' UBO graphs and queues their builds.
type Store interface {
	// RequestGraph answers a request of member: the newest ready graph for
	// key built at or after builtSince (cached true); else the graph of key
	// already queued; else a new queued graph with id, requested now, whose
	// build job is queued in the same transaction (cached false). Concurrent
	// requests for one key queue one build.
	RequestGraph(ctx context.Context, memberID, id string, req Request, key Key, builtSince time.Time) (g Graph, cached bool, err error)
	// Graph returns the member's graph id; not_found when there is none or
	// it is another member's.
	Graph(ctx context.Context, memberID, id string) (Graph, error)
}

// GraphBuilder builds the result of a queued graph; *Builder is one.
type GraphBuilder interface {
	Build(ctx context.Context, req Request) (*Result, error)
}

// Service answers UBO screening requests for both transports. Graphs and
// their cache are per member: a member's request is its own, and a cached
// graph is never served to another member.
type Service struct {
	Store Store
	Now   func() time.Time // nil: time.Now
	NewID func() string    // nil: graph.NewID
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Screen answers POST /ubo/screen for the caller: a ready graph of the same
// request built within CacheTTL (cached), or a queued graph. It needs the
// ubo scope on a production key.
func (s *Service) Screen(ctx context.Context, name, jurisdiction string, maxHops *int) (Graph, error) {
	c, err := requireUBO(ctx)
	if err != nil {
		return Graph{}, err
	}
	req, key, err := Normalize(name, jurisdiction, maxHops)
	if err != nil {
		return Graph{}, err
	}
	id := graph.NewID()
	if s.NewID != nil {
		id = s.NewID()
	}
	g, cached, err := s.Store.RequestGraph(ctx, c.Member.ID, id, req, key, s.now().Add(-CacheTTL))
	if err != nil {
		return Graph{}, err
	}
	g.Cached = cached
	return g, nil
}

// Get returns the caller's graph id, queued or ready. It fails with
// invalid naming id for a malformed id, and not_found for an unknown id or
// another member's.
func (s *Service) Get(ctx context.Context, id string) (Graph, error) {
	c, err := requireUBO(ctx)
	if err != nil {
		return Graph{}, err
	}
	id, err = graph.ParseID("id", "", strings.TrimSpace(id))
	if err != nil {
		return Graph{}, err
	}
	return s.Store.Graph(ctx, c.Member.ID, id)
}

// Scope is the scope every UBO call needs, on a production key.
const Scope = "ubo"

func requireUBO(ctx context.Context) (*graph.Caller, error) {
	if _, err := graph.RequireProduction(ctx); err != nil {
		return nil, err
	}
	return graph.RequireScope(ctx, Scope)
}
