package relational

import (
	"context"
	"fmt"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

var _ graph.Limiter = (*DB)(nil)

// Allow and Quota write on the asynchronous-commit pool: counts survive
// everything but the last few milliseconds before a crash.

// Allow implements a rolling limit with the generic cell rate algorithm:
// each bucket keeps a theoretical arrival time (tat); a request is allowed
// when tat - now <= Per - Per/N, and then moves tat on by Per/N. One
// statement, so every instance sharing the database sees the same limit.
func (db *DB) Allow(ctx context.Context, bucket string, l graph.Limit) (bool, time.Duration, error) {
	interval := l.Per / time.Duration(l.N)
	tolerance := l.Per - interval
	var tat time.Time
	var allowed bool
	err := db.counters.QueryRow(ctx, `
		WITH cur AS (
			SELECT greatest(coalesce((SELECT tat FROM rate_gcra WHERE bucket = $1), now()), now()) AS t
		), upd AS (
			INSERT INTO rate_gcra AS g (bucket, tat) SELECT $1, t + $2::interval FROM cur
			WHERE (SELECT t FROM cur) - now() <= $3::interval
			ON CONFLICT (bucket) DO UPDATE SET tat = greatest(g.tat, now()) + $2::interval
				WHERE greatest(g.tat, now()) - now() <= $3::interval
			RETURNING tat
		)
		SELECT EXISTS (SELECT 1 FROM upd), (SELECT t FROM cur)`,
		bucket, interval, tolerance).Scan(&allowed, &tat)
	if err != nil {
		return false, 0, fmt.Errorf("rate limit: %w", err)
	}
	if allowed {
		return true, 0, nil
	}
	wait := time.Until(tat.Add(-tolerance))
	if wait < time.Second {
		wait = time.Second
	}
	return false, wait, nil
}

// Quota counts one call in today's (UTC) window of bucket and reports
// whether it is within perDay; when not, it returns the time to midnight UTC.
func (db *DB) Quota(ctx context.Context, bucket string, perDay int) (bool, time.Duration, error) {
	var count int
	var end time.Time
	err := db.counters.QueryRow(ctx, `
		INSERT INTO rate_counters AS c (bucket, window_start, window_end, count)
		VALUES ($1, date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
		        (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC', 1)
		ON CONFLICT (bucket, window_start) DO UPDATE SET count = c.count + 1
		RETURNING count, window_end`, bucket).Scan(&count, &end)
	if err != nil {
		return false, 0, fmt.Errorf("quota: %w", err)
	}
	if count <= perDay {
		return true, 0, nil
	}
	return false, time.Until(end), nil
}

// PruneLimits deletes counters and rolling limits that no longer matter.
func (db *DB) PruneLimits(ctx context.Context) error {
	_, err := db.Pool.Exec(ctx, `DELETE FROM rate_counters WHERE window_end < now() - interval '1 day'`)
	if err == nil {
		_, err = db.Pool.Exec(ctx, `DELETE FROM rate_gcra WHERE tat < now() - interval '1 day'`)
	}
	return err
}
