// Package ownership is the beneficial-ownership engine: the domain model of
// owners and controllers (companies, persons, trusts, vessels joined by OWNS
// and CONTROLS edges), effective ownership per natural person and the OFAC
// 50 percent rule as status propagation.
//
// It is pure: the graph database adapter (graphdb) fetches the upstream
// subgraph of a root hop by hop and this package computes on it, so every
// figure is reproducible from the nodes and edges it was given.
//
// Percentages are in percent (0 to 100). A share is a band [Min, Max]: an
// exact share has Min == Max, a reported band (BODS 25-50 %) has Min 25 and
// Max 50, and a missing percentage is NOT zero: it is the band 0..100 with
// Unknown set, so it can never make a person a confirmed beneficial owner or
// make an entity confirmed-blocked, but it does make them "possible".
package ownership

import (
	"fmt"
	"math"
	"strings"

	"github.com/tradecompliance/compliance/graph"
)

// Kind is what a node is.
type Kind string

// Node kinds.
const (
	Company Kind = "company" // any legal entity that is not a trust
	Person  Kind = "person"  // a natural person
	Trust   Kind = "trust"   // a trust or similar arrangement
	Vessel  Kind = "vessel"  // a ship, owned like an asset
)

// Kinds lists the node kinds in a fixed order.
var Kinds = []Kind{Company, Person, Trust, Vessel}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	switch k {
	case Company, Person, Trust, Vessel:
		return true
	}
	return false
}

// Identifier is a registry identifier of a node, such as GB-COH 01234567.
type Identifier struct {
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
}

// Node is an owner or an owned party.
type Node struct {
	ID           string       `json:"id"` // stable id, e.g. "bods:ad3f6c2fcc9e", "openoil:bp plc"
	Kind         Kind         `json:"kind"`
	Name         string       `json:"name"`
	Jurisdiction string       `json:"jurisdiction,omitempty"` // ISO 3166 alpha-2 when known
	Identifiers  []Identifier `json:"identifiers,omitempty"`
	Address      string       `json:"address,omitempty"`
	FoundedOn    string       `json:"founded_on,omitempty"` // incorporation or birth date, YYYY[-MM[-DD]]
	Nominee      bool         `json:"nominee,omitempty"`    // stated to be a nominee
	Source       string       `json:"source,omitempty"`     // where the node was read from
}

// Relation is the type of an edge.
type Relation string

// Edge relations.
const (
	Owns     Relation = "OWNS"     // a shareholding: From holds a share of To
	Controls Relation = "CONTROLS" // influence without (or besides) shares
)

// Role says how a CONTROLS edge controls.
type Role string

// Control roles.
const (
	BoardAppointment Role = "board_appointment" // appoints or removes directors
	VotingRights     Role = "voting_rights"     // holds voting rights
	OtherInfluence   Role = "other_influence"   // significant influence or control otherwise
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool {
	switch r {
	case BoardAppointment, VotingRights, OtherInfluence:
		return true
	}
	return false
}

// Edge is an OWNS or CONTROLS relationship from an owner to what it owns or
// controls. For OWNS, Pct is an exact share, or PctMin/PctMax a band; none
// of them set means the share is unknown (see Share). CONTROLS edges carry a
// Role and, for voting rights, optionally a band.
type Edge struct {
	Key      string   `json:"key"` // stable identity; re-importing an edge with the same key updates it
	Relation Relation `json:"relation"`
	From     string   `json:"from"` // the owner or controller
	To       string   `json:"to"`   // the owned or controlled party
	Pct      *float64 `json:"pct,omitempty"`
	PctMin   *float64 `json:"pct_min,omitempty"`
	PctMax   *float64 `json:"pct_max,omitempty"`
	Role     Role     `json:"role,omitempty"`
	AsOf     string   `json:"as_of,omitempty"` // date the relationship was stated, YYYY[-MM[-DD]]
	Source   string   `json:"source,omitempty"`
}

// EdgeKey returns the identity of an edge: one OWNS edge per ordered pair,
// and one CONTROLS edge per pair and role. A re-import of the same pair
// from another source replaces the edge instead of doubling the share.
func EdgeKey(rel Relation, from, to string, role Role) string {
	k := string(rel) + "|" + from + "|" + to
	if rel == Controls {
		k += "|" + string(role)
	}
	return k
}

// Share is a percentage band. Unknown means no percentage was stated: the
// band is then 0..100.
type Share struct {
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Unknown bool    `json:"unknown,omitempty"`
}

// Exact returns the share p..p.
func Exact(p float64) Share { return Share{Min: p, Max: p} }

// Band returns the share lo..hi.
func Band(lo, hi float64) Share { return Share{Min: lo, Max: hi} }

// UnknownShare is the share of an edge with no stated percentage.
func UnknownShare() Share { return Share{Min: 0, Max: 100, Unknown: true} }

// IsExact reports whether s is a single known figure.
func (s Share) IsExact() bool { return !s.Unknown && s.Min == s.Max }

// String formats s as "30%", "25-50%" or "unknown".
func (s Share) String() string {
	switch {
	case s.Unknown:
		return "unknown"
	case s.Min == s.Max:
		return pctString(s.Min) + "%"
	}
	return pctString(s.Min) + "-" + pctString(s.Max) + "%"
}

func pctString(p float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", p), "0"), ".")
}

// Share returns the edge's share: Pct when set, else the band PctMin..PctMax
// (a missing bound is 0 or 100), else UnknownShare. A band with only
// one bound is not Unknown: it is still a stated limit.
func (e Edge) Share() Share {
	switch {
	case e.Pct != nil:
		return Exact(*e.Pct)
	case e.PctMin != nil || e.PctMax != nil:
		s := Share{Min: 0, Max: 100}
		if e.PctMin != nil {
			s.Min = *e.PctMin
		}
		if e.PctMax != nil {
			s.Max = *e.PctMax
		}
		return s
	}
	return UnknownShare()
}

// Validate checks a node. It returns an invalid error naming the field.
func (n Node) Validate() error {
	if strings.TrimSpace(n.ID) == "" {
		return graph.Invalid("id", "node id is required")
	}
	if len(n.ID) > 300 {
		return graph.Invalid("id", "node id must be at most 300 characters")
	}
	if !n.Kind.Valid() {
		return graph.Invalid("kind", "kind %q of node %q must be company, person, trust or vessel", n.Kind, n.ID)
	}
	if strings.TrimSpace(n.Name) == "" {
		return graph.Invalid("name", "node %q has no name", n.ID)
	}
	if n.Jurisdiction != "" && !isISO2(n.Jurisdiction) {
		return graph.Invalid("jurisdiction", "jurisdiction %q of node %q must be an ISO 3166 alpha-2 code", n.Jurisdiction, n.ID)
	}
	return nil
}

func isISO2(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

// Validate checks an edge. It returns an invalid error naming the field.
func (e Edge) Validate() error {
	if e.From == "" {
		return graph.Invalid("from", "edge has no owner")
	}
	if e.To == "" {
		return graph.Invalid("to", "edge has no owned party")
	}
	if e.From == e.To {
		return graph.Invalid("to", "%q cannot own or control itself", e.From)
	}
	switch e.Relation {
	case Owns:
		if e.Role != "" {
			return graph.Invalid("role", "an OWNS edge has no role")
		}
	case Controls:
		if !e.Role.Valid() {
			return graph.Invalid("role", "role %q must be board_appointment, voting_rights or other_influence", e.Role)
		}
	default:
		return graph.Invalid("relation", "relation %q must be OWNS or CONTROLS", e.Relation)
	}
	for _, p := range []struct {
		field string
		v     *float64
	}{{"pct", e.Pct}, {"pct_min", e.PctMin}, {"pct_max", e.PctMax}} {
		if p.v != nil && (math.IsNaN(*p.v) || *p.v < 0 || *p.v > 100) {
			return graph.Invalid(p.field, "%s must be between 0 and 100", p.field)
		}
	}
	if e.Pct != nil && (e.PctMin != nil || e.PctMax != nil) {
		return graph.Invalid("pct", "give pct or pct_min/pct_max, not both")
	}
	if e.PctMin != nil && e.PctMax != nil && *e.PctMin > *e.PctMax {
		return graph.Invalid("pct_min", "pct_min %v is above pct_max %v", *e.PctMin, *e.PctMax)
	}
	if e.Key == "" {
		return graph.Invalid("key", "edge %s->%s has no key", e.From, e.To)
	}
	return nil
}

// Batch is what one import writes: nodes first, then edges between nodes of
// the batch or already stored. Stubs are parties an edge refers to but the
// source does not describe (a BODS statement naming a statement absent from
// the file): they are created when absent and otherwise left as stored, so
// a stub never overwrites a described node.
type Batch struct {
	Nodes []Node `json:"nodes"`
	Stubs []Node `json:"stubs,omitempty"`
	Edges []Edge `json:"edges"`
}

// Validate checks every node and edge and that no id or edge key repeats
// with different content. It returns the first problem as an invalid error.
func (b Batch) Validate() error {
	seen := make(map[string]Node, len(b.Nodes))
	for _, n := range b.Nodes {
		if err := n.Validate(); err != nil {
			return err
		}
		if prev, ok := seen[n.ID]; ok && prev.Kind != n.Kind {
			return graph.Invalid("kind", "node %q is given as %s and as %s", n.ID, prev.Kind, n.Kind)
		}
		seen[n.ID] = n
	}
	for _, n := range b.Stubs {
		if err := n.Validate(); err != nil {
			return err
		}
	}
	for _, e := range b.Edges {
		if err := e.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Traversal limits.
const (
	DefaultMaxHops = 3
	MaxMaxHops     = 6 // the most hops Upstream and Downstream walk
)

// CheckMaxHops returns n, DefaultMaxHops for 0, or an invalid error naming
// max_hops when n is outside 1..MaxMaxHops.
func CheckMaxHops(n int) (int, error) {
	if n == 0 {
		return DefaultMaxHops, nil
	}
	if n < 1 || n > MaxMaxHops {
		return 0, graph.Invalid("max_hops", "max_hops must be between 1 and %d", MaxMaxHops)
	}
	return n, nil
}

// Subgraph is the neighbourhood of a root as the database returned it: the
// root, every node reached within MaxHops and every edge walked. Frontier
// lists the nodes at the last hop that have owners (or subsidiaries) of
// their own, not fetched because of MaxHops; Truncated is true when there
// is any, so results on the subgraph may be incomplete.
type Subgraph struct {
	Root      string   `json:"root"`
	Direction string   `json:"direction"` // "upstream" (owners) or "downstream" (subsidiaries)
	MaxHops   int      `json:"max_hops"`
	Nodes     []Node   `json:"nodes"`
	Edges     []Edge   `json:"edges"`
	Frontier  []string `json:"frontier,omitempty"`
	Truncated bool     `json:"truncated"`
}

// Node returns the node with id and whether it is in s.
func (s Subgraph) Node(id string) (Node, bool) {
	for _, n := range s.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return Node{}, false
}

// UpstreamOf returns the upstream subgraph of root within b, walked like
// the database walks it (graphdb DB.Upstream): frontier by frontier up to
// maxHops, with Frontier and Truncated set the same way. It serves tests
// and in-memory checks of a batch before it is stored; a root absent from
// b gives a subgraph holding only a stub root.
func UpstreamOf(b Batch, root string, maxHops int) Subgraph {
	nodes := map[string]Node{}
	for _, n := range b.Stubs {
		nodes[n.ID] = n
	}
	for _, n := range b.Nodes {
		nodes[n.ID] = n
	}
	into := map[string][]Edge{}
	for _, e := range b.Edges {
		into[e.To] = append(into[e.To], e)
	}
	rootNode, ok := nodes[root]
	if !ok {
		rootNode = Node{ID: root, Kind: Company, Name: root}
	}
	sub := Subgraph{Root: root, Direction: "upstream", MaxHops: maxHops, Nodes: []Node{rootNode}, Edges: []Edge{}}
	seen := map[string]bool{root: true}
	edgeSeen := map[string]bool{}
	frontier := []string{root}
	for level := 0; level <= maxHops && len(frontier) > 0; level++ {
		if level == maxHops {
			for _, id := range frontier {
				if len(into[id]) > 0 {
					sub.Truncated = true
					sub.Frontier = append(sub.Frontier, id)
				}
			}
			break
		}
		var next []string
		for _, id := range frontier {
			for _, e := range into[id] {
				if !edgeSeen[e.Key] {
					edgeSeen[e.Key] = true
					sub.Edges = append(sub.Edges, e)
				}
				if !seen[e.From] {
					seen[e.From] = true
					n, ok := nodes[e.From]
					if !ok {
						n = Node{ID: e.From, Kind: Company, Name: e.From}
					}
					sub.Nodes = append(sub.Nodes, n)
					next = append(next, e.From)
				}
			}
		}
		frontier = next
	}
	return sub
}
