// Package model holds the GraphQL-side types: gqlgen's generated models
// (models_gen.go, never edited by hand) and the federation entity wrappers
// below, which embed a domain type and mark it as an entity, so that the
// domain package stays free of GraphQL concerns.
package model

import (
	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/regulatory"
)

// APIKey is the ApiKey entity: a graph.APIKey.
type APIKey struct{ graph.APIKey }

// IsEntity marks APIKey as a federation entity.
func (APIKey) IsEntity() {}

// Jurisdiction is the Jurisdiction entity: a regulatory.Jurisdiction.
type Jurisdiction struct{ regulatory.Jurisdiction }

// IsEntity marks Jurisdiction as a federation entity.
func (Jurisdiction) IsEntity() {}

// OwnershipEntity is the OwnershipEntity entity: an ownership.Node.
type OwnershipEntity struct{ ownership.Node }

// IsEntity marks OwnershipEntity as a federation entity.
func (OwnershipEntity) IsEntity() {}
