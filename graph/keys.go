package graph

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"slices"
	"strings"
	"time"
)

// Environment is where a key may be used.
type Environment string

// The two key environments.
const (
	Production Environment = "production"
	Sandbox    Environment = "sandbox"
)

// Key prefixes. A production key is "ctc_live_" and 40 base62 characters; a
// sandbox key is "sk_sandbox_" and 40 base62 characters (about 238 bits of
// randomness each). The stored key_prefix is the prefix and the first 6
// random characters, enough to tell keys apart in a listing.
const (
	ProductionKeyPrefix = "ctc_live_"
	SandboxKeyPrefix    = "sk_sandbox_"
	keyRandomLen        = 40
	keyVisibleLen       = 6
)

// Scopes a production plan can hold, as the spec lists them.
var ProductionScopes = []string{
	"regulatory", "kyc", "cluster", "webhooks", "reports",
	"adverse_media", "ubo", "lc", "watchlists", "audit",
}

// SandboxScopes are the scopes every sandbox key carries.
var SandboxScopes = []string{"regulatory", "cluster"}

// Member is a customer account; every object a customer creates belongs to one.
type Member struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	PlanScopes []string  `json:"plan_scopes"`
	DataClass  string    `json:"data_class"`
	CreatedAt  time.Time `json:"created_at"`
}

// APIKey is a key's record; the raw key is never stored or returned after issuance.
type APIKey struct {
	ID           string      `json:"id"`
	MemberID     string      `json:"-"`
	Name         string      `json:"name"`
	KeyPrefix    string      `json:"key_prefix"`
	Environment  Environment `json:"environment"`
	Scopes       []string    `json:"scopes"`
	IsActive     bool        `json:"is_active"`
	LastUsedAt   *time.Time  `json:"last_used_at"`
	CreatedAt    time.Time   `json:"created_at"`
	ExpiresAt    *time.Time  `json:"expires_at"`
	DailyCallCap *int        `json:"-"`
}

// NewKey is a key about to be stored: its record, the raw key shown once,
// and the hash that is stored in its place.
type NewKey struct {
	APIKey
	Raw  string
	Hash []byte
}

// HashKey returns the SHA-256 of a raw key. Keys carry 238 random bits, so a
// fast hash is enough: no dictionary can guess them.
func HashKey(raw string) []byte {
	h := sha256.Sum256([]byte(raw))
	return h[:]
}

// GenerateKey returns a fresh raw key for env, its visible prefix and its hash.
func GenerateKey(env Environment) (raw, prefix string, hash []byte) {
	p := ProductionKeyPrefix
	if env == Sandbox {
		p = SandboxKeyPrefix
	}
	raw = p + randomBase62(keyRandomLen)
	return raw, raw[:len(p)+keyVisibleLen], HashKey(raw)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n characters drawn uniformly from base62.
func randomBase62(n int) string {
	var sb strings.Builder
	sb.Grow(n)
	buf := make([]byte, 1)
	for sb.Len() < n {
		rand.Read(buf)
		if buf[0] >= 248 { // 248 = 4*62: reject to keep the draw uniform
			continue
		}
		sb.WriteByte(base62[int(buf[0])%62])
	}
	return sb.String()
}

// ValidateScopes checks that every scope is known and within plan, and
// returns them sorted without duplicates. An empty request means the whole
// plan.
func ValidateScopes(field string, requested, plan []string) ([]string, error) {
	if len(requested) == 0 {
		out := slices.Clone(plan)
		slices.Sort(out)
		return out, nil
	}
	out := make([]string, 0, len(requested))
	for _, s := range requested {
		if !slices.Contains(ProductionScopes, s) {
			return nil, Invalid(field, "unknown scope %q; scopes are %s", s, strings.Join(ProductionScopes, ", "))
		}
		if !slices.Contains(plan, s) {
			return nil, Invalid(field, "scope %q is not in the member's plan (%s)", s, strings.Join(plan, ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out, nil
}

// KeyStore keeps members and keys. Implementations return a not_found
// error for an unknown or other member's key. CreateKey and RevokeKey (of
// an active key) record the key's event (APIKeyCreatedEvent,
// APIKeyRevokedEvent) in the same transaction as the change, for the
// member's webhook subscriptions.
type KeyStore interface {
	// EnsureMember returns the member named name, creating it with planScopes
	// when it does not exist.
	EnsureMember(ctx context.Context, name string, planScopes []string) (Member, error)
	CreateKey(ctx context.Context, k NewKey) error
	ListKeys(ctx context.Context, memberID string) ([]APIKey, error)
	// RevokeKey deactivates a member's key and reports whether it was active.
	RevokeKey(ctx context.Context, memberID, keyID string) (bool, error)
}

// Keys issues and manages API keys.
type Keys struct {
	Store KeyStore
	Now   func() time.Time
}

func (k *Keys) now() time.Time {
	if k.Now != nil {
		return k.Now().UTC()
	}
	return time.Now().UTC()
}

// CreateRequest asks for a production key for a member.
type CreateRequest struct {
	MemberID   string
	PlanScopes []string
	// CallerScopes are the scopes of the key asking, when a key asks (the
	// API); nil when an operator asks (the CLI). A key cannot mint a key
	// with a scope it does not hold itself.
	CallerScopes []string
	Name         string
	Scopes       []string
	ExpiresAt    *time.Time
}

// Create issues a production key. It fails with invalid naming the field for
// an empty or long name, scopes outside the plan, or an expiry in the past.
func (k *Keys) Create(ctx context.Context, req CreateRequest) (NewKey, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" {
		return NewKey{}, Invalid("name", "name is required")
	}
	if len(name) > 200 {
		return NewKey{}, Invalid("name", "name must be at most 200 characters")
	}
	allowed := req.PlanScopes
	if req.CallerScopes != nil {
		allowed = nil
		for _, s := range req.PlanScopes {
			if slices.Contains(req.CallerScopes, s) {
				allowed = append(allowed, s)
			}
		}
		for _, s := range req.Scopes {
			if slices.Contains(req.PlanScopes, s) && !slices.Contains(req.CallerScopes, s) {
				return NewKey{}, Invalid("scopes", "scope %q is not held by the key making this request; a key cannot grant more than it holds", s)
			}
		}
	}
	scopes, err := ValidateScopes("scopes", req.Scopes, allowed)
	if err != nil {
		return NewKey{}, err
	}
	if len(scopes) == 0 {
		return NewKey{}, Invalid("scopes", "the new key would have no scope")
	}
	now := k.now()
	if req.ExpiresAt != nil && !req.ExpiresAt.After(now) {
		return NewKey{}, Invalid("expires_at", "expires_at must be in the future")
	}
	raw, prefix, hash := GenerateKey(Production)
	nk := NewKey{
		APIKey: APIKey{
			ID:          NewID(),
			MemberID:    req.MemberID,
			Name:        name,
			KeyPrefix:   prefix,
			Environment: Production,
			Scopes:      scopes,
			IsActive:    true,
			CreatedAt:   now,
			ExpiresAt:   utcPtr(req.ExpiresAt),
		},
		Raw:  raw,
		Hash: hash,
	}
	if err := k.Store.CreateKey(ctx, nk); err != nil {
		return NewKey{}, err
	}
	return nk, nil
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

// Sandbox key terms.
const (
	SandboxLifetime  = 30 * 24 * time.Hour
	SandboxDailyCap  = 100
	SandboxPerIPHour = 3
	SandboxPerEmail  = 5 // per 24 hours
)

// SandboxRequest asks for a self-serve sandbox key.
type SandboxRequest struct {
	Email    string
	Company  string
	UseCase  string
	ClientIP string
}

// SandboxStore stores sandbox keys under the issuance limits.
type SandboxStore interface {
	// CreateSandboxKey stores k for the sandbox member of email unless ip
	// was issued perIP keys in the last hour or email perEmail in the last
	// 24 hours; then it fails with rate_limited, saying when to retry.
	CreateSandboxKey(ctx context.Context, email, ip string, k NewKey, perIP, perEmail int) error
}

// IssueSandbox issues a sandbox key: scopes regulatory and cluster, 100
// calls a day, valid 30 days. It fails with invalid naming email for a bad
// address and with rate_limited past the issuance limits.
func (k *Keys) IssueSandbox(ctx context.Context, store SandboxStore, req SandboxRequest) (NewKey, error) {
	email, err := NormalizeEmail("email", req.Email)
	if err != nil {
		return NewKey{}, err
	}
	if len(req.Company) > 200 {
		return NewKey{}, Invalid("company", "company must be at most 200 characters")
	}
	if len(req.UseCase) > 2000 {
		return NewKey{}, Invalid("use_case", "use_case must be at most 2000 characters")
	}
	now := k.now()
	raw, prefix, hash := GenerateKey(Sandbox)
	cap := SandboxDailyCap
	exp := now.Add(SandboxLifetime).Truncate(time.Microsecond)
	nk := NewKey{
		APIKey: APIKey{
			ID:           NewID(),
			Name:         "sandbox " + email,
			KeyPrefix:    prefix,
			Environment:  Sandbox,
			Scopes:       slices.Clone(SandboxScopes),
			IsActive:     true,
			CreatedAt:    now,
			ExpiresAt:    &exp,
			DailyCallCap: &cap,
		},
		Raw:  raw,
		Hash: hash,
	}
	if err := store.CreateSandboxKey(ctx, email, req.ClientIP, nk, SandboxPerIPHour, SandboxPerEmail); err != nil {
		return NewKey{}, err
	}
	return nk, nil
}

// NormalizeEmail returns the address lower-cased and trimmed, or an invalid
// error naming field. It accepts local@domain with a dotted domain and no
// spaces or angle brackets; it does not resolve the domain.
func NormalizeEmail(field, s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", Invalid(field, "%s is required", field)
	}
	local, domain, ok := strings.Cut(s, "@")
	bad := !ok || local == "" || len(s) > 254 || len(local) > 64 ||
		strings.ContainsAny(s, " \t\r\n<>()[]\\,;:\"") || strings.Contains(domain, "@") ||
		!strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.Contains(domain, "..")
	if bad {
		return "", Invalid(field, "%s must be an email address such as analyst@example.com", field)
	}
	return s, nil
}
