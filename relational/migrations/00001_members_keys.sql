-- +goose Up
-- Members own everything a customer creates; keys authenticate a member.
CREATE TABLE members (
    id           uuid PRIMARY KEY,
    name         text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    -- scopes the member's plan allows; keys carry a subset.
    plan_scopes  text[] NOT NULL,
    -- 'aggregable' or 'private': the default data class of the member's rows.
    data_class   text NOT NULL DEFAULT 'aggregable' CHECK (data_class IN ('aggregable', 'private')),
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id              uuid PRIMARY KEY,
    member_id       uuid NOT NULL REFERENCES members(id),
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    -- the visible start of the raw key; the raw key itself is never stored.
    key_prefix      text NOT NULL,
    -- SHA-256 of the raw key.
    key_hash        bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    environment     text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    scopes          text[] NOT NULL,
    daily_call_cap  integer CHECK (daily_call_cap IS NULL OR daily_call_cap > 0),
    is_active       boolean NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz,
    last_used_at    timestamptz,
    revoked_at      timestamptz,
    -- sandbox issuance: the requester's email and address, for quotas.
    issued_to_email text,
    issued_to_ip    inet
);
CREATE INDEX api_keys_member ON api_keys (member_id, created_at DESC);
CREATE INDEX api_keys_sandbox_email ON api_keys (lower(issued_to_email), created_at) WHERE environment = 'sandbox';
CREATE INDEX api_keys_sandbox_ip ON api_keys (issued_to_ip, created_at) WHERE environment = 'sandbox';

-- +goose Down
DROP TABLE api_keys;
DROP TABLE members;
