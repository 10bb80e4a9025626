-- +goose Up
-- The scam-cluster registry: teardown groups, entity records and their
-- aliases (each with its normalized key for the exact-match check),
-- customer submissions and their triage, and a version row that every
-- change bumps so each instance reloads its in-memory check index.
CREATE TABLE cluster_groups (
    id          uuid PRIMARY KEY,
    slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 120),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE cluster_records (
    id                uuid PRIMARY KEY,
    slug              text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 120),
    entity_name       text NOT NULL CHECK (length(entity_name) BETWEEN 2 AND 300),
    -- cluster.Normalize(entity_name): letters and digits, case folded.
    name_key          text NOT NULL CHECK (length(name_key) >= 2),
    severity          text NOT NULL CHECK (severity IN ('confirmed', 'likely', 'suspected')),
    country           text NOT NULL DEFAULT '' CHECK (country = '' OR country ~ '^[A-Z]{2}$'),
    group_id          uuid REFERENCES cluster_groups(id),
    added_at          timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    source            text NOT NULL DEFAULT '' CHECK (length(source) <= 1000),
    -- the sanctions list id the record was sourced from; '' when it was not
    -- (its sanctions network is then not_screened).
    sanctions_source  text NOT NULL DEFAULT '',
    -- protected-entity policy: sanctions links are withheld.
    protected         boolean NOT NULL DEFAULT false
);
CREATE INDEX cluster_records_name_key ON cluster_records (name_key);
CREATE INDEX cluster_records_group ON cluster_records (group_id);
CREATE INDEX cluster_records_added ON cluster_records (added_at, id);

CREATE TABLE cluster_aliases (
    record_id  uuid NOT NULL REFERENCES cluster_records(id) ON DELETE CASCADE,
    alias      text NOT NULL CHECK (length(alias) BETWEEN 1 AND 300),
    alias_key  text NOT NULL CHECK (length(alias_key) >= 2),
    position   integer NOT NULL,
    PRIMARY KEY (record_id, alias_key)
);
CREATE INDEX cluster_aliases_key ON cluster_aliases (alias_key);

-- One row: bumped in the transaction of every registry change.
CREATE TABLE cluster_registry_version (
    one         boolean PRIMARY KEY DEFAULT true CHECK (one),
    version     bigint NOT NULL,
    changed_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO cluster_registry_version (version) VALUES (0);

CREATE TABLE cluster_submissions (
    id                     uuid PRIMARY KEY,
    member_id              uuid NOT NULL REFERENCES members(id),
    key_id                 uuid NOT NULL REFERENCES api_keys(id),
    -- never shown by the API; lower-cased for the per-email daily limit.
    submitter_email        text NOT NULL,
    entity_name            text NOT NULL CHECK (length(entity_name) BETWEEN 2 AND 300),
    pitch_summary          text NOT NULL CHECK (length(pitch_summary) BETWEEN 40 AND 5000),
    details                jsonb NOT NULL DEFAULT '{}',
    triage_status          text NOT NULL DEFAULT 'pending'
                           CHECK (triage_status IN ('pending', 'accepted', 'rejected', 'duplicate')),
    submitted_at           timestamptz NOT NULL,
    triaged_at             timestamptz,
    triaged_by             text,
    triage_note            text,
    linked_blocklist_id    uuid REFERENCES cluster_records(id)
);
CREATE INDEX cluster_submissions_email ON cluster_submissions (submitter_email, submitted_at);
CREATE INDEX cluster_submissions_status ON cluster_submissions (triage_status, submitted_at);

-- +goose Down
DROP TABLE cluster_submissions;
DROP TABLE cluster_registry_version;
DROP TABLE cluster_aliases;
DROP TABLE cluster_records;
DROP TABLE cluster_groups;
