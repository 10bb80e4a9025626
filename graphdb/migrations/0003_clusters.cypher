// 0003_clusters: PLACEHOLDER on branch ubo only. Number 0003 belongs to the
// clusters branch; this file keeps the numbering gap-free here so that
// 0004_ownership applies. When merging, take the clusters branch's file.

CREATE INDEX cluster_id IF NOT EXISTS
FOR (c:Cluster) ON (c.id);
