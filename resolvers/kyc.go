package resolvers

import (
	"context"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/kyc"
)

// requireKYC returns the caller and the service when the caller uses a
// production key with the kyc scope, as the REST KYC routes require.
func (r *Resolver) requireKYC(ctx context.Context) (*graph.Caller, *kyc.Service, error) {
	c, err := graph.RequireScope(ctx, "kyc")
	if err != nil {
		return nil, nil, err
	}
	if c.Key.Environment != graph.Production {
		return nil, nil, graph.Errorf(graph.CodeForbidden, "sandbox keys cannot screen counterparties")
	}
	if r.KYC == nil {
		return nil, nil, graph.Errorf(graph.CodeUnavailable, "KYC screening is not configured on this server")
	}
	return c, r.KYC, nil
}
