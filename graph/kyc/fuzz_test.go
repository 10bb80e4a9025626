package kyc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
)

// Validate never panics; what it accepts is trimmed, resolved and a JSON
// object, and what it refuses names a field.
func FuzzValidate(f *testing.F) {
	f.Add("Acme Oil Trading Ltd", "Norway", "crude", "Jane Doe", `{"ref":"x"}`)
	f.Add(" ", "", "", "", "")
	f.Add("Ωmega Петро 石油", "ir", "gas oil", "?", "[1]")
	f.Add("AB", "Côte d'Ivoire", "lng", "Jo", "null")
	f.Add("東.", "", "", "東.", "")
	f.Add("A\x00B", "", "", "Jo\xff", `{"a":"\u0000"}`)
	f.Add("Acme", "", "", "Jo", `{"a":"\ud800","\\u0000":"\ud83d\ude00"}`)
	f.Fuzz(func(t *testing.T, name, country, product, director, meta string) {
		in := Input{CompanyName: name, Country: country, Product: product, Directors: []string{director}, Metadata: json.RawMessage(meta)}
		got, err := in.Validate()
		if err != nil {
			if e := graph.AsError(err); e.Field == "" || (e.Code != graph.CodeInvalid && e.Code != graph.CodeInvalidParam) {
				t.Fatalf("Validate() error %v names no field or has code %s", err, e.Code)
			}
			return
		}
		if got.CompanyName != strings.TrimSpace(got.CompanyName) || utf8.RuneCountInString(cluster.Normalize(got.CompanyName)) < cluster.MinCheckChars {
			t.Fatalf("accepted company name %q", got.CompanyName)
		}
		for _, d := range got.Directors {
			if utf8.RuneCountInString(cluster.Normalize(d)) < cluster.MinCheckChars {
				t.Fatalf("accepted director %q", d)
			}
		}
		for _, v := range append([]string{got.CompanyName, got.Product, string(got.Metadata)}, got.Directors...) {
			if !printable(v) {
				t.Fatalf("accepted %q, which Postgres refuses", v)
			}
		}
		if !jsonbEscapes(string(got.Metadata)) {
			t.Fatalf("accepted metadata %q, which Postgres jsonb refuses", got.Metadata)
		}
		if got.Country != "" && len(got.Country) != 2 {
			t.Fatalf("country %q is not ISO alpha-2", got.Country)
		}
		var obj map[string]any
		if err := json.Unmarshal(got.Metadata, &obj); err != nil || obj == nil {
			t.Fatalf("metadata %q is not a JSON object", got.Metadata)
		}
	})
}
