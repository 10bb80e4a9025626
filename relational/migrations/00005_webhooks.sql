-- +goose Up
-- Webhooks: members' subscriptions, the events that happened to their
-- objects, and one delivery per (event, subscription). A delivery is worked
-- by a River job (table river_job, created by River's own migrator from
-- `compliance migrate`) inserted in the same transaction.
CREATE TABLE webhook_subscriptions (
    id               uuid PRIMARY KEY,
    member_id        uuid NOT NULL REFERENCES members(id),
    url              text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    events           text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 50),
    delivery_format  text NOT NULL CHECK (delivery_format IN ('raw', 'slack', 'teams')),
    description      text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
    -- the signing secret, "whsec_" + base64; it must be kept to sign.
    secret           text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- set when a receiver answered 410 Gone: no more deliveries.
    disabled_at      timestamptz,
    disabled_reason  text,
    -- soft delete: no more deliveries; its events and dead letters stay.
    deleted_at       timestamptz
);
CREATE INDEX webhook_subscriptions_member ON webhook_subscriptions (member_id, created_at DESC)
    WHERE deleted_at IS NULL;

-- Only events some subscription wanted are recorded.
CREATE TABLE webhook_events (
    id           uuid PRIMARY KEY,
    member_id    uuid NOT NULL REFERENCES members(id),
    type         text NOT NULL,
    -- json, not jsonb: the payload keeps its text, and its members their order.
    payload      json NOT NULL,
    occurred_at  timestamptz NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
    -- also the webhook-id header of every attempt, so receivers can deduplicate.
    id               uuid PRIMARY KEY,
    event_id         uuid NOT NULL REFERENCES webhook_events(id),
    subscription_id  uuid NOT NULL REFERENCES webhook_subscriptions(id),
    member_id        uuid NOT NULL REFERENCES members(id),
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'delivering', 'delivered', 'failed', 'dlq')),
    attempt_count    integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    response_code    integer,
    last_error       text,
    -- bumped by a replay; a job carries the generation it was queued for, so
    -- a stale job of an earlier generation does nothing.
    generation       integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    queued_at        timestamptz NOT NULL DEFAULT now(),
    last_attempt_at  timestamptz,
    next_attempt_at  timestamptz,
    delivered_at     timestamptz,
    UNIQUE (event_id, subscription_id)
);
CREATE INDEX webhook_deliveries_member ON webhook_deliveries (member_id, created_at DESC, id);
CREATE INDEX webhook_deliveries_member_status ON webhook_deliveries (member_id, status, created_at DESC);
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at DESC);
-- The queue-depth gauge counts rows not yet delivered.
CREATE INDEX webhook_deliveries_undelivered ON webhook_deliveries (status) WHERE status <> 'delivered';

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_subscriptions;
