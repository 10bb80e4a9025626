package ubo

import (
	"errors"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
)

func intp(n int) *int { return &n }

func TestNormalize(t *testing.T) {
	tests := []struct {
		name    string
		root    string
		jur     string
		hops    *int
		want    Request
		key     Key
		field   string // of the invalid error, "" for success
		message string
	}{
		{name: "defaults", root: "  BP p.l.c. ", want: Request{RootEntityName: "BP p.l.c.", MaxHops: 3}, key: Key{RootName: "bp", MaxHops: 3}},
		{name: "jurisdiction by name", root: "BP plc", jur: "United Kingdom", hops: intp(6),
			want: Request{RootEntityName: "BP plc", RootJurisdiction: "GB", MaxHops: 6}, key: Key{RootName: "bp", Jurisdiction: "GB", MaxHops: 6}},
		{name: "jurisdiction by alpha-3", root: "Acme", jur: "vgb", hops: intp(1),
			want: Request{RootEntityName: "Acme", RootJurisdiction: "VG", MaxHops: 1}, key: Key{RootName: "acme", Jurisdiction: "VG", MaxHops: 1}},
		{name: "spaces separate words in the key", root: "Pan Am Trading", want: Request{RootEntityName: "Pan Am Trading", MaxHops: 3},
			key: Key{RootName: "am pan trading", MaxHops: 3}},
		{name: "words run together are another key", root: "Panam Trading", want: Request{RootEntityName: "Panam Trading", MaxHops: 3},
			key: Key{RootName: "panam trading", MaxHops: 3}},
		{name: "missing name", root: "", field: "root_entity_name", message: "root_entity_name is required"},
		{name: "punctuation only", root: "-.-", field: "root_entity_name", message: "at least 2 letters or digits"},
		{name: "control character", root: "Acme\x00Ltd", field: "root_entity_name", message: "control characters"},
		{name: "too long", root: strings.Repeat("a", 301), field: "root_entity_name", message: "at most 300"},
		{name: "unknown jurisdiction", root: "Acme", jur: "Atlantis", field: "root_jurisdiction", message: `"Atlantis" is not a known country`},
		{name: "hops zero", root: "Acme", hops: intp(0), field: "max_hops", message: "max_hops must be 1..6"},
		{name: "hops seven", root: "Acme", hops: intp(7), field: "max_hops", message: "max_hops must be 1..6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, key, err := Normalize(tt.root, tt.jur, tt.hops)
			if tt.field != "" {
				var ge *graph.Error
				if !errors.As(err, &ge) || ge.Code != graph.CodeInvalid || ge.Field != tt.field || !strings.Contains(ge.Message, tt.message) {
					t.Fatalf("Normalize(%q, %q) error = %v, want invalid %s containing %q", tt.root, tt.jur, err, tt.field, tt.message)
				}
				return
			}
			if err != nil || req != tt.want || key != tt.key {
				t.Errorf("Normalize(%q, %q) = %+v, %+v, %v; want %+v, %+v", tt.root, tt.jur, req, key, err, tt.want, tt.key)
			}
		})
	}
}

func TestFailed(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unavailable dependency names it", graph.Unavailable("graph database", errors.New("dial tcp: refused")), "(graph database is unavailable)"},
		{"internal error is not shown", graph.Internal(errors.New("secret detail")), "(a dependency was unavailable)"},
		{"plain error is not shown", errors.New("bolt://10.0.0.1 refused"), "(a dependency was unavailable)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Failed(tt.err)
			if r.AggregateRisk != RiskUnknown || r.RootFound || len(r.RiskReasons) != 1 || !strings.Contains(r.RiskReasons[0], tt.want) {
				t.Errorf("Failed(%v) = risk %s reasons %q; want unknown with %q", tt.err, r.AggregateRisk, r.RiskReasons, tt.want)
			}
			if strings.Contains(r.RiskReasons[0], "secret") || strings.Contains(r.RiskReasons[0], "10.0.0.1") {
				t.Errorf("Failed leaks the cause: %q", r.RiskReasons[0])
			}
		})
	}
}
