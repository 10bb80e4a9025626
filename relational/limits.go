package relational

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph"
)

var _ graph.Limiter = (*DB)(nil)

// Allow and Quota write on the asynchronous-commit pool: counts survive
// everything but the last few milliseconds before a crash.

// Allow implements a rolling limit with the generic cell rate algorithm:
// each bucket keeps a theoretical arrival time (tat); a request is allowed
// when tat - now <= Per - Per/N, and then moves tat on by Per/N. Concurrent
// calls are counted together by one call of rate_gcra_allow (migration
// 00010), each as if alone, so every instance sharing the database sees the
// same limit. It fails when the database does.
func (db *DB) Allow(ctx context.Context, bucket string, l graph.Limit) (bool, time.Duration, error) {
	interval := l.Per / time.Duration(l.N)
	tolerance := l.Per - interval
	res, err := db.gcra.do(ctx, gcraReq{bucket: bucket, interval: interval, tolerance: tolerance})
	if err != nil {
		return false, 0, fmt.Errorf("rate limit: %w", err)
	}
	if res.allowed {
		return true, 0, nil
	}
	wait := time.Until(res.tat.Add(-tolerance))
	if wait < time.Second {
		wait = time.Second
	}
	return false, wait, nil
}

type gcraReq struct {
	bucket              string
	interval, tolerance time.Duration
}

type gcraRes struct {
	allowed bool
	tat     time.Time // the bucket's tat before this request
}

// allowBatch counts a batch of requests in one statement.
func (db *DB) allowBatch(ctx context.Context, reqs []gcraReq) ([]gcraRes, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	buckets := make([]string, len(reqs))
	incs := make([]time.Duration, len(reqs))
	tols := make([]time.Duration, len(reqs))
	for i, r := range reqs {
		buckets[i], incs[i], tols[i] = r.bucket, r.interval, r.tolerance
	}
	rows, err := db.counters.Query(ctx, `SELECT o_ord, o_allowed, o_tat FROM rate_gcra_allow($1, $2, $3)`, buckets, incs, tols)
	var r gcraRes
	return byOrdinal(rows, err, len(reqs), &r, &r.allowed, &r.tat)
}

// byOrdinal collects the rows of a batch function answering n requests,
// each row its request's 1-based ordinal followed by dst's fields (the
// scan targets), into one T per request in request order. It fails when
// the query did or when a request is left unanswered.
func byOrdinal[T any](rows pgx.Rows, err error, n int, dst *T, fields ...any) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	seen := 0
	var ord int
	_, err = pgx.ForEachRow(rows, append([]any{&ord}, fields...), func() error {
		if ord < 1 || ord > n {
			return fmt.Errorf("batch answered for request %d of %d", ord, n)
		}
		out[ord-1] = *dst
		seen++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if seen != n {
		return nil, fmt.Errorf("batch answered %d of %d requests", seen, n)
	}
	return out, nil
}

// Quota counts one call in today's (UTC) window of bucket and reports
// whether it is within perDay; when not, it returns the time to midnight
// UTC. Concurrent calls are counted together by one call of
// rate_quota_count (migration 00010). It fails when the database does.
func (db *DB) Quota(ctx context.Context, bucket string, perDay int) (bool, time.Duration, error) {
	r, err := db.quota.do(ctx, bucket)
	if err != nil {
		return false, 0, fmt.Errorf("quota: %w", err)
	}
	if r.count <= perDay {
		return true, 0, nil
	}
	return false, time.Until(r.end), nil
}

type quotaRes struct {
	count int
	end   time.Time // the end of the bucket's day
}

// quotaBatch counts a batch of calls in one statement.
func (db *DB) quotaBatch(ctx context.Context, buckets []string) ([]quotaRes, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.counters.Query(ctx, `SELECT o_ord, o_count, o_end FROM rate_quota_count($1)`, buckets)
	var r quotaRes
	return byOrdinal(rows, err, len(buckets), &r, &r.count, &r.end)
}

// PruneLimits deletes counters and rolling limits that no longer matter.
func (db *DB) PruneLimits(ctx context.Context) error {
	_, err := db.Pool.Exec(ctx, `DELETE FROM rate_counters WHERE window_end < now() - interval '1 day'`)
	if err == nil {
		// Locked in bucket order, as rate_gcra_allow does, so the two
		// never wait on each other in a cycle.
		_, err = db.Pool.Exec(ctx, `DELETE FROM rate_gcra WHERE bucket IN (
			SELECT bucket FROM rate_gcra WHERE tat < now() - interval '1 day' ORDER BY bucket FOR UPDATE)`)
	}
	return err
}
