-- +goose Up
-- Rolling limits counted in batches: one call answers many requests, each
-- exactly as the single-request statement did (GCRA, see limits.go), in
-- bucket order so that two instances' batches never wait on each other in
-- a cycle. A bucket named twice is counted twice, in the order given. The time is
-- the clock's when the row is counted, not the transaction's start (now()):
-- a batch that waited on another's row lock would otherwise count with an
-- earlier time than the rows it waited for, and refuse requests the limit
-- allows. A denied request reads the bucket again after its wait, so that
-- its Retry-After is measured from the tat that denied it.
-- +goose StatementBegin
CREATE FUNCTION rate_gcra_allow(p_buckets text[], p_incs interval[], p_tols interval[])
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

-- Daily quotas counted in batches, in bucket order as above: each request
-- adds one to its bucket's count for the current UTC day, whose end is
-- computed in UTC (not in the session's TimeZone, where a day may last 23
-- or 25 hours).
-- +goose StatementBegin
CREATE FUNCTION rate_quota_count(p_buckets text[])
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
DROP FUNCTION rate_quota_count(text[]);
DROP FUNCTION rate_gcra_allow(text[], interval[], interval[]);
