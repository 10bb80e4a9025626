-- +goose Up
-- Versioned snapshots of the sanctions lists: one row per ingest of one
-- list. Exactly one snapshot per list is current; a new one becomes current
-- in the transaction that stores it, and the previous ones stay stored.
--
-- The entries of a snapshot are one gzip-compressed JSON array of
-- sanctions.Entry (about 10 MB for all 8 lists): loading every current list
-- is then 8 row reads and a decode, which is what the in-memory matching
-- index needs at start-up. No query looks inside the entries in SQL.
CREATE TABLE sanctions_snapshots (
    id          uuid PRIMARY KEY,
    list        text NOT NULL,
    source      text NOT NULL,
    format      text NOT NULL,
    published   timestamptz,             -- as the source states it; NULL when it does not
    sha256      text NOT NULL,           -- of the input bytes, every file in order
    row_count   integer NOT NULL CHECK (row_count >= 0),
    created_at  timestamptz NOT NULL DEFAULT now(),   -- ingested at
    checked_at  timestamptz NOT NULL DEFAULT now(),   -- last confirmed current by a sync or an identical ingest
    is_current  boolean NOT NULL DEFAULT false,
    entries_gz  bytea NOT NULL
);
-- Already compressed: do not let TOAST try again.
ALTER TABLE sanctions_snapshots ALTER COLUMN entries_gz SET STORAGE EXTERNAL;
CREATE UNIQUE INDEX sanctions_snapshots_current ON sanctions_snapshots (list) WHERE is_current;
CREATE INDEX sanctions_snapshots_history ON sanctions_snapshots (list, created_at DESC);

-- Conditional-request state of each URL `compliance sanctions sync` fetches:
-- the validators of the last response that was stored in a snapshot.
CREATE TABLE sanctions_fetch_state (
    url            text PRIMARY KEY,
    list           text NOT NULL,
    etag           text NOT NULL DEFAULT '',
    last_modified  text NOT NULL DEFAULT '',
    sha256         text NOT NULL DEFAULT '',
    fetched_at     timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE sanctions_fetch_state;
DROP TABLE sanctions_snapshots;
