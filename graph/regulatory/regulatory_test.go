package regulatory

import (
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
)

func matrix(t *testing.T) *Matrix {
	t.Helper()
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEveryRowHasTheSpecShape(t *testing.T) {
	m := matrix(t)
	rows := m.Jurisdictions()
	if len(rows) != 235 {
		t.Fatalf("jurisdictions = %d, want 235", len(rows))
	}
	if m.Version != "v1-beta" || m.AsOf == "" {
		t.Errorf("version %q as_of %q", m.Version, m.AsOf)
	}
	for _, j := range rows {
		if j.Slug == "" || j.Country == "" || len(j.ISO2) != 2 || len(j.ISO3) != 3 || len(j.Rules) != 5 {
			t.Errorf("%+v: bad shape", j)
		}
		for _, p := range Products {
			r, ok := j.Rules[p.Category]
			if !ok || r.Status.rank() < 0 || r.Notes == "" || r.Import.Notes == "" || r.Export.Notes == "" {
				t.Errorf("%s %s = %+v: bad rule", j.Slug, p.Category, r)
			}
			if want := max(r.Import.Status.rank(), r.Export.Status.rank()); r.Status.rank() != want {
				t.Errorf("%s %s status %s is not the stricter of import %s and export %s", j.Slug, p.Category, r.Status, r.Import.Status, r.Export.Status)
			}
			for _, d := range []Rule{r.Import, r.Export} {
				if d.Status != Allowed && len(d.Regimes) == 0 {
					t.Errorf("%s %s: a %s rule must name its regime", j.Slug, p.Category, d.Status)
				}
			}
		}
	}
}

func TestCheck(t *testing.T) {
	m := matrix(t)
	tests := []struct {
		country, product, listing string
		want                      Status
		wantRegime                string
	}{
		{"North Korea", "crude", "", Blocked, "UN"},
		{"KP", "diesel", "supply", Blocked, "UN"},
		{"Iran (Islamic Republic of)", "crude", "supply", Blocked, "US"},
		{"IRN", "lpg", "demand", Blocked, "US"},
		{"Cuba", "refined", "demand", Blocked, "US"},
		{"Syrian Arab Republic", "crude", "supply", Restricted, "US"},
		{"Russia", "crude", "supply", Restricted, "G7 price cap"},
		{"Russian Federation", "gasoil", "supply", Restricted, "EU"},
		{"RU", "lng", "supply", Restricted, "EU"},
		{"russia", "jet", "demand", Restricted, "EU"},
		{"Venezuela", "crude", "supply", Restricted, "US"},
		{"Belarus", "fuel oil", "supply", Restricted, "EU"},
		{"Libya", "crude", "supply", Restricted, "UN"},
		{"France", "crude", "demand", Allowed, ""},
		{"United States", "gasoline", "supply", Allowed, ""},
		{"India", "crude", "demand", Allowed, ""},
		{"Côte d'Ivoire", "bitumen", "demand", Allowed, ""},
		{"Ivory Coast", "naphtha", "supply", Allowed, ""},
		{"Nigeria", "kerosene", "demand", Restricted, "Nigeria (domestic)"},
		{"Nigeria", "kerosene", "supply", Allowed, ""},
		{"China", "diesel", "supply", Restricted, "China (domestic)"},
		{"China", "diesel", "demand", Allowed, ""},
	}
	for _, tt := range tests {
		got, err := m.Check(tt.country, tt.product, tt.listing)
		if err != nil {
			t.Errorf("Check(%q, %q, %q) error %v", tt.country, tt.product, tt.listing, err)
			continue
		}
		if got.Status != tt.want || got.Allowed != (tt.want == Allowed) {
			t.Errorf("Check(%q, %q, %q) = %s allowed=%v, want %s", tt.country, tt.product, tt.listing, got.Status, got.Allowed, tt.want)
		}
		if (len(got.Blockers) > 0) == got.Allowed {
			t.Errorf("Check(%q, %q, %q): allowed=%v with %d blockers", tt.country, tt.product, tt.listing, got.Allowed, len(got.Blockers))
		}
		if tt.wantRegime != "" && !strings.Contains(strings.Join(got.Regimes, ","), tt.wantRegime) {
			t.Errorf("Check(%q, %q, %q) regimes = %v, want %s", tt.country, tt.product, tt.listing, got.Regimes, tt.wantRegime)
		}
		for _, b := range got.Blockers {
			if b.Reason == "" || len(b.Regimes) == 0 {
				t.Errorf("Check(%q, %q, %q) blocker %+v lacks a reason or regime", tt.country, tt.product, tt.listing, b)
			}
		}
	}
}

func TestListingTypeChangesTheAnswer(t *testing.T) {
	m := matrix(t)
	changed := 0
	for _, j := range m.Jurisdictions() {
		for _, p := range Products {
			s, _ := m.Check(j.ISO2, p.Category, "supply")
			d, _ := m.Check(j.ISO2, p.Category, "demand")
			def, _ := m.Check(j.ISO2, p.Category, "")
			if def.Status != d.Status || def.ListingType != "demand" {
				t.Fatalf("default listing type is not demand for %s %s", j.Slug, p.Category)
			}
			if s.Status != d.Status {
				changed++
			}
		}
	}
	if changed < 10 {
		t.Errorf("supply and demand differ for only %d jurisdiction-products", changed)
	}
}

func TestCheckErrors(t *testing.T) {
	m := matrix(t)
	tests := []struct {
		name, country, product, listing string
		code                            graph.Code
		field                           string
	}{
		{"unknown product", "France", "coal", "", graph.CodeInvalidParam, "product"},
		{"missing product", "France", "", "", graph.CodeInvalidParam, "product"},
		{"unknown country", "Atlantis", "crude", "", graph.CodeInvalid, "country"},
		{"missing country", "", "crude", "", graph.CodeInvalid, "country"},
		{"bad listing type", "France", "crude", "resale", graph.CodeInvalid, "listing_type"},
	}
	for _, tt := range tests {
		_, err := m.Check(tt.country, tt.product, tt.listing)
		e := graph.AsError(err)
		if e == nil || e.Code != tt.code || e.Field != tt.field {
			t.Errorf("%s: Check(%q, %q, %q) error = %v, want %s on %s", tt.name, tt.country, tt.product, tt.listing, err, tt.code, tt.field)
		}
	}
	_, err := m.Check("France", "coal", "")
	if !strings.Contains(err.Error(), "crude, refined, lpg, lng, bitumen, diesel") {
		t.Errorf("unknown-product error does not list the accepted values: %v", err)
	}
}

func TestParseRejectsBadRules(t *testing.T) {
	m := matrix(t)
	base := `{"version":"v","as_of":"2025-01-01","default":{"status":"allowed","note":"n"},"rules":[%s]}`
	tests := []struct{ name, rule string }{
		{"unknown country", `{"countries":["ZZ"],"products":["crude"],"direction":"both","status":"blocked","regimes":["UN"],"note":"x"}`},
		{"unknown product", `{"countries":["FR"],"products":["coal"],"direction":"both","status":"blocked","regimes":["UN"],"note":"x"}`},
		{"bad direction", `{"countries":["FR"],"products":["crude"],"direction":"in","status":"blocked","regimes":["UN"],"note":"x"}`},
		{"bad status", `{"countries":["FR"],"products":["crude"],"direction":"both","status":"banned","regimes":["UN"],"note":"x"}`},
		{"no regime", `{"countries":["FR"],"products":["crude"],"direction":"both","status":"blocked","regimes":[],"note":"x"}`},
		{"no note", `{"countries":["FR"],"products":["crude"],"direction":"both","status":"blocked","regimes":["UN"],"note":" "}`},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(strings.Replace(base, "%s", tt.rule, 1)), m.countries); err == nil {
			t.Errorf("Parse(%s) = nil error, want a rejection", tt.name)
		}
	}
}
