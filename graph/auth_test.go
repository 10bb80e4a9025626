package graph

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeKeys is an in-memory KeyLookup, KeyStore and SandboxStore.
type fakeKeys struct {
	byHash  map[string]APIKey
	member  Member
	touches []string
	created []NewKey
	sandbox []string // "email ip perIP perEmail"
}

func (f *fakeKeys) KeyByHash(ctx context.Context, hash []byte) (APIKey, Member, error) {
	k, ok := f.byHash[string(hash)]
	if !ok {
		return APIKey{}, Member{}, Errorf(CodeNotFound, "no such key")
	}
	return k, f.member, nil
}

func (f *fakeKeys) TouchKey(ctx context.Context, id string, t time.Time) error {
	f.touches = append(f.touches, id)
	return nil
}

func (f *fakeKeys) EnsureMember(ctx context.Context, name string, plan []string) (Member, error) {
	return f.member, nil
}

func (f *fakeKeys) CreateKey(ctx context.Context, k NewKey) error {
	f.created = append(f.created, k)
	return nil
}

func (f *fakeKeys) ListKeys(ctx context.Context, memberID string) ([]APIKey, error) { return nil, nil }

func (f *fakeKeys) RevokeKey(ctx context.Context, memberID, keyID string) (bool, error) {
	return false, nil
}

func (f *fakeKeys) CreateSandboxKey(ctx context.Context, email, ip string, k NewKey, perIP, perEmail int) error {
	f.sandbox = append(f.sandbox, strings.Join([]string{email, ip}, " "))
	if perIP != SandboxPerIPHour || perEmail != SandboxPerEmail {
		return Errorf(CodeInternal, "limits %d/%d, want %d/%d", perIP, perEmail, SandboxPerIPHour, SandboxPerEmail)
	}
	f.created = append(f.created, k)
	return nil
}

func TestAuthenticate(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	f := &fakeKeys{byHash: map[string]APIKey{}, member: Member{ID: "m1"}}
	add := func(raw string, k APIKey) {
		f.byHash[string(HashKey(raw))] = k
	}
	add("good", APIKey{ID: "k-good", IsActive: true})
	add("good-until-later", APIKey{ID: "k-later", IsActive: true, ExpiresAt: &future})
	add("revoked", APIKey{ID: "k-revoked", IsActive: false})
	add("expired", APIKey{ID: "k-expired", IsActive: true, ExpiresAt: &past})
	add("expires-now", APIKey{ID: "k-now", IsActive: true, ExpiresAt: &now})
	a := &Authenticator{Store: f, Now: func() time.Time { return now }}

	tests := []struct {
		name   string
		raw    string
		wantID string // "" means unauthenticated
	}{
		{"active", "good", "k-good"},
		{"surrounding space trimmed", "  good\t", "k-good"},
		{"not yet expired", "good-until-later", "k-later"},
		{"empty", "", ""},
		{"blank", "   ", ""},
		{"unknown", "ctc_live_" + strings.Repeat("x", 40), ""},
		{"revoked", "revoked", ""},
		{"expired", "expired", ""},
		{"expiring this instant", "expires-now", ""},
		{"over 200 characters", strings.Repeat("g", 201), ""},
	}
	var messages []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := a.Authenticate(context.Background(), tt.raw)
			if tt.wantID == "" {
				if ErrorCode(err) != CodeUnauthenticated || c != nil {
					t.Fatalf("Authenticate(%q) = %v, %v; want unauthenticated", tt.raw, c, err)
				}
				messages = append(messages, AsError(err).Message)
				return
			}
			if err != nil || c.Key.ID != tt.wantID || c.Member.ID != "m1" {
				t.Fatalf("Authenticate(%q) = %+v, %v; want key %s of member m1", tt.raw, c, err, tt.wantID)
			}
		})
	}
	// A caller must not be able to tell unknown, revoked and expired apart.
	for _, m := range messages {
		if m != messages[0] {
			t.Errorf("unauthenticated messages differ: %q vs %q", m, messages[0])
		}
	}
	// last_used_at is written at most once a minute per key.
	if got := slices.Compact(slices.Clone(f.touches)); len(got) != len(f.touches) {
		t.Errorf("TouchKey calls = %v, want each key touched once within a minute", f.touches)
	}
	now = now.Add(time.Minute)
	if _, err := a.Authenticate(context.Background(), "good"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(f.touches, ","), "k-good"); n != 2 {
		t.Errorf("TouchKey(k-good) calls after a minute = %d, want 2", n)
	}
}

func TestRequireScopeAndProduction(t *testing.T) {
	prod := &Caller{Key: APIKey{Environment: Production, Scopes: []string{"kyc", "audit"}}}
	sand := &Caller{Key: APIKey{Environment: Sandbox, Scopes: SandboxScopes}}
	tests := []struct {
		name       string
		caller     *Caller
		scope      string
		production bool
		want       Code
	}{
		{"no caller", nil, "audit", false, CodeUnauthenticated},
		{"scope held", prod, "audit", false, ""},
		{"scope lacking", prod, "ubo", false, CodeForbidden},
		{"no scope needed", prod, "", false, ""},
		{"sandbox holds regulatory", sand, "regulatory", false, ""},
		{"sandbox lacks audit", sand, "audit", false, CodeForbidden},
		{"production key required, have one", prod, "", true, ""},
		{"production key required, sandbox", sand, "", true, CodeForbidden},
		{"production key required, none", nil, "", true, CodeUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &ScopeRecorder{}
			ctx := WithScopeRecorder(context.Background(), rec)
			if tt.caller != nil {
				ctx = WithCaller(ctx, tt.caller)
			}
			var err error
			if tt.production {
				_, err = RequireProduction(ctx)
			} else {
				_, err = RequireScope(ctx, tt.scope)
			}
			if got := ErrorCode(err); got != tt.want {
				t.Errorf("Require(%q, production %v) = %q, want %q", tt.scope, tt.production, got, tt.want)
			}
			if rec.String() != tt.scope {
				t.Errorf("recorded scopes = %q, want %q (the audit row names the scope asked for)", rec.String(), tt.scope)
			}
		})
	}
}

func TestKeysCreateAndIssueSandbox(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	f := &fakeKeys{}
	keys := &Keys{Store: f, Now: func() time.Time { return now }}
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	plan := []string{"kyc", "audit"}

	createTests := []struct {
		name      string
		req       CreateRequest
		wantField string
	}{
		{"whole plan", CreateRequest{Name: "ci", PlanScopes: plan}, ""},
		{"subset", CreateRequest{Name: "ci", PlanScopes: plan, Scopes: []string{"kyc"}, ExpiresAt: &future}, ""},
		{"no name", CreateRequest{Name: "  ", PlanScopes: plan}, "name"},
		{"long name", CreateRequest{Name: strings.Repeat("n", 201), PlanScopes: plan}, "name"},
		{"outside plan", CreateRequest{Name: "ci", PlanScopes: plan, Scopes: []string{"ubo"}}, "scopes"},
		{"unknown scope", CreateRequest{Name: "ci", PlanScopes: plan, Scopes: []string{"admin"}}, "scopes"},
		{"expired", CreateRequest{Name: "ci", PlanScopes: plan, ExpiresAt: &past}, "expires_at"},
		{"expiring now", CreateRequest{Name: "ci", PlanScopes: plan, ExpiresAt: &now}, "expires_at"},
	}
	prodKey := regexp.MustCompile(`^ctc_live_[0-9A-Za-z]{40}$`)
	for _, tt := range createTests {
		t.Run("create "+tt.name, func(t *testing.T) {
			k, err := keys.Create(context.Background(), tt.req)
			if tt.wantField != "" {
				if e := AsError(err); err == nil || e.Code != CodeInvalid || e.Field != tt.wantField {
					t.Fatalf("Create(%+v) error = %v, want invalid naming %s", tt.req, err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatalf("Create(%+v) error = %v", tt.req, err)
			}
			if !prodKey.MatchString(k.Raw) || k.Environment != Production || !k.IsActive ||
				k.KeyPrefix != k.Raw[:len(ProductionKeyPrefix)+6] || !slices.Equal(k.Hash, HashKey(k.Raw)) || k.DailyCallCap != nil {
				t.Errorf("Create(%+v) = %+v; want an active production key, prefix of 15, SHA-256 hash, no daily cap", tt.req, k)
			}
		})
	}

	sandKey := regexp.MustCompile(`^sk_sandbox_[0-9A-Za-z]{40}$`)
	sandboxTests := []struct {
		name      string
		req       SandboxRequest
		wantEmail string
		wantField string
	}{
		{"normalised email", SandboxRequest{Email: " Dev@Example.com ", ClientIP: "10.0.0.1"}, "dev@example.com", ""},
		{"bad email", SandboxRequest{Email: "dev@", ClientIP: "10.0.0.1"}, "", "email"},
		{"missing email", SandboxRequest{ClientIP: "10.0.0.1"}, "", "email"},
		{"long company", SandboxRequest{Email: "dev@example.com", Company: strings.Repeat("c", 201)}, "", "company"},
		{"long use case", SandboxRequest{Email: "dev@example.com", UseCase: strings.Repeat("u", 2001)}, "", "use_case"},
	}
	for _, tt := range sandboxTests {
		t.Run("sandbox "+tt.name, func(t *testing.T) {
			f.sandbox = nil
			k, err := keys.IssueSandbox(context.Background(), f, tt.req)
			if tt.wantField != "" {
				if e := AsError(err); err == nil || e.Code != CodeInvalid || e.Field != tt.wantField {
					t.Fatalf("IssueSandbox(%+v) error = %v, want invalid naming %s", tt.req, err, tt.wantField)
				}
				if len(f.sandbox) != 0 {
					t.Errorf("IssueSandbox(%+v) stored a key despite invalid input", tt.req)
				}
				return
			}
			if err != nil {
				t.Fatalf("IssueSandbox(%+v) error = %v", tt.req, err)
			}
			if !sandKey.MatchString(k.Raw) || k.Environment != Sandbox || !slices.Equal(k.Scopes, SandboxScopes) ||
				k.DailyCallCap == nil || *k.DailyCallCap != 100 || k.ExpiresAt == nil || !k.ExpiresAt.Equal(now.Add(30*24*time.Hour)) ||
				k.KeyPrefix != k.Raw[:len(SandboxKeyPrefix)+6] || !slices.Equal(k.Hash, HashKey(k.Raw)) {
				t.Errorf("IssueSandbox(%+v) = %+v; want a sandbox key for regulatory and cluster, 100 a day, valid 30 days", tt.req, k)
			}
			if len(f.sandbox) != 1 || f.sandbox[0] != tt.wantEmail+" "+tt.req.ClientIP {
				t.Errorf("IssueSandbox stored for %v, want %q", f.sandbox, tt.wantEmail+" "+tt.req.ClientIP)
			}
		})
	}
}
