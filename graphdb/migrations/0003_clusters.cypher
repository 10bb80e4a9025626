// 0003_clusters: the cluster registry's mirror (Postgres is its source of
// truth). Entities and teardown groups are keyed by their Postgres uuids;
// a plain index beside each uniqueness constraint lets NornicDB anchor
// `MATCH (e:ClusterEntity {id: $id})` (DESIGN.md section 4).

CREATE CONSTRAINT cluster_entity_id_unique IF NOT EXISTS
FOR (e:ClusterEntity) REQUIRE e.id IS UNIQUE;

CREATE INDEX cluster_entity_id IF NOT EXISTS
FOR (e:ClusterEntity) ON (e.id);

CREATE CONSTRAINT cluster_group_id_unique IF NOT EXISTS
FOR (g:ClusterGroup) REQUIRE g.id IS UNIQUE;

CREATE INDEX cluster_group_id IF NOT EXISTS
FOR (g:ClusterGroup) ON (g.id);
