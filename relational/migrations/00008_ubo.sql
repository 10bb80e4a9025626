-- +goose Up
-- UBO graphs: one row per member's screening request. A queued row is
-- built by a River job (queue "ubo") inserted in the same transaction; the
-- built graph is kept as JSON and answers the same member's same request
-- (normalized root name, jurisdiction, hops) for 90 days after built_at.
CREATE TABLE ubo_graphs (
    id                    uuid PRIMARY KEY,
    member_id             uuid NOT NULL REFERENCES members(id),
    -- the root name as requested, and its normalized form (letters and
    -- digits, case folded) that the cache is keyed by.
    root_name             text NOT NULL CHECK (length(root_name) BETWEEN 1 AND 1200),
    root_name_normalized  text NOT NULL,
    -- ISO 3166-1 alpha-2, '' for any jurisdiction.
    jurisdiction          text NOT NULL DEFAULT '' CHECK (jurisdiction = '' OR jurisdiction ~ '^[A-Z]{2}$'),
    max_hops              integer NOT NULL CHECK (max_hops BETWEEN 1 AND 6),
    status                text NOT NULL CHECK (status IN ('queued', 'ready')),
    requested_at          timestamptz NOT NULL DEFAULT now(),
    built_at              timestamptz,
    result                jsonb,
    CHECK ((status = 'ready') = (built_at IS NOT NULL AND result IS NOT NULL))
);
CREATE INDEX ubo_graphs_cache ON ubo_graphs (member_id, root_name_normalized, jurisdiction, max_hops, status, built_at DESC);

-- +goose Down
DROP TABLE ubo_graphs;
