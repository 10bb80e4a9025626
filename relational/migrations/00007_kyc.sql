-- +goose Up
-- KYC screening: dossiers (registered counterparties), runs and each run's
-- event log. A run's background job (River, queue "kyc") is inserted in the
-- same transaction as the run; each event insert notifies channel
-- "pipeline" with "run_id:seq" in its own transaction.
CREATE TABLE kyc_dossiers (
    entity_id       uuid PRIMARY KEY,
    member_id       uuid NOT NULL REFERENCES members(id),
    -- normalized company name and country: a member's dossiers are unique on it.
    name_key        text NOT NULL,
    company_name    text NOT NULL CHECK (length(company_name) BETWEEN 1 AND 1200),
    country         text NOT NULL DEFAULT '',
    product         text NOT NULL DEFAULT '',
    directors       text[] NOT NULL DEFAULT '{}',
    metadata        jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- the completion of its latest completed run; the 90-day re-screen reads it.
    last_screened_at timestamptz,
    UNIQUE (member_id, name_key)
);
CREATE INDEX kyc_dossiers_due ON kyc_dossiers (last_screened_at);

CREATE TABLE kyc_runs (
    id                uuid PRIMARY KEY,
    member_id         uuid NOT NULL REFERENCES members(id),
    entity_id         uuid NOT NULL REFERENCES kyc_dossiers(entity_id),
    kind              text NOT NULL CHECK (kind IN ('screen', 'rescreen', 'scheduled')),
    status            text NOT NULL CHECK (status IN ('queued', 'running', 'completed')),
    -- what was screened (a copy: the dossier may change later).
    input             jsonb NOT NULL,
    initial_verdict   text NOT NULL DEFAULT '' CHECK (initial_verdict IN ('', 'fail', 'review', 'pending')),
    verdict           text NOT NULL CHECK (verdict IN ('fail', 'review', 'pending', 'pass')),
    verdict_reasoning text NOT NULL,
    created_at        timestamptz NOT NULL,
    completed_at      timestamptz
);
CREATE INDEX kyc_runs_entity ON kyc_runs (entity_id, created_at DESC);
-- at most one unfinished scheduled re-screen per dossier.
CREATE UNIQUE INDEX kyc_runs_one_scheduled ON kyc_runs (entity_id) WHERE kind = 'scheduled' AND status <> 'completed';

CREATE TABLE kyc_run_events (
    run_id      uuid NOT NULL REFERENCES kyc_runs(id),
    seq         int NOT NULL CHECK (seq BETWEEN 1 AND 7),
    step        text NOT NULL,
    status      text NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    emitted_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    summary     text NOT NULL,
    payload     jsonb NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- +goose Down
DROP TABLE kyc_run_events;
DROP TABLE kyc_runs;
DROP TABLE kyc_dossiers;
