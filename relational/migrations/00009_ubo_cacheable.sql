-- +goose Up
-- Only a graph whose root was found and whose build succeeded answers later
-- requests from the cache: a build that failed on its last attempt, or a
-- root not (yet) in the ownership data, is rebuilt on the next request.
ALTER TABLE ubo_graphs ADD COLUMN cacheable boolean NOT NULL DEFAULT false;
UPDATE ubo_graphs SET cacheable = true
    WHERE status = 'ready' AND coalesce((result->>'root_found')::boolean, false);
DROP INDEX ubo_graphs_cache;
CREATE INDEX ubo_graphs_cache ON ubo_graphs (member_id, root_name_normalized, jurisdiction, max_hops, status, cacheable, built_at DESC);

-- +goose Down
DROP INDEX ubo_graphs_cache;
ALTER TABLE ubo_graphs DROP COLUMN cacheable;
CREATE INDEX ubo_graphs_cache ON ubo_graphs (member_id, root_name_normalized, jurisdiction, max_hops, status, built_at DESC);
