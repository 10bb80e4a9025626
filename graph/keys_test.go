package graph

import (
	"context"
	"regexp"
	"slices"
	"testing"
)

func TestGenerateKey(t *testing.T) {
	tests := []struct {
		name string
		env  Environment
		re   string
	}{
		{"production", Production, `^ctc_live_[0-9A-Za-z]{40}$`},
		{"sandbox", Sandbox, `^sk_sandbox_[0-9A-Za-z]{40}$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, prefix, hash := GenerateKey(tt.env)
			if !regexp.MustCompile(tt.re).MatchString(raw) {
				t.Errorf("GenerateKey(%s) = %q, want match %s", tt.env, raw, tt.re)
			}
			if len(prefix) >= len(raw) || raw[:len(prefix)] != prefix {
				t.Errorf("prefix %q is not a proper prefix of the key", prefix)
			}
			if !slices.Equal(hash, HashKey(raw)) || len(hash) != 32 {
				t.Errorf("hash is not SHA-256 of the key")
			}
			other, _, _ := GenerateKey(tt.env)
			if other == raw {
				t.Errorf("two keys are equal")
			}
		})
	}
}

func TestValidateScopes(t *testing.T) {
	plan := []string{"kyc", "audit", "regulatory"}
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr bool
	}{
		{"empty means plan", nil, []string{"audit", "kyc", "regulatory"}, false},
		{"subset sorted", []string{"regulatory", "kyc"}, []string{"kyc", "regulatory"}, false},
		{"duplicates dropped", []string{"kyc", "kyc"}, []string{"kyc"}, false},
		{"outside plan", []string{"ubo"}, nil, true},
		{"unknown scope", []string{"admin"}, nil, true},
		{"case matters", []string{"KYC"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateScopes("scopes", tt.in, plan)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ValidateScopes(%v) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err != nil {
				if e := AsError(err); e.Code != CodeInvalid || e.Field != "scopes" {
					t.Errorf("error = %+v, want invalid on field scopes", e)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ValidateScopes(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseID(t *testing.T) {
	const id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	tests := []struct {
		name, prefix, in, want string
		wantErr                bool
	}{
		{"plain", "wh_", id, id, false},
		{"prefixed", "wh_", "wh_" + id, id, false},
		{"upper case", "", "3F2504E0-4F89-41D3-9A0C-0305E82C3301", id, false},
		{"not a uuid", "", "abc", "", true},
		{"braces", "", "{" + id + "}", "", true},
		{"empty", "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseID("id", tt.prefix, tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseID(%q) = %q, %v; want %q, wantErr %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

type memKeyStore struct{ created []NewKey }

func (m *memKeyStore) EnsureMember(ctx context.Context, name string, plan []string) (Member, error) {
	return Member{}, nil
}
func (m *memKeyStore) CreateKey(ctx context.Context, k NewKey) error {
	m.created = append(m.created, k)
	return nil
}
func (m *memKeyStore) ListKeys(ctx context.Context, memberID string) ([]APIKey, error) {
	return nil, nil
}
func (m *memKeyStore) RevokeKey(ctx context.Context, memberID, keyID string) (bool, error) {
	return false, nil
}

func TestCreateCannotExceedCallerScopes(t *testing.T) {
	plan := []string{"audit", "kyc", "ubo"}
	tests := []struct {
		name    string
		caller  []string
		asked   []string
		want    []string
		wantErr bool
	}{
		{"operator gets the plan by default", nil, nil, []string{"audit", "kyc", "ubo"}, false},
		{"key defaults to its own scopes", []string{"kyc"}, nil, []string{"kyc"}, false},
		{"key grants a subset of its scopes", []string{"kyc", "ubo"}, []string{"ubo"}, []string{"ubo"}, false},
		{"key cannot grant a scope it lacks", []string{"kyc"}, []string{"audit"}, nil, true},
		{"outside the plan", []string{"kyc"}, []string{"lc"}, nil, true},
		{"no common scope", []string{"lc"}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &Keys{Store: &memKeyStore{}}
			got, err := k.Create(context.Background(), CreateRequest{MemberID: "m", PlanScopes: plan, CallerScopes: tt.caller, Name: "n", Scopes: tt.asked})
			if (err != nil) != tt.wantErr {
				t.Fatalf("Create(caller %v, asked %v) error = %v, wantErr %v", tt.caller, tt.asked, err, tt.wantErr)
			}
			if err == nil && !slices.Equal(got.Scopes, tt.want) {
				t.Errorf("Create(caller %v, asked %v) scopes = %v, want %v", tt.caller, tt.asked, got.Scopes, tt.want)
			}
		})
	}
}
