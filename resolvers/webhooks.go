package resolvers

import (
	"context"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// requireWebhooks returns the caller when it uses a production key with the
// webhooks scope, as the REST webhook routes require.
func requireWebhooks(ctx context.Context) (*graph.Caller, error) {
	c, err := graph.RequireScope(ctx, "webhooks")
	if err != nil {
		return nil, err
	}
	if c.Key.Environment != graph.Production {
		return nil, graph.Errorf(graph.CodeForbidden, "sandbox keys cannot manage webhooks")
	}
	return c, nil
}

// webhookTestLimit is the limit of test deliveries per key; the bucket is
// the REST route's, so the two transports share one limit.
var webhookTestLimit = graph.Limit{N: 30, Per: time.Minute}

func (r *Resolver) limitWebhookTest(ctx context.Context, c *graph.Caller) error {
	if r.Limiter == nil {
		return nil
	}
	ok, wait, err := r.Limiter.Allow(ctx, "route:POST /api/v1/webhooks/{id}/test:key:"+c.Key.ID, webhookTestLimit)
	if err != nil {
		return err
	}
	if !ok {
		return graph.RateLimited("rate limit of "+webhookTestLimit.String()+" reached for test deliveries", wait)
	}
	return nil
}
