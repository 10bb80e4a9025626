package graphdb

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// Ownership entities live in the graph as (:Entity:<Kind> {id, kind, name,
// name_key, jurisdiction, identifiers, address, founded_on, nominee,
// source}), the kind label one of :Company, :Person, :Trust, :Vessel;
// identifiers is a JSON array of {scheme, id}. Edges are (owner)-[:OWNS
// {key, pct, pct_min, pct_max, as_of, source}]->(owned) and
// (controller)-[:CONTROLS {key, role, pct_min, pct_max, as_of,
// source}]->(controlled), each unique by key (ownership.EdgeKey): one OWNS
// per ordered pair and one CONTROLS per pair and role. Importing an edge
// also sets has_holdings on its owner and has_owners on the owned party,
// so that a traversal learns whether the nodes at its last hop have
// neighbours beyond (Subgraph.Truncated) without one more query per node;
// the flags are not cleared when edges go, so after a deletion they may
// claim a truncation that is no longer there (never the reverse). The MERGE patterns
// say exactly that (no key in the OWNS pattern): measured on NornicDB, a
// MERGE on a relationship property map costs about twice a bare one.

// kindLabel maps a node kind to its label; the labels are fixed strings,
// never built from input.
var kindLabel = map[ownership.Kind]string{
	ownership.Company: "Company", ownership.Person: "Person",
	ownership.Trust: "Trust", ownership.Vessel: "Vessel",
}

// qOwnershipUpsertNodes holds one statement per kind, since Cypher cannot
// set a label from a parameter. A node re-imported with another kind keeps
// its old kind label besides the new one: NornicDB v1.2.0 mis-parses a
// REMOVE clause after SET (it became part of the last SET value), so the
// kind property, not the label, is authoritative and every read uses it.
var qOwnershipUpsertNodes = func() map[ownership.Kind]query {
	m := map[ownership.Kind]query{}
	for _, k := range ownership.Kinds {
		label := kindLabel[k]
		m[k] = register("ownership_upsert_"+string(k), `
UNWIND $rows AS r
MERGE (e:Entity {id: r.id})
SET e:`+label+`, e.kind = r.kind, e.name = r.name, e.name_key = r.name_key,
    e.jurisdiction = r.jurisdiction, e.identifiers = r.identifiers, e.address = r.address,
    e.founded_on = r.founded_on, e.nominee = r.nominee, e.source = r.source,
    e.has_owners = coalesce(r.has_owners, e.has_owners), e.has_holdings = coalesce(r.has_holdings, e.has_holdings)
RETURN count(e) AS n`)
	}
	return m
}()

const nodeColumns = `e.id AS id, e.kind AS kind, e.name AS name, e.jurisdiction AS jurisdiction,
       e.identifiers AS identifiers, e.address AS address, e.founded_on AS founded_on,
       e.nominee AS nominee, e.source AS source`

const hopColumns = `o.id AS id, o.kind AS kind, o.name AS name, o.jurisdiction AS jurisdiction,
       o.identifiers AS identifiers, o.address AS address, o.founded_on AS founded_on,
       o.nominee AS nominee, o.source AS source,
       type(r) AS rel, r.key AS key, r.pct AS pct, r.pct_min AS pct_min, r.pct_max AS pct_max,
       r.role AS role, r.as_of AS as_of, r.source AS edge_source,
       o.has_owners AS has_owners, o.has_holdings AS has_holdings`

var (
	qOwnershipUpsertOwns = register("ownership_upsert_owns", `
UNWIND $rows AS r
MATCH (a:Entity {id: r.from})
MATCH (b:Entity {id: r.to})
MERGE (a)-[o:OWNS]->(b)
SET o.key = r.key, o.pct = r.pct, o.pct_min = r.pct_min, o.pct_max = r.pct_max, o.as_of = r.as_of, o.source = r.source
RETURN count(o) AS n`)

	qOwnershipUpsertControls = register("ownership_upsert_controls", `
UNWIND $rows AS r
MATCH (a:Entity {id: r.from})
MATCH (b:Entity {id: r.to})
MERGE (a)-[o:CONTROLS {role: r.role}]->(b)
SET o.key = r.key, o.pct_min = r.pct_min, o.pct_max = r.pct_max, o.as_of = r.as_of, o.source = r.source
RETURN count(o) AS n`)

	qOwnershipUpsertStubs = register("ownership_upsert_stubs", `
UNWIND $rows AS r
MERGE (e:Entity {id: r.id})
ON CREATE SET e.kind = r.kind, e.name = r.name, e.name_key = r.name_key, e.source = r.source, e.stub = true
SET e.has_owners = coalesce(r.has_owners, e.has_owners), e.has_holdings = coalesce(r.has_holdings, e.has_holdings)
RETURN count(e) AS n`)

	// The flags of parties in the batch are set with the party; these
	// statements set them on stored parties the batch's edges refer to
	// (NornicDB v1.2.0 drops a SET on the end nodes in the statement that
	// MERGEs the relationship, and a MERGE that finds a node costs more the
	// larger the graph, so they run only for those few).
	qOwnershipFlagOwned = register("ownership_flag_owned", `
UNWIND $rows AS r
MERGE (e:Entity {id: r.id})
SET e.has_owners = true
RETURN count(e) AS n`)

	qOwnershipFlagOwning = register("ownership_flag_owning", `
UNWIND $rows AS r
MERGE (e:Entity {id: r.id})
SET e.has_holdings = true
RETURN count(e) AS n`)

	qOwnershipDelete = register("ownership_delete", `
MATCH (e:Entity {id: $id})
DETACH DELETE e`)

	qOwnershipEntity = register("ownership_entity", `
MATCH (e:Entity {id: $id})
RETURN `+nodeColumns)

	qOwnershipByNameKey = register("ownership_by_name_key", `
MATCH (e:Entity {name_key: $key})
RETURN `+nodeColumns+`
ORDER BY e.id
LIMIT $limit`)

	// The anchor comes first in the pattern: NornicDB plans from the
	// left, and (o:Entity)-[r]->(e:Entity {id: $id}) took 40-65 ms here
	// against 0.4-0.7 ms written this way.
	qOwnershipOwners = register("ownership_owners", `
MATCH (e:Entity {id: $id})<-[r:OWNS|CONTROLS]-(o:Entity)
RETURN `+hopColumns)

	qOwnershipOwned = register("ownership_owned", `
MATCH (e:Entity {id: $id})-[r:OWNS|CONTROLS]->(o:Entity)
RETURN `+hopColumns)
)

// ImportStats says what one UpsertOwnership call wrote.
type ImportStats struct {
	Nodes    int `json:"nodes"`
	Owns     int `json:"owns"`
	Controls int `json:"controls"`
}

// ownershipBatch is the number of rows per UNWIND statement.
const ownershipBatch = 1000

// UpsertOwnership writes b: nodes by id, stubs by id when absent, then
// edges by key, so that writing
// the same batch again changes nothing. It validates the whole batch
// first, including that every edge's ends are in b or already stored, and
// returns an invalid error naming the field before writing anything. A
// failure part-way (unavailable) leaves the batches before it written;
// rerunning completes it.
func (db *DB) UpsertOwnership(ctx context.Context, b ownership.Batch) (ImportStats, error) {
	var st ImportStats
	if err := b.Validate(); err != nil {
		return st, err
	}
	inBatch := make(map[string]bool, len(b.Nodes)+len(b.Stubs))
	for _, n := range b.Nodes {
		inBatch[n.ID] = true
	}
	for _, n := range b.Stubs {
		inBatch[n.ID] = true
	}
	var missing []string
	for _, e := range b.Edges {
		for _, id := range []string{e.From, e.To} {
			if !inBatch[id] && !slices.Contains(missing, id) {
				missing = append(missing, id)
			}
		}
	}
	if len(missing) > 0 {
		found, err := db.EntitiesByIDs(ctx, missing)
		if err != nil {
			return st, err
		}
		for _, id := range missing {
			if _, ok := found[id]; !ok {
				return st, graph.Invalid("from", "edge end %q is neither in the import nor stored", id)
			}
		}
	}
	hasOwners, hasHoldings := map[string]bool{}, map[string]bool{}
	for _, e := range b.Edges {
		hasOwners[e.To], hasHoldings[e.From] = true, true
	}
	flags := func(r map[string]any, id string) map[string]any {
		r["has_owners"], r["has_holdings"] = trueOrNil(hasOwners[id]), trueOrNil(hasHoldings[id])
		return r
	}
	byKind := map[ownership.Kind][]map[string]any{}
	for _, n := range b.Nodes {
		byKind[n.Kind] = append(byKind[n.Kind], flags(nodeRow(n), n.ID))
	}
	for _, k := range ownership.Kinds {
		n, err := db.writeRows(ctx, qOwnershipUpsertNodes[k], byKind[k])
		st.Nodes += n
		if err != nil {
			return st, err
		}
	}
	stubs := make([]map[string]any, 0, len(b.Stubs))
	for _, n := range b.Stubs {
		stubs = append(stubs, flags(map[string]any{"id": n.ID, "kind": string(n.Kind), "name": n.Name,
			"name_key": sanctions.NormalizeKey(n.Name), "source": nullable(n.Source)}, n.ID))
	}
	if _, err := db.writeRows(ctx, qOwnershipUpsertStubs, stubs); err != nil {
		return st, err
	}
	var owns, controls []map[string]any
	for _, e := range b.Edges {
		r := map[string]any{
			"key": e.Key, "from": e.From, "to": e.To, "pct": e.Pct, "pct_min": e.PctMin, "pct_max": e.PctMax,
			"as_of": nullable(e.AsOf), "source": nullable(e.Source),
		}
		if e.Pct != nil {
			r["pct"] = *e.Pct
		}
		if e.PctMin != nil {
			r["pct_min"] = *e.PctMin
		}
		if e.PctMax != nil {
			r["pct_max"] = *e.PctMax
		}
		if e.Relation == ownership.Owns {
			owns = append(owns, r)
		} else {
			r["role"] = string(e.Role)
			controls = append(controls, r)
		}
	}
	var owned, owning []map[string]any
	for _, id := range missing { // stored parties the edges refer to
		if hasOwners[id] {
			owned = append(owned, map[string]any{"id": id})
		}
		if hasHoldings[id] {
			owning = append(owning, map[string]any{"id": id})
		}
	}
	if _, err := db.writeRows(ctx, qOwnershipFlagOwned, owned); err != nil {
		return st, err
	}
	if _, err := db.writeRows(ctx, qOwnershipFlagOwning, owning); err != nil {
		return st, err
	}
	var err error
	if st.Owns, err = db.writeRows(ctx, qOwnershipUpsertOwns, owns); err != nil {
		return st, err
	}
	if st.Controls, err = db.writeRows(ctx, qOwnershipUpsertControls, controls); err != nil {
		return st, err
	}
	return st, nil
}

// writeRows runs q over rows in batches and returns the sum of its n
// columns.
func (db *DB) writeRows(ctx context.Context, q query, rows []map[string]any) (int, error) {
	total := 0
	for i := 0; i < len(rows); i += ownershipBatch {
		recs, err := db.autocommit(ctx, q, map[string]any{"rows": rows[i:min(i+ownershipBatch, len(rows))]})
		if err != nil {
			return total, err
		}
		// NornicDB returns count() after UNWIND ... SET e:Label once per
		// input row (each 1) instead of one total row: summing serves both.
		for _, r := range recs {
			if v, ok := r.Get("n"); ok {
				if n, ok := v.(int64); ok {
					total += int(n)
				}
			}
		}
	}
	return total, nil
}

func nodeRow(n ownership.Node) map[string]any {
	var ids any
	if len(n.Identifiers) > 0 {
		b, _ := json.Marshal(n.Identifiers)
		ids = string(b)
	}
	return map[string]any{
		"id": n.ID, "kind": string(n.Kind), "name": n.Name, "name_key": sanctions.NormalizeKey(n.Name),
		"jurisdiction": nullable(n.Jurisdiction), "identifiers": ids, "address": nullable(n.Address),
		"founded_on": nullable(n.FoundedOn), "nominee": n.Nominee, "source": nullable(n.Source),
	}
}

// trueOrNil returns true, or nil so that coalesce keeps the stored flag.
func trueOrNil(b bool) any {
	if b {
		return true
	}
	return nil
}

// nullable maps "" to nil, so that an absent value removes the property.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nodeOf(r *neo4j.Record) ownership.Node {
	n := ownership.Node{
		ID: str(r.Get("id")), Kind: ownership.Kind(str(r.Get("kind"))), Name: str(r.Get("name")),
		Jurisdiction: str(r.Get("jurisdiction")), Address: str(r.Get("address")),
		FoundedOn: str(r.Get("founded_on")), Source: str(r.Get("source")),
	}
	if v, _ := r.Get("nominee"); v == true {
		n.Nominee = true
	}
	if s := str(r.Get("identifiers")); s != "" {
		_ = json.Unmarshal([]byte(s), &n.Identifiers)
	}
	return n
}

// float reads a number property. NornicDB returns a whole float such as
// 60.0 as an integer, so both are accepted.
func float(v any, _ bool) *float64 {
	switch x := v.(type) {
	case float64:
		return &x
	case int64:
		f := float64(x)
		return &f
	}
	return nil
}

// hopOf returns the node at the far end of a hop row and its edge, with
// near as the end the query anchored.
func hopOf(r *neo4j.Record, near string, upstream bool) (ownership.Node, ownership.Edge) {
	n := nodeOf(r)
	e := ownership.Edge{
		Key: str(r.Get("key")), Relation: ownership.Relation(str(r.Get("rel"))),
		Pct: float(r.Get("pct")), PctMin: float(r.Get("pct_min")), PctMax: float(r.Get("pct_max")),
		Role: ownership.Role(str(r.Get("role"))), AsOf: str(r.Get("as_of")), Source: str(r.Get("edge_source")),
	}
	if upstream {
		e.From, e.To = n.ID, near
	} else {
		e.From, e.To = near, n.ID
	}
	return n, e
}

// Entity returns the entity with id, or a not_found error.
func (db *DB) Entity(ctx context.Context, id string) (ownership.Node, error) {
	recs, err := db.read(ctx, qOwnershipEntity, map[string]any{"id": id})
	if err != nil {
		return ownership.Node{}, err
	}
	if len(recs) == 0 {
		return ownership.Node{}, graph.Errorf(graph.CodeNotFound, "entity %q not found", id)
	}
	return nodeOf(recs[0]), nil
}

// MaxEntitiesByName is the most entities EntitiesByName returns.
const MaxEntitiesByName = 100

// EntitiesByName returns up to limit entities (1..MaxEntitiesByName; 0
// means 20) whose name has the same normalized key as name (case, accents,
// punctuation and legal forms such as "Ltd" ignored; never a substring):
// the limit lowest ids, ordered by id, so the same data always gives the
// same entities. It returns none for a name with an empty key and an
// invalid error naming limit when limit is out of range.
func (db *DB) EntitiesByName(ctx context.Context, name string, limit int) ([]ownership.Node, error) {
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > MaxEntitiesByName {
		return nil, graph.Invalid("limit", "limit must be between 1 and %d", MaxEntitiesByName)
	}
	key := sanctions.NormalizeKey(name)
	if key == "" {
		return []ownership.Node{}, nil
	}
	recs, err := db.read(ctx, qOwnershipByNameKey, map[string]any{"key": key, "limit": int64(limit)})
	if err != nil {
		return nil, err
	}
	out := make([]ownership.Node, 0, len(recs))
	for _, r := range recs {
		out = append(out, nodeOf(r))
	}
	slices.SortFunc(out, func(a, b ownership.Node) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// traversalConcurrency is how many anchored queries a traversal runs at
// once.
var traversalConcurrency = 8

// EntitiesByIDs returns the stored entities among ids, keyed by id; ids not
// stored are absent from the map. It runs one anchored query per id,
// concurrently, for dataloaders.
func (db *DB) EntitiesByIDs(ctx context.Context, ids []string) (map[string]ownership.Node, error) {
	out := make(map[string]ownership.Node, len(ids))
	var mu sync.Mutex
	err := db.each(ctx, ids, func(ctx context.Context, id string) error {
		recs, err := db.read(ctx, qOwnershipEntity, map[string]any{"id": id})
		if err != nil {
			return err
		}
		if len(recs) > 0 {
			mu.Lock()
			out[id] = nodeOf(recs[0])
			mu.Unlock()
		}
		return nil
	})
	return out, err
}

// each calls f for every id, traversalConcurrency at a time, and returns
// the first error.
func (db *DB) each(ctx context.Context, ids []string, f func(context.Context, string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, traversalConcurrency)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, id := range ids {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(ctx, id); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return first
}

// Upstream returns the owners and controllers of rootID up to maxHops hops
// (0 means ownership.DefaultMaxHops; at most ownership.MaxMaxHops): the
// root, every node reached and every OWNS and CONTROLS edge walked. It walks
// frontier by frontier with one anchored query per node, so cycles and
// diamonds are visited once. It fails with not_found for an unknown root
// and invalid naming max_hops when maxHops is out of range.
func (db *DB) Upstream(ctx context.Context, rootID string, maxHops int) (ownership.Subgraph, error) {
	return db.traverse(ctx, rootID, maxHops, true)
}

// Downstream is Upstream in the other direction: what rootID owns and
// controls, up to maxHops hops.
func (db *DB) Downstream(ctx context.Context, rootID string, maxHops int) (ownership.Subgraph, error) {
	return db.traverse(ctx, rootID, maxHops, false)
}

func (db *DB) traverse(ctx context.Context, rootID string, maxHops int, upstream bool) (ownership.Subgraph, error) {
	hops, err := ownership.CheckMaxHops(maxHops)
	if err != nil {
		return ownership.Subgraph{}, err
	}
	root, err := db.Entity(ctx, rootID)
	if err != nil {
		return ownership.Subgraph{}, err
	}
	sub := ownership.Subgraph{Root: rootID, Direction: "downstream", MaxHops: hops, Nodes: []ownership.Node{root}, Edges: []ownership.Edge{}}
	q := qOwnershipOwned
	if upstream {
		sub.Direction, q = "upstream", qOwnershipOwners
	}
	seen := map[string]bool{rootID: true}
	edgeSeen := map[string]bool{}
	frontier := []string{rootID}
	flag := "has_holdings"
	if upstream {
		flag = "has_owners"
	}
	// Each level runs one anchored query per frontier node, concurrently.
	// Whether the last level's nodes have neighbours beyond comes from
	// their has_owners/has_holdings flag, not from one more level of
	// queries (which was about 80% of the queries of a 3-hop walk).
	for level := 0; level < hops && len(frontier) > 0; level++ {
		rows := make([][]*neo4j.Record, len(frontier))
		pos := make(map[string]int, len(frontier))
		for i, id := range frontier {
			pos[id] = i
		}
		err := db.each(ctx, frontier, func(ctx context.Context, id string) error {
			recs, err := db.read(ctx, q, map[string]any{"id": id})
			rows[pos[id]] = recs
			return err
		})
		if err != nil {
			return ownership.Subgraph{}, err
		}
		var next []string
		for i, recs := range rows {
			for _, r := range recs {
				n, e := hopOf(r, frontier[i], upstream)
				if !edgeSeen[e.Key] {
					edgeSeen[e.Key] = true
					sub.Edges = append(sub.Edges, e)
				}
				if !seen[n.ID] {
					seen[n.ID] = true
					sub.Nodes = append(sub.Nodes, n)
					next = append(next, n.ID)
					if level == hops-1 {
						if v, _ := r.Get(flag); v == true {
							sub.Truncated = true
							sub.Frontier = append(sub.Frontier, n.ID)
						}
					}
				}
			}
		}
		slices.Sort(next)
		frontier = next
	}
	slices.SortFunc(sub.Nodes[1:], func(a, b ownership.Node) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(sub.Edges, func(a, b ownership.Edge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Key, b.Key))
	})
	slices.Sort(sub.Frontier)
	return sub, nil
}

// DeleteEntities deletes the entities with ids and their edges; ids not
// stored are ignored. It fails with unavailable when the database cannot
// be reached, leaving the entities before the failure deleted.
func (db *DB) DeleteEntities(ctx context.Context, ids []string) error {
	return db.each(ctx, ids, func(ctx context.Context, id string) error {
		_, err := db.autocommit(ctx, qOwnershipDelete, map[string]any{"id": id})
		return err
	})
}
