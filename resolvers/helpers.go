package resolvers

import (
	"context"
	"errors"
	"strings"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/resolvers/model"
)

// memberKeys returns the caller's member's keys; production keys only.
func (r *Resolver) memberKeys(ctx context.Context) ([]model.APIKey, error) {
	c, err := graph.RequireProduction(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := r.KeyStore.ListKeys(ctx, c.Member.ID)
	if err != nil {
		return nil, err
	}
	out := make([]model.APIKey, len(keys))
	for i, k := range keys {
		out[i] = model.APIKey{APIKey: k}
	}
	return out, nil
}

// ownKey returns the caller's member's key with id, or nil (GraphQL null)
// when it is unknown or another member's: ids are not guessable across
// members, and the answer does not tell the two apart.
func (r *Resolver) ownKey(ctx context.Context, id string) (*model.APIKey, error) {
	keys, err := r.memberKeys(ctx)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if keys[i].ID == id {
			return &keys[i], nil
		}
	}
	return nil, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// gqlField renames the field of an invalid-input error from its REST name to
// its GraphQL argument name.
func gqlField(err error, names map[string]string) error {
	var e *graph.Error
	if errors.As(err, &e) && e.Field != "" {
		base, index := e.Field, "" // directors[2]: the list's name, then its index
		if i := strings.IndexByte(base, '['); i > 0 {
			base, index = base[:i], base[i:]
		}
		if n, ok := names[base]; ok {
			n += index
			c := *e
			c.Field = n
			if strings.HasPrefix(c.Message, e.Field) {
				c.Message = n + c.Message[len(e.Field):]
			}
			return &c
		}
	}
	return err
}

// jurisdiction returns the matrix row for slug, or nil (GraphQL null) when
// there is none.
func (r *Resolver) jurisdiction(ctx context.Context, slug string) (*model.Jurisdiction, error) {
	if _, err := graph.RequireScope(ctx, "regulatory"); err != nil {
		return nil, err
	}
	j, err := r.Matrix.Jurisdiction(slug)
	if graph.ErrorCode(err) == graph.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &model.Jurisdiction{Jurisdiction: j}, nil
}

// limitRoute counts one call by c against the per-key limit of the REST
// route pattern, the bucket the REST transport counts in too.
func (r *Resolver) limitRoute(ctx context.Context, c *graph.Caller, pattern string) error {
	return graph.AllowRoute(ctx, r.Limiter, pattern, c)
}
