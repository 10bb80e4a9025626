package resolvers

import (
	"context"

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
