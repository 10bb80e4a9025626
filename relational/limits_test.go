package relational_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

// twoHandles returns two DBs (two pools) on one fresh database, as two
// service instances sharing it would have.
func twoHandles(t *testing.T) (*relational.DB, *relational.DB) {
	t.Helper()
	url := relationaltest.NewURL(t)
	var dbs [2]*relational.DB
	for i := range dbs {
		db, err := relational.Open(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		dbs[i] = db
	}
	return dbs[0], dbs[1]
}

func TestAllowGCRA(t *testing.T) {
	ctx := context.Background()
	db1, db2 := twoHandles(t)
	lim := graph.Limit{N: 3, Per: time.Minute}
	interval := lim.Per / time.Duration(lim.N)

	// handle says which DB takes each call: three allowed across both, the
	// fourth denied on either, with a wait of about one interval (20 s).
	tests := []struct {
		name   string
		handle []int
	}{
		{"one handle", []int{1, 1, 1, 1}},
		{"split 2+1, denied on the other", []int{1, 1, 2, 1}},
		{"alternating", []int{1, 2, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := "test:" + tt.name
			for i, h := range tt.handle {
				db := db1
				if h == 2 {
					db = db2
				}
				ok, wait, err := db.Allow(ctx, bucket, lim)
				if err != nil {
					t.Fatal(err)
				}
				wantOK := i < lim.N
				if ok != wantOK {
					t.Fatalf("Allow #%d on handle %d = %v, want %v", i+1, h, ok, wantOK)
				}
				if ok && wait != 0 {
					t.Errorf("Allow #%d = true with wait %v, want 0", i+1, wait)
				}
				if !ok && (wait <= 0 || wait > interval+time.Second) {
					t.Errorf("Allow #%d denied with wait %v, want 0 < wait <= %v", i+1, wait, interval+time.Second)
				}
			}
			// The other handle sees the same exhausted bucket.
			if ok, _, _ := db2.Allow(ctx, bucket, lim); ok {
				t.Errorf("Allow on handle 2 after the limit = true, want false: the bucket is shared")
			}
		})
	}

	t.Run("buckets are independent", func(t *testing.T) {
		for i := range lim.N {
			if ok, _, err := db1.Allow(ctx, "test:independent:a", lim); !ok || err != nil {
				t.Fatalf("Allow(a) #%d = %v, %v", i+1, ok, err)
			}
		}
		if ok, _, _ := db1.Allow(ctx, "test:independent:a", lim); ok {
			t.Fatalf("Allow(a) past the limit = true")
		}
		if ok, _, err := db1.Allow(ctx, "test:independent:b", lim); !ok || err != nil {
			t.Errorf("Allow(b) after a is exhausted = %v, %v; want true", ok, err)
		}
	})

	t.Run("a wait of one interval frees one request", func(t *testing.T) {
		short := graph.Limit{N: 2, Per: 2 * time.Second} // interval 1 s
		bucket := "test:refill"
		for range short.N {
			db1.Allow(ctx, bucket, short)
		}
		ok, wait, _ := db1.Allow(ctx, bucket, short)
		if ok || wait <= 0 || wait > 2*time.Second {
			t.Fatalf("Allow past a 2/2s limit = %v, wait %v; want denied with 0 < wait <= 2s", ok, wait)
		}
		time.Sleep(wait)
		if ok, _, _ := db2.Allow(ctx, bucket, short); !ok {
			t.Errorf("Allow after waiting %v = false, want true", wait)
		}
		if ok, _, _ := db2.Allow(ctx, bucket, short); ok {
			t.Errorf("Allow right after the freed request = true, want false")
		}
	})

	t.Run("concurrent callers on two handles", func(t *testing.T) {
		five := graph.Limit{N: 5, Per: time.Minute}
		var allowed atomic.Int32
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				db := db1
				if i%2 == 1 {
					db = db2
				}
				ok, _, err := db.Allow(ctx, "test:concurrent", five)
				if err != nil {
					t.Error(err)
				}
				if ok {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		if n := allowed.Load(); n != 5 {
			t.Errorf("40 concurrent Allow under 5 per minute: %d allowed, want 5", n)
		}
	})
}

// TestAllowBatchedAcrossBuckets sends many concurrent requests over
// several buckets from two handles, so that batches hold several buckets,
// some more than once, and the two handles' batches touch the same rows in
// the same transaction-long locks: each bucket still allows exactly its
// limit, and no batch fails (a lock-order cycle would show as a deadlock
// error).
func TestAllowBatchedAcrossBuckets(t *testing.T) {
	ctx := context.Background()
	db1, db2 := twoHandles(t)
	lim := graph.Limit{N: 4, Per: time.Minute}
	const buckets, perBucket = 12, 25
	var allowed [buckets]atomic.Int32
	var wg sync.WaitGroup
	for i := range buckets * perBucket {
		wg.Go(func() {
			db := db1
			if i%3 == 0 {
				db = db2
			}
			b := (i * 7) % buckets // interleaved, so each batch mixes buckets in no order
			ok, _, err := db.Allow(ctx, fmt.Sprintf("test:batched:%02d", b), lim)
			if err != nil {
				t.Errorf("Allow: %v", err)
			}
			if ok {
				allowed[b].Add(1)
			}
		})
	}
	wg.Wait()
	for b := range allowed {
		if n := allowed[b].Load(); n != int32(lim.N) {
			t.Errorf("bucket %d: %d of %d concurrent requests allowed, want %d", b, n, perBucket, lim.N)
		}
	}
}

func TestQuotaDaily(t *testing.T) {
	ctx := context.Background()
	db1, db2 := twoHandles(t)
	untilMidnight := func() time.Duration {
		now := time.Now().UTC()
		return time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now)
	}

	tests := []struct {
		name   string
		handle []int
	}{
		{"one handle", []int{1, 1, 1, 1}},
		{"split across handles", []int{1, 2, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := "day:test:" + tt.name
			for i, h := range tt.handle {
				db := db1
				if h == 2 {
					db = db2
				}
				ok, wait, err := db.Quota(ctx, bucket, 2)
				if err != nil {
					t.Fatal(err)
				}
				if wantOK := i < 2; ok != wantOK {
					t.Fatalf("Quota #%d of 2 per day on handle %d = %v, want %v", i+1, h, ok, wantOK)
				}
				if ok && wait != 0 {
					t.Errorf("Quota #%d = true with wait %v, want 0", i+1, wait)
				}
				if !ok {
					if wait <= 0 || wait > 24*time.Hour {
						t.Errorf("Quota #%d denied with retry %v, want 0 < retry <= 24h", i+1, wait)
					}
					if d := untilMidnight() - wait; d < -2*time.Second || d > 2*time.Second {
						t.Errorf("Quota #%d retry = %v, want the time to 00:00 UTC (%v)", i+1, wait, untilMidnight())
					}
				}
			}
		})
	}

	t.Run("concurrent callers on two handles", func(t *testing.T) {
		var allowed atomic.Int32
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				db := db1
				if i%2 == 1 {
					db = db2
				}
				ok, _, err := db.Quota(ctx, "day:test:concurrent", 7)
				if err != nil {
					t.Error(err)
				}
				if ok {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		if n := allowed.Load(); n != 7 {
			t.Errorf("30 concurrent Quota calls under 7 per day: %d allowed, want 7", n)
		}
	})

	t.Run("yesterday's window does not count", func(t *testing.T) {
		bucket := "day:test:yesterday"
		_, err := db1.Pool.Exec(ctx, `INSERT INTO rate_counters (bucket, window_start, window_end, count)
			VALUES ($1, date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day',
			        date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 1000)`, bucket)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _, err := db1.Quota(ctx, bucket, 1); !ok || err != nil {
			t.Errorf("Quota after a full window yesterday = %v, %v; want true", ok, err)
		}
	})
}

func TestPruneLimits(t *testing.T) {
	ctx := context.Background()
	db := relationaltest.New(t)
	db.Quota(ctx, "day:current", 5)
	db.Allow(ctx, "route:current", graph.Limit{N: 1, Per: time.Minute})
	_, err := db.Pool.Exec(ctx, `
		INSERT INTO rate_counters (bucket, window_start, window_end, count) VALUES ('day:old', now() - interval '3 days', now() - interval '2 days', 9);
		INSERT INTO rate_gcra (bucket, tat) VALUES ('route:old', now() - interval '2 days')`)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PruneLimits(ctx); err != nil {
		t.Fatal(err)
	}
	var buckets []string
	db.Pool.QueryRow(ctx, `SELECT array_agg(bucket ORDER BY bucket) FROM (SELECT bucket FROM rate_counters UNION ALL SELECT bucket FROM rate_gcra) t`).Scan(&buckets)
	if fmt.Sprint(buckets) != "[day:current route:current]" {
		t.Errorf("buckets after PruneLimits = %v, want [day:current route:current]", buckets)
	}
}

// TestSandboxIssuanceLimits checks the sandbox issuance limits the store
// enforces: 3 keys per address per hour and 5 per email per day, exact under
// concurrency across two handles.
func TestSandboxIssuanceLimits(t *testing.T) {
	ctx := context.Background()
	db1, db2 := twoHandles(t)
	keys := &graph.Keys{}
	issue := func(db *relational.DB, email, ip string) error {
		_, err := keys.IssueSandbox(ctx, db, graph.SandboxRequest{Email: email, ClientIP: ip})
		return err
	}
	tests := []struct {
		name      string
		email, ip string
		wantErr   bool
		maxRetry  time.Duration
	}{
		{"ip 1 key 1", "a@example.com", "10.0.0.1", false, 0},
		{"ip 1 key 2", "b@example.com", "10.0.0.1", false, 0},
		{"ip 1 key 3", "c@example.com", "10.0.0.1", false, 0},
		{"ip 1 key 4 refused", "d@example.com", "10.0.0.1", true, time.Hour},
		{"email x key 1", "x@example.com", "10.0.0.2", false, 0},
		{"email x key 2", "x@example.com", "10.0.0.2", false, 0},
		{"email x key 3", "X@Example.com", "10.0.0.3", false, 0},
		{"email x key 4", "x@example.com", "10.0.0.3", false, 0},
		{"email x key 5", "x@example.com", "10.0.0.4", false, 0},
		{"email x key 6 refused", "x@example.com", "10.0.0.5", true, 24 * time.Hour},
		{"email x key 6 refused, upper case", " X@EXAMPLE.COM", "10.0.0.6", true, 24 * time.Hour},
		{"ipv6", "v6@example.com", "2001:db8::1", false, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := db1
			if i%2 == 1 {
				db = db2
			}
			err := issue(db, tt.email, tt.ip)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("IssueSandbox(%s, %s) error = %v", tt.email, tt.ip, err)
				}
				return
			}
			e := graph.AsError(err)
			if err == nil || e.Code != graph.CodeRateLimited {
				t.Fatalf("IssueSandbox(%s, %s) error = %v, want rate_limited", tt.email, tt.ip, err)
			}
			secs, _ := e.Details["retry_after_seconds"].(int)
			if secs < 1 || time.Duration(secs)*time.Second > tt.maxRetry+time.Second {
				t.Errorf("IssueSandbox(%s, %s) retry_after_seconds = %d, want 1..%v", tt.email, tt.ip, secs, tt.maxRetry)
			}
		})
	}
	var members, sandboxKeys int
	db1.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM members WHERE name = 'sandbox:x@example.com'),
		(SELECT count(*) FROM api_keys k JOIN members m ON m.id = k.member_id WHERE m.name = 'sandbox:x@example.com'
			AND k.environment = 'sandbox' AND k.daily_call_cap = 100 AND k.expires_at > now() + interval '29 days')`).Scan(&members, &sandboxKeys)
	if members != 1 || sandboxKeys != 5 {
		t.Errorf("x@example.com has %d sandbox members and %d keys (100 a day, 30 days), want 1 and 5", members, sandboxKeys)
	}

	t.Run("concurrent requests from one address", func(t *testing.T) {
		var ok atomic.Int32
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Go(func() {
				db := db1
				if i%2 == 1 {
					db = db2
				}
				err := issue(db, fmt.Sprintf("c%d@example.com", i), "10.1.1.1")
				switch graph.ErrorCode(err) {
				case "":
					ok.Add(1)
				case graph.CodeRateLimited:
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n := ok.Load(); n != 3 {
			t.Errorf("12 concurrent sandbox requests from one address: %d keys issued, want 3", n)
		}
	})
}

// TestQuotaResetWhereTheSessionHasDST: the daily quota resets at 00:00 UTC
// and the wait it reports is the time to that, whatever the database
// session's TimeZone (the server's default, often local time where it was
// installed). The session here is in a zone whose clocks go forward at
// 12:00 today, so that its calendar day is 23 hours long: a window end
// computed as "UTC midnight + 1 day" in the session's zone would be one
// hour early.
func TestQuotaResetWhereTheSessionHasDST(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	if now.Hour() == 23 && now.Minute() >= 55 {
		t.Skip("too close to 00:00 UTC")
	}
	// POSIX rule: standard time UTC+0, summer time UTC+1 from today (this
	// month's nth such weekday) at 12:00 to next month's first Sunday.
	tz := fmt.Sprintf("XST0XDT,M%d.%d.%d/12,M%d.1.0", int(now.Month()), (now.Day()-1)/7+1, int(now.Weekday()), int(now.Month())%12+1)
	u, err := url.Parse(relationaltest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("timezone", tz)
	u.RawQuery = q.Encode()
	db, err := relational.Open(ctx, u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	var day time.Duration
	if err := db.Pool.QueryRow(ctx, `SELECT extract(epoch FROM (date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day')
		- date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::bigint`).Scan(&day); err != nil {
		t.Fatal(err)
	}
	if day*time.Second != 23*time.Hour {
		t.Fatalf("the session's zone %q does not make today 23 hours long (%v): the test's premise fails", tz, day*time.Second)
	}

	if ok, _, err := db.Quota(ctx, "day:test:dst", 1); !ok || err != nil {
		t.Fatalf("first Quota = %v, %v", ok, err)
	}
	ok, wait, err := db.Quota(ctx, "day:test:dst", 1)
	if ok || err != nil {
		t.Fatalf("second Quota of 1 per day = %v, %v; want denied", ok, err)
	}
	untilMidnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(time.Now())
	if d := untilMidnight - wait; d < -2*time.Second || d > 2*time.Second {
		t.Errorf("denied Quota's wait = %v, want the time to 00:00 UTC (%v)", wait, untilMidnight)
	}
}

// TestQuotaNotChargedForAnEndedRequest: a request whose context has ended
// (the client went away) gets an error and is not counted.
func TestQuotaNotChargedForAnEndedRequest(t *testing.T) {
	db := relationaltest.New(t)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := db.Quota(gone, "day:test:gone", 1); err == nil {
		t.Fatalf("Quota with an ended context: no error")
	}
	if _, _, err := db.Allow(gone, "test:gone", graph.Limit{N: 1, Per: time.Minute}); err == nil {
		t.Fatalf("Allow with an ended context: no error")
	}
	if ok, _, err := db.Quota(context.Background(), "day:test:gone", 1); !ok || err != nil {
		t.Errorf("Quota after an ended request = %v, %v; want the one call of the day allowed", ok, err)
	}
	if ok, _, err := db.Allow(context.Background(), "test:gone", graph.Limit{N: 1, Per: time.Minute}); !ok || err != nil {
		t.Errorf("Allow after an ended request = %v, %v; want allowed", ok, err)
	}
}

// TestAllowDeniedWaitUnderContention: every request denied by a rolling
// limit is told how long until one is allowed (Retry-After), measured
// against the bucket as it was when the request was counted, not an older
// snapshot read while another batch held the bucket.
func TestAllowDeniedWaitUnderContention(t *testing.T) {
	ctx := context.Background()
	db1, db2 := twoHandles(t)
	lim := graph.Limit{N: 4, Per: time.Minute} // 15 s apart; the 5th waits ~15 s
	var wg sync.WaitGroup
	var short atomic.Int32
	var minWait atomic.Int64
	minWait.Store(int64(time.Hour))
	for i := range 300 {
		wg.Go(func() {
			db := db1
			if i%2 == 1 {
				db = db2
			}
			ok, wait, err := db.Allow(ctx, fmt.Sprintf("test:contended:%d", i%3), lim)
			if err != nil {
				t.Error(err)
				return
			}
			if !ok && wait < 10*time.Second {
				short.Add(1)
				for {
					m := minWait.Load()
					if int64(wait) >= m || minWait.CompareAndSwap(m, int64(wait)) {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	if n := short.Load(); n > 0 {
		t.Errorf("%d of 288 denied requests were told to retry in under 10 s (shortest %v); the next is allowed in about 15 s", n, time.Duration(minWait.Load()))
	}
}
