package graph

import (
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
