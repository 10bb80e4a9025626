package graph

import (
	"context"
	"fmt"
	"time"
)

// Limit is a rate limit: at most N requests per Per.
type Limit struct {
	N   int
	Per time.Duration
}

func (l Limit) String() string {
	switch l.Per {
	case time.Minute:
		return fmt.Sprintf("%d per minute", l.N)
	case time.Hour:
		return fmt.Sprintf("%d per hour", l.N)
	case 24 * time.Hour:
		return fmt.Sprintf("%d per day", l.N)
	}
	return fmt.Sprintf("%d per %s", l.N, l.Per)
}

// Limiter counts requests against limits shared by every instance.
type Limiter interface {
	// Allow records one request in bucket under a rolling limit (GCRA:
	// requests are spread so that no window of l.Per holds more than l.N).
	// When denied it returns false and how long until one is allowed.
	Allow(ctx context.Context, bucket string, l Limit) (bool, time.Duration, error)
	// Quota records one call against a daily quota that resets at 00:00
	// UTC. When exhausted it returns false and the time until the reset.
	Quota(ctx context.Context, bucket string, perDay int) (bool, time.Duration, error)
}

// RateLimited returns the rate_limited error for a limit, with the wait in
// its details; transports turn it into 429 with Retry-After.
func RateLimited(what string, retryAfter time.Duration) *Error {
	secs := int((retryAfter + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return &Error{
		Code:    CodeRateLimited,
		Message: fmt.Sprintf("%s; retry after %d seconds", what, secs),
		Details: map[string]any{"retry_after_seconds": secs},
	}
}

// RouteBucket names the bucket of a REST route's rolling limit for one
// caller; who is "key:<key id>" or "ip:<address>". A GraphQL field that
// answers as a REST route counts against the same bucket (AllowRoute), so
// the two transports share one limit.
func RouteBucket(pattern, who string) string { return "route:" + pattern + ":" + who }

// RouteLimits are the rolling limits of the routes that have one, by REST
// route pattern: per key, or per address on a keyless route. REST counts
// each request in its route's bucket (RouteBucket), and a GraphQL field
// that does a route's work counts in the same bucket (AllowRoute), so the
// two transports share one limit, declared here once.
var RouteLimits = map[string]Limit{
	"GET /api/v1/regulatory/countries":        {N: 60, Per: time.Minute},
	"GET /api/v1/regulatory/countries/{slug}": {N: 60, Per: time.Minute},
	"GET /api/v1/regulatory/check":            {N: 60, Per: time.Minute},
	"GET /api/v1/regulatory/products":         {N: 60, Per: time.Minute},
	"POST /api/v1/kyc/screen":                 {N: 30, Per: time.Minute},
	"POST /api/v1/kyc/rescreen":               {N: 30, Per: time.Minute},
	"GET /api/v1/clusters":                    {N: 60, Per: time.Minute},
	"GET /api/v1/clusters/check":              {N: 120, Per: time.Minute},
	"POST /api/v1/clusters/submit":            {N: 5, Per: time.Minute},
	"POST /api/v1/webhooks/{id}/test":         {N: 30, Per: time.Minute},
	"POST /api/v1/ubo/screen":                 {N: 10, Per: time.Minute},
}

// RouteLimit returns the rolling limit of the route pattern, nil when it
// has none.
func RouteLimit(pattern string) *Limit {
	l, ok := RouteLimits[pattern]
	if !ok {
		return nil
	}
	return &l
}

// AllowRoute counts one call by c's key against the limit of the REST
// route pattern (RouteLimits). It fails with RateLimited when the limit is
// reached, with the limiter's error, or with an internal error when the
// pattern has no limit (a resolver naming a route wrongly); a nil limiter
// limits nothing.
func AllowRoute(ctx context.Context, lim Limiter, pattern string, c *Caller) error {
	if lim == nil {
		return nil
	}
	l := RouteLimit(pattern)
	if l == nil {
		return Internal(fmt.Errorf("no rate limit is declared for route %q", pattern))
	}
	ok, wait, err := lim.Allow(ctx, RouteBucket(pattern, "key:"+c.Key.ID), *l)
	if err != nil {
		return err
	}
	if !ok {
		return RateLimited("rate limit of "+l.String()+" reached for "+pattern, wait)
	}
	return nil
}
