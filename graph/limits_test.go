package graph

import (
	"context"
	"testing"
	"time"
)

func TestRouteLimits(t *testing.T) {
	for pattern, l := range RouteLimits {
		if l.N <= 0 || l.Per <= 0 {
			t.Errorf("%s: limit %+v, want N > 0 and Per > 0", pattern, l)
		}
	}
	if l := RouteLimit("GET /api/v1/clusters/check"); l == nil || *l != (Limit{N: 120, Per: time.Minute}) {
		t.Errorf("RouteLimit(cluster check) = %v, want 120 per minute (the spec's)", l)
	}
	if l := RouteLimit("GET /api/v1/keys"); l != nil {
		t.Errorf("RouteLimit(a route without one) = %v, want nil", l)
	}
}

// countingLimiter allows everything and counts the buckets asked for.
type countingLimiter struct{ buckets []string }

func (c *countingLimiter) Allow(_ context.Context, bucket string, _ Limit) (bool, time.Duration, error) {
	c.buckets = append(c.buckets, bucket)
	return true, 0, nil
}
func (c *countingLimiter) Quota(context.Context, string, int) (bool, time.Duration, error) {
	return true, 0, nil
}

func TestAllowRoute(t *testing.T) {
	caller := &Caller{Key: APIKey{ID: "k1"}}
	lim := &countingLimiter{}
	if err := AllowRoute(context.Background(), lim, "POST /api/v1/kyc/screen", caller); err != nil {
		t.Fatal(err)
	}
	if len(lim.buckets) != 1 || lim.buckets[0] != RouteBucket("POST /api/v1/kyc/screen", "key:k1") {
		t.Errorf("buckets = %v, want the REST route's bucket for the key", lim.buckets)
	}
	err := AllowRoute(context.Background(), lim, "POST /api/v1/kyc/scren", caller)
	if ErrorCode(err) != CodeInternal || len(lim.buckets) != 1 {
		t.Errorf("AllowRoute(unknown route) = %v, counted %d; want internal, not counted", err, len(lim.buckets)-1)
	}
}
