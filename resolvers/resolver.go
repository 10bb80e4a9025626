// Package resolvers is the GraphQL transport: gqlgen resolvers over the
// domain services in graph. Resolver is the wiring root; the generated
// executable schema lives in resolvers/generated and is never edited by hand.
package resolvers

//go:generate go tool gqlgen generate --config ../gqlgen.yml

import (
	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/ubo"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

// Resolver holds the services the resolvers call.
type Resolver struct {
	Health   *graph.Health
	Keys     *graph.Keys
	KeyStore graph.KeyStore
	Audit    graph.AuditLog
	Limiter  graph.Limiter
	Matrix   *regulatory.Matrix
	Screener *sanctions.Screener
	Webhooks *webhooks.Service
	KYC      *kyc.Service // nil: the KYC fields answer unavailable
	Clusters *cluster.Service
	// UBO answers uboScreen and uboGraph; Ownership the analyst fields of
	// OwnershipEntity.
	UBO       *ubo.Service
	Ownership ubo.OwnershipGraph
}
