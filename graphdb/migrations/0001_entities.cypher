// 0001_entities: the base entity model. Ownership entities, sanctions
// entries and scam clusters are each keyed by a string id.
//
// Each id gets a uniqueness constraint and, besides it, a plain index:
// NornicDB anchors `MATCH (e:Entity {id: $id})` on the plain index only
// (DESIGN.md section 4). Keep the constraint first: on Neo4j 5 the
// constraint's own range index then satisfies the index statement, which
// does nothing, whereas a constraint created after an index on the same
// property fails.

CREATE CONSTRAINT entity_id_unique IF NOT EXISTS
FOR (e:Entity) REQUIRE e.id IS UNIQUE;

CREATE INDEX entity_id IF NOT EXISTS
FOR (e:Entity) ON (e.id);

CREATE CONSTRAINT sanctions_entry_id_unique IF NOT EXISTS
FOR (s:SanctionsEntry) REQUIRE s.id IS UNIQUE;

CREATE INDEX sanctions_entry_id IF NOT EXISTS
FOR (s:SanctionsEntry) ON (s.id);

CREATE CONSTRAINT cluster_id_unique IF NOT EXISTS
FOR (c:Cluster) REQUIRE c.id IS UNIQUE;

CREATE INDEX cluster_id IF NOT EXISTS
FOR (c:Cluster) ON (c.id);
