-- +goose Up
-- Fixed-window counters for rate limits and daily quotas, shared by every
-- instance. A row per (bucket, window start); old windows are pruned.
CREATE TABLE rate_counters (
    bucket        text NOT NULL,
    window_start  timestamptz NOT NULL,
    window_end    timestamptz NOT NULL,
    count         integer NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_counters_end ON rate_counters (window_end);

-- Rolling limits (GCRA): the theoretical arrival time of the next request.
CREATE TABLE rate_gcra (
    bucket  text PRIMARY KEY,
    tat     timestamptz NOT NULL
);

-- +goose Down
DROP TABLE rate_gcra;
DROP TABLE rate_counters;
