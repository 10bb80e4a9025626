package resolvers

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// limits refuses operations nested deeper than maxDepth or costing more than
// maxComplexity, before anything runs. Introspection fields (those starting
// with "__") do not count towards depth, so IDEs can load the schema.
type limits struct {
	maxDepth      int
	maxComplexity int
	es            graphql.ExecutableSchema
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = (*limits)(nil)

func (l *limits) ExtensionName() string { return "QueryLimits" }

func (l *limits) Validate(es graphql.ExecutableSchema) error {
	l.es = es
	return nil
}

func (l *limits) MutateOperationContext(ctx context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	op := rc.Operation
	if op == nil {
		return nil
	}
	if d := depth(op.SelectionSet, map[string]bool{}); d > l.maxDepth {
		err := gqlerror.Errorf("query depth %d exceeds the limit of %d: flatten the query or split it", d, l.maxDepth)
		err.Extensions = map[string]any{"code": "invalid", "field": "query", "reason": "depth_limit", "limit": l.maxDepth, "depth": d}
		return err
	}
	if c := complexity.Calculate(ctx, l.es, op, rc.Variables); c > l.maxComplexity {
		err := gqlerror.Errorf("query complexity %d exceeds the limit of %d: request fewer items or fewer hops", c, l.maxComplexity)
		err.Extensions = map[string]any{"code": "invalid", "field": "query", "reason": "complexity_limit", "limit": l.maxComplexity, "complexity": c}
		return err
	}
	return nil
}

// depth returns the deepest field nesting of set, following fragments once
// each and skipping introspection fields.
func depth(set ast.SelectionSet, seen map[string]bool) int {
	max := 0
	for _, sel := range set {
		d := 0
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			d = 1 + depth(s.SelectionSet, seen)
		case *ast.InlineFragment:
			d = depth(s.SelectionSet, seen)
		case *ast.FragmentSpread:
			if seen[s.Name] || s.Definition == nil {
				continue
			}
			seen[s.Name] = true
			d = depth(s.Definition.SelectionSet, seen)
			delete(seen, s.Name)
		}
		if d > max {
			max = d
		}
	}
	return max
}
