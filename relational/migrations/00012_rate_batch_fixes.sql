-- +goose Up
-- rate_gcra_allow (00010) answered a denied request with the tat read in
-- its statement's snapshot, taken before it waited for another batch's
-- lock on the bucket: older than the tat that denied it, so the wait
-- (Retry-After) could be far too short (down to the 1 s floor). A denied
-- request now reads the tat again, as the bucket is after the wait.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rate_gcra_allow(p_buckets text[], p_incs interval[], p_tols interval[])
RETURNS TABLE (o_ord integer, o_allowed boolean, o_tat timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    b text;
    i integer;
BEGIN
    FOR b, i IN SELECT u.b, u.o::integer FROM unnest(p_buckets) WITH ORDINALITY AS u(b, o) ORDER BY u.b, u.o LOOP
        o_ord := i;
        WITH cur AS (
            SELECT greatest(coalesce((SELECT g.tat FROM rate_gcra g WHERE g.bucket = b), clock_timestamp()), clock_timestamp()) AS t
        ), upd AS (
            INSERT INTO rate_gcra AS g (bucket, tat) SELECT b, cur.t + p_incs[i] FROM cur
            WHERE cur.t - clock_timestamp() <= p_tols[i]
            ON CONFLICT (bucket) DO UPDATE SET tat = greatest(g.tat, clock_timestamp()) + p_incs[i]
                WHERE greatest(g.tat, clock_timestamp()) - clock_timestamp() <= p_tols[i]
            RETURNING g.tat
        )
        SELECT EXISTS (SELECT 1 FROM upd), (SELECT cur.t FROM cur) INTO o_allowed, o_tat;
        IF NOT o_allowed THEN
            -- A new snapshot: the bucket as it is now (locked by us when the
            -- upsert's condition failed), unchanged by this request.
            SELECT greatest(coalesce(max(g.tat), o_tat), o_tat) INTO o_tat FROM rate_gcra g WHERE g.bucket = b;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- rate_quota_count (00010) ended the day at day_start + interval '1 day'
-- computed on a timestamptz, that is in the session's TimeZone: on a day
-- its clocks change, 23 or 25 hours after 00:00 UTC, so a denied quota
-- reported the wrong time to its reset. The end is now computed in UTC, as
-- the single-request statement before 00010 did.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rate_quota_count(p_buckets text[])
RETURNS TABLE (o_ord integer, o_count integer, o_end timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    b text;
    i integer;
    utc_day timestamp;
BEGIN
    FOR b, i IN SELECT u.b, u.o::integer FROM unnest(p_buckets) WITH ORDINALITY AS u(b, o) ORDER BY u.b, u.o LOOP
        o_ord := i;
        utc_day := date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC');
        INSERT INTO rate_counters AS c (bucket, window_start, window_end, count)
        VALUES (b, utc_day AT TIME ZONE 'UTC', (utc_day + interval '1 day') AT TIME ZONE 'UTC', 1)
        ON CONFLICT (bucket, window_start) DO UPDATE SET count = c.count + 1
        RETURNING c.count, c.window_end INTO o_count, o_end;
        RETURN NEXT;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rate_gcra_allow(p_buckets text[], p_incs interval[], p_tols interval[])
RETURNS TABLE (o_ord integer, o_allowed boolean, o_tat timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    b text;
    i integer;
BEGIN
    FOR b, i IN SELECT u.b, u.o::integer FROM unnest(p_buckets) WITH ORDINALITY AS u(b, o) ORDER BY u.b, u.o LOOP
        o_ord := i;
        WITH cur AS (
            SELECT greatest(coalesce((SELECT g.tat FROM rate_gcra g WHERE g.bucket = b), clock_timestamp()), clock_timestamp()) AS t
        ), upd AS (
            INSERT INTO rate_gcra AS g (bucket, tat) SELECT b, cur.t + p_incs[i] FROM cur
            WHERE cur.t - clock_timestamp() <= p_tols[i]
            ON CONFLICT (bucket) DO UPDATE SET tat = greatest(g.tat, clock_timestamp()) + p_incs[i]
                WHERE greatest(g.tat, clock_timestamp()) - clock_timestamp() <= p_tols[i]
            RETURNING g.tat
        )
        SELECT EXISTS (SELECT 1 FROM upd), (SELECT cur.t FROM cur) INTO o_allowed, o_tat;
        RETURN NEXT;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rate_quota_count(p_buckets text[])
RETURNS TABLE (o_ord integer, o_count integer, o_end timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    b text;
    i integer;
    day_start timestamptz;
BEGIN
    FOR b, i IN SELECT u.b, u.o::integer FROM unnest(p_buckets) WITH ORDINALITY AS u(b, o) ORDER BY u.b, u.o LOOP
        o_ord := i;
        day_start := date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
        INSERT INTO rate_counters AS c (bucket, window_start, window_end, count)
        VALUES (b, day_start, day_start + interval '1 day', 1)
        ON CONFLICT (bucket, window_start) DO UPDATE SET count = c.count + 1
        RETURNING c.count, c.window_end INTO o_count, o_end;
        RETURN NEXT;
    END LOOP;
END
$$;
-- +goose StatementEnd
