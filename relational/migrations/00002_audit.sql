-- +goose Up
-- The audit trail: one row per request, append-only and hash-chained.
CREATE TABLE audit_log (
    seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id       text NOT NULL,
    route            text NOT NULL,
    method           text NOT NULL,
    scope            text,
    member_id        uuid,
    key_id           uuid,
    response_status  integer NOT NULL,
    response_sha256  bytea NOT NULL CHECK (length(response_sha256) = 32),
    client_ip        text NOT NULL,
    user_agent       text NOT NULL,
    duration_ms      double precision NOT NULL,
    -- strictly increasing across the whole table, so a cursor is exact.
    logged_at        timestamptz NOT NULL UNIQUE,
    -- row_hash = SHA-256(prev_hash || canonical row); see relational/audit.go.
    prev_hash        bytea NOT NULL CHECK (length(prev_hash) = 32),
    row_hash         bytea NOT NULL CHECK (length(row_hash) = 32)
);
CREATE INDEX audit_log_member_time ON audit_log (member_id, logged_at DESC);

-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- +goose Down
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
