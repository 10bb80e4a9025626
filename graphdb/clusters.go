package graphdb

import (
	"context"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tradecompliance/compliance/graph/cluster"
)

// The cluster registry is mirrored in the graph (Postgres is its source of
// truth) as (:ClusterEntity {id, slug, name, severity, country, group_id,
// sanctions_source, protected}) and (:ClusterGroup {id, slug}) nodes, keyed
// by the Postgres uuids, with (e)-[:MEMBER_OF]->(g) hub edges for curated
// group membership and (a)-[:SHARES_ALIAS {key, name}]->(b) cross-reference
// edges, a.id < b.id, between records that share a normalized name or
// alias: deterministic links only; nothing inferred is written.

var (
	qClusterGroupUpsert = register("cluster_group_upsert", `
UNWIND $rows AS r
MERGE (g:ClusterGroup {id: r.id})
SET g.slug = r.slug
RETURN count(g) AS n`)

	qClusterEntityUpsert = register("cluster_entity_upsert", `
UNWIND $rows AS r
MERGE (e:ClusterEntity {id: r.id})
SET e.slug = r.slug, e.name = r.name, e.severity = r.severity, e.country = r.country, e.group_id = r.group_id,
    e.sanctions_source = r.sanctions_source, e.protected = r.protected
RETURN count(e) AS n`)

	qClusterUnlinkMembers = register("cluster_unlink_members", `
UNWIND $ids AS id
MATCH (e:ClusterEntity {id: id})-[m:MEMBER_OF]->(:ClusterGroup)
DELETE m
RETURN count(*) AS n`)

	qClusterUnlinkAliases = register("cluster_unlink_aliases", `
UNWIND $ids AS id
MATCH (e:ClusterEntity {id: id})-[s:SHARES_ALIAS]->(:ClusterEntity)
DELETE s
RETURN count(*) AS n`)

	qClusterLinkMembers = register("cluster_link_members", `
UNWIND $rows AS r
MATCH (e:ClusterEntity {id: r.entity})
MATCH (g:ClusterGroup {id: r.group})
MERGE (e)-[m:MEMBER_OF]->(g)
RETURN count(m) AS n`)

	qClusterLinkAliases = register("cluster_link_aliases", `
UNWIND $rows AS r
MATCH (a:ClusterEntity {id: r.from})
MATCH (b:ClusterEntity {id: r.to})
MERGE (a)-[s:SHARES_ALIAS]->(b)
SET s.key = r.key, s.name = r.name
RETURN count(s) AS n`)

	qClusterDeleteEntities = register("cluster_delete_entities", `
UNWIND $ids AS id
MATCH (e:ClusterEntity {id: id})
DETACH DELETE e`)

	qClusterDeleteGroups = register("cluster_delete_groups", `
UNWIND $ids AS id
MATCH (g:ClusterGroup {id: id})
DETACH DELETE g`)

	qClusterEntity = register("cluster_entity", `
MATCH (e:ClusterEntity {id: $id})
RETURN e.id AS id, e.slug AS slug, e.name AS name, e.severity AS severity, e.country AS country,
       e.sanctions_source AS sanctions_source, e.protected AS protected`)

	qClusterEntityGroups = register("cluster_entity_groups", `
MATCH (e:ClusterEntity {id: $id})-[:MEMBER_OF]->(g:ClusterGroup)
RETURN g.id AS id, g.slug AS slug`)

	qClusterGroupMembers = register("cluster_group_members", `
MATCH (g:ClusterGroup {id: $id})<-[:MEMBER_OF]-(e:ClusterEntity)
RETURN e.id AS id, e.slug AS slug, e.name AS name, e.severity AS severity, e.country AS country,
       e.sanctions_source AS sanctions_source, e.protected AS protected`)

	qClusterAliasesOut = register("cluster_aliases_out", `
MATCH (e:ClusterEntity {id: $id})-[s:SHARES_ALIAS]->(o:ClusterEntity)
RETURN o.id AS id, o.slug AS slug, o.name AS name, o.severity AS severity, o.country AS country,
       o.sanctions_source AS sanctions_source, o.protected AS protected, s.key AS key, s.name AS via`)

	qClusterAliasesIn = register("cluster_aliases_in", `
MATCH (o:ClusterEntity)-[s:SHARES_ALIAS]->(e:ClusterEntity {id: $id})
RETURN o.id AS id, o.slug AS slug, o.name AS name, o.severity AS severity, o.country AS country,
       o.sanctions_source AS sanctions_source, o.protected AS protected, s.key AS key, s.name AS via`)
)

var (
	_ cluster.GraphStore     = (*DB)(nil)
	_ cluster.SanctionsGraph = (*DB)(nil)
)

// LinkedMembers returns the sanctions entries linked to or from the entry
// with id, quoted verbatim, ordered by id.
func (db *DB) LinkedMembers(ctx context.Context, id string) ([]cluster.SanctionsMember, error) {
	ls, err := db.SanctionsLinks(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]cluster.SanctionsMember, len(ls))
	for i, l := range ls {
		out[i] = cluster.SanctionsMember{EntityID: l.ID, List: l.List, SourceID: l.SourceID, Name: l.Name, Quoted: l.Quoted}
	}
	return out, nil
}

// MirrorStats says what mirroring the registry wrote.
type MirrorStats struct {
	Entities    int `json:"entities"`
	Groups      int `json:"groups"`
	MemberEdges int `json:"member_edges"`
	AliasEdges  int `json:"alias_edges"`
}

// MirrorClusters makes the graph mirror recs (the whole registry, as
// AllRecords returns it): it upserts every entity and group and rebuilds
// the entities' MEMBER_OF and SHARES_ALIAS edges. It is idempotent. It
// fails with unavailable when the database cannot be reached; a failure
// part-way leaves some edges missing until the next run repairs them.
func (db *DB) MirrorClusters(ctx context.Context, recs []cluster.Record) (MirrorStats, error) {
	var st MirrorStats
	groups := map[string]string{}
	ents := make([]map[string]any, 0, len(recs))
	ids := make([]string, 0, len(recs))
	var members []map[string]any
	for _, r := range recs {
		ents = append(ents, map[string]any{
			"id": r.ID, "slug": r.Slug, "name": r.EntityName, "severity": string(r.Severity), "country": r.Country,
			"group_id": r.GroupID, "sanctions_source": r.SanctionsSource, "protected": r.Protected,
		})
		ids = append(ids, r.ID)
		if r.GroupID != "" {
			groups[r.GroupID] = r.Group
			members = append(members, map[string]any{"entity": r.ID, "group": r.GroupID})
		}
	}
	grows := make([]map[string]any, 0, len(groups))
	for id, slug := range groups {
		grows = append(grows, map[string]any{"id": id, "slug": slug})
	}
	links := AliasLinks(recs)
	steps := []struct {
		q    query
		key  string
		rows any
		n    int
	}{
		{qClusterGroupUpsert, "rows", grows, len(grows)},
		{qClusterEntityUpsert, "rows", ents, len(ents)},
		{qClusterUnlinkMembers, "ids", ids, len(ids)},
		{qClusterUnlinkAliases, "ids", ids, len(ids)},
		{qClusterLinkMembers, "rows", members, len(members)},
		{qClusterLinkAliases, "rows", links, len(links)},
	}
	for _, s := range steps {
		for i := 0; i < s.n; i += batchSize {
			var batch any
			switch rows := s.rows.(type) {
			case []map[string]any:
				batch = rows[i:min(i+batchSize, len(rows))]
			case []string:
				batch = rows[i:min(i+batchSize, len(rows))]
			}
			if _, err := db.autocommit(ctx, s.q, map[string]any{s.key: batch}); err != nil {
				return st, err
			}
		}
	}
	st = MirrorStats{Entities: len(ents), Groups: len(grows), MemberEdges: len(members), AliasEdges: len(links)}
	return st, nil
}

// AliasLinks returns the SHARES_ALIAS edges of recs: one per pair of
// records sharing a normalized name or alias, from the smaller id to the
// larger, carrying cluster.SharedName of the pair. Ordered by from, to.
func AliasLinks(recs []cluster.Record) []map[string]any {
	byKey := map[string][]int{}
	for i, r := range recs {
		for _, k := range r.Keys() {
			byKey[k] = append(byKey[k], i)
		}
	}
	type pair struct{ a, b int }
	seen := map[pair]bool{}
	var out []map[string]any
	for i, r := range recs {
		for _, k := range r.Keys() {
			for _, j := range byKey[k] {
				if recs[j].ID <= r.ID || seen[pair{i, j}] {
					continue
				}
				seen[pair{i, j}] = true
				key, name, _ := cluster.SharedName(r, recs[j])
				out = append(out, map[string]any{"from": r.ID, "to": recs[j].ID, "key": key, "name": name})
			}
		}
	}
	slices.SortFunc(out, func(x, y map[string]any) int {
		if c := strings.Compare(x["from"].(string), y["from"].(string)); c != 0 {
			return c
		}
		return strings.Compare(x["to"].(string), y["to"].(string))
	})
	return out
}

// The delete statements return nothing: what count(*) after DETACH DELETE
// answers differs between servers.

// DeleteClusterNodes deletes the mirror's entities and groups with ids, and
// their edges. The registry never deletes records; tests and operators
// clearing a mirror use it.
func (db *DB) DeleteClusterNodes(ctx context.Context, ids []string) error {
	for i := 0; i < len(ids); i += batchSize {
		for _, q := range []query{qClusterDeleteEntities, qClusterDeleteGroups} {
			if _, err := db.autocommit(ctx, q, map[string]any{"ids": ids[i:min(i+batchSize, len(ids))]}); err != nil {
				return err
			}
		}
	}
	return nil
}

// readOnce runs the read q in its own auto-commit transaction, without the
// managed transactions' retries: a cluster graph read that cannot reach
// the server fails at once (unavailable), so the caller can fall back to
// the registry instead of waiting out the driver's 30 s retry budget.
func (db *DB) readOnce(ctx context.Context, q query, params map[string]any) (recs []*neo4j.Record, err error) {
	session := db.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, DatabaseName: db.database})
	defer func() {
		if cerr := session.Close(ctx); err == nil && cerr != nil {
			err = db.wrap(ctx, q.name, cerr)
		}
	}()
	res, err := session.Run(ctx, q.cypher, params)
	if err != nil {
		return nil, db.wrap(ctx, q.name, err)
	}
	recs, err = res.Collect(ctx)
	if err != nil {
		return nil, db.wrap(ctx, q.name, err)
	}
	return recs, nil
}

func clusterNode(r interface{ Get(string) (any, bool) }) cluster.Record {
	prot, _ := r.Get("protected")
	p, _ := prot.(bool)
	return cluster.Record{
		ID: str(r.Get("id")), Slug: str(r.Get("slug")), EntityName: str(r.Get("name")),
		Severity: cluster.Severity(str(r.Get("severity"))), Country: str(r.Get("country")),
		SanctionsSource: str(r.Get("sanctions_source")), Protected: p, Aliases: []string{},
	}
}

// ClusterEntity returns the mirrored entity with id; false when the graph
// has none.
func (db *DB) ClusterEntity(ctx context.Context, id string) (cluster.Record, bool, error) {
	recs, err := db.readOnce(ctx, qClusterEntity, map[string]any{"id": id})
	if err != nil || len(recs) == 0 {
		return cluster.Record{}, false, err
	}
	return clusterNode(recs[0]), true, nil
}

// EntityGroups returns the groups the entity with id is a member of,
// ordered by slug.
func (db *DB) EntityGroups(ctx context.Context, id string) ([]cluster.GroupRef, error) {
	recs, err := db.readOnce(ctx, qClusterEntityGroups, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	out := make([]cluster.GroupRef, len(recs))
	for i, r := range recs {
		out[i] = cluster.GroupRef{ID: str(r.Get("id")), Slug: str(r.Get("slug"))}
	}
	slices.SortFunc(out, func(a, b cluster.GroupRef) int { return strings.Compare(a.Slug, b.Slug) })
	return out, nil
}

// GroupMembers returns the entities of the group with id, ordered by slug.
func (db *DB) GroupMembers(ctx context.Context, id string) ([]cluster.Record, error) {
	recs, err := db.readOnce(ctx, qClusterGroupMembers, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	out := make([]cluster.Record, len(recs))
	for i, r := range recs {
		out[i] = clusterNode(r)
	}
	slices.SortFunc(out, func(a, b cluster.Record) int { return strings.Compare(a.Slug, b.Slug) })
	return out, nil
}

// AliasNeighbours returns the entities linked to the entity with id by
// SHARES_ALIAS edges in either direction, with the shared name, ordered by
// the other entity's slug.
func (db *DB) AliasNeighbours(ctx context.Context, id string) ([]cluster.AliasLink, error) {
	var out []cluster.AliasLink
	for _, q := range []struct {
		q        query
		outgoing bool
	}{{qClusterAliasesOut, true}, {qClusterAliasesIn, false}} {
		recs, err := db.readOnce(ctx, q.q, map[string]any{"id": id})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			l := cluster.AliasLink{Other: clusterNode(r), Key: str(r.Get("key")), Name: str(r.Get("via"))}
			if q.outgoing {
				l.From, l.To = id, l.Other.ID
			} else {
				l.From, l.To = l.Other.ID, id
			}
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b cluster.AliasLink) int { return strings.Compare(a.Other.Slug, b.Other.Slug) })
	return out, nil
}
