-- +goose Up
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
