package graph

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Caller is the authenticated member and key behind a request.
type Caller struct {
	Member Member
	Key    APIKey
}

// HasScope reports whether the caller's key carries scope.
func (c *Caller) HasScope(scope string) bool {
	for _, s := range c.Key.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

type callerKey struct{}

// WithCaller returns ctx carrying the caller.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx carries, or nil for an anonymous request.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// RequireScope returns the caller when it holds scope; unauthenticated when
// there is no caller, forbidden when the key lacks the scope.
func RequireScope(ctx context.Context, scope string) (*Caller, error) {
	NoteScope(ctx, scope)
	c := CallerFrom(ctx)
	if c == nil {
		return nil, Errorf(CodeUnauthenticated, "an API key is required: send Authorization: Bearer <key> or X-Api-Key")
	}
	if scope != "" && !c.HasScope(scope) {
		return nil, Errorf(CodeForbidden, "this key lacks the %q scope", scope)
	}
	return c, nil
}

// RequireProduction returns the caller when it uses a production key.
func RequireProduction(ctx context.Context) (*Caller, error) {
	c, err := RequireScope(ctx, "")
	if err != nil {
		return nil, err
	}
	if c.Key.Environment != Production {
		return nil, Errorf(CodeForbidden, "sandbox keys reach only /api/v1/regulatory/* and /api/v1/clusters/check")
	}
	return c, nil
}

// KeyLookup finds a key by the hash of its raw value.
type KeyLookup interface {
	// KeyByHash returns the key and its member, or not_found.
	KeyByHash(ctx context.Context, hash []byte) (APIKey, Member, error)
	// TouchKey records that the key was used at t.
	TouchKey(ctx context.Context, keyID string, t time.Time) error
}

// Authenticator turns a raw API key into a Caller.
type Authenticator struct {
	Store KeyLookup
	Now   func() time.Time

	mu      sync.Mutex
	touched map[string]time.Time // last last_used_at write per key
}

// touchEvery bounds how often a key's last_used_at is written.
const touchEvery = time.Minute

// Authenticate returns the caller for a raw key. It fails with
// unauthenticated, the same message for every case, when the key is
// unknown, revoked or expired, so a caller cannot tell them apart.
func (a *Authenticator) Authenticate(ctx context.Context, raw string) (*Caller, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > 200 {
		return nil, errBadKey
	}
	k, m, err := a.Store.KeyByHash(ctx, HashKey(raw))
	if ErrorCode(err) == CodeNotFound {
		return nil, errBadKey
	}
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	if a.Now != nil {
		now = a.Now().UTC()
	}
	if !k.IsActive || (k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)) {
		return nil, errBadKey
	}
	if a.shouldTouch(k.ID, now) {
		if err := a.Store.TouchKey(ctx, k.ID, now); err != nil {
			return nil, err
		}
	}
	return &Caller{Member: m, Key: k}, nil
}

var errBadKey = Errorf(CodeUnauthenticated, "the API key is missing, unknown, revoked or expired")

func (a *Authenticator) shouldTouch(id string, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.touched == nil {
		a.touched = map[string]time.Time{}
	}
	if last, ok := a.touched[id]; ok && now.Sub(last) < touchEvery {
		return false
	}
	if len(a.touched) > 100_000 {
		clear(a.touched)
	}
	a.touched[id] = now
	return true
}

// ScopeRecorder collects the scopes a request's checks asked for, so that
// its audit row can name them (a GraphQL request may touch several).
type ScopeRecorder struct {
	mu     sync.Mutex
	scopes []string
}

type recorderKey struct{}

// WithScopeRecorder returns ctx carrying rec.
func WithScopeRecorder(ctx context.Context, rec *ScopeRecorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

// NoteScope records scope on the recorder ctx carries, if any.
func NoteScope(ctx context.Context, scope string) {
	rec, _ := ctx.Value(recorderKey{}).(*ScopeRecorder)
	if rec == nil || scope == "" {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range rec.scopes {
		if s == scope {
			return
		}
	}
	rec.scopes = append(rec.scopes, scope)
}

// String returns the recorded scopes joined by commas, in the order first seen.
func (r *ScopeRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.scopes, ",")
}
