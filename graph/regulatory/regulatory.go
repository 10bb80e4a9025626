// Package regulatory is the per-country regulatory matrix: for each of the
// 235 jurisdictions and each product category, whether trade is allowed,
// restricted or blocked, in which direction, and under which regime. The
// matrix is an embedded data file reviewed like code (data/matrix.json).
package regulatory

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/country"
)

//go:embed data/matrix.json
var matrixJSON []byte

// Status is a rule's verdict.
type Status string

// The three statuses, from least to most severe.
const (
	Allowed    Status = "allowed"
	Restricted Status = "restricted"
	Blocked    Status = "blocked"
)

func (s Status) rank() int { return slices.Index([]Status{Allowed, Restricted, Blocked}, s) }

// Product is a product category.
type Product struct {
	Category string `json:"category"`
	Label    string `json:"label"`
}

// Products are the 5 categories, in the spec's order.
var Products = []Product{
	{"crude", "Crude oil"},
	{"refined", "Refined products"},
	{"lpg", "LPG"},
	{"lng", "LNG"},
	{"bitumen", "Bitumen"},
}

// keywords map product words callers send to a category.
var keywords = map[string]string{
	"diesel": "refined", "gasoline": "refined", "gasoil": "refined", "gas oil": "refined",
	"fuel oil": "refined", "fuel": "refined", "naphtha": "refined", "jet": "refined", "kerosene": "refined",
}

// AcceptedProducts lists every product value the check accepts.
func AcceptedProducts() []string {
	out := make([]string, 0, len(Products)+len(keywords))
	for _, p := range Products {
		out = append(out, p.Category)
	}
	for _, k := range []string{"diesel", "gasoline", "gasoil", "gas oil", "fuel oil", "fuel", "naphtha", "jet", "kerosene"} {
		out = append(out, k)
	}
	return out
}

// Category returns the category a product value names (a category or a
// keyword, any case, surrounding spaces ignored), or false.
func Category(product string) (string, bool) {
	p := strings.Join(strings.Fields(strings.ToLower(product)), " ")
	for _, c := range Products {
		if c.Category == p {
			return p, true
		}
	}
	c, ok := keywords[p]
	return c, ok
}

// Rule is the verdict for one product in one direction.
type Rule struct {
	Status  Status   `json:"status"`
	Notes   string   `json:"notes"`
	Regimes []string `json:"regimes"`
}

// ProductRules is a category's rules in a jurisdiction: Status and Notes
// (the spec's fields) are the stricter direction's verdict and both
// directions' notes; Import and Export give each direction.
type ProductRules struct {
	Status Status `json:"status"`
	Notes  string `json:"notes"`
	Import Rule   `json:"import"`
	Export Rule   `json:"export"`
}

// Jurisdiction is one row of the matrix.
type Jurisdiction struct {
	Slug    string                  `json:"slug"`
	Country string                  `json:"country"`
	ISO2    string                  `json:"iso2"`
	ISO3    string                  `json:"iso3"`
	Rules   map[string]ProductRules `json:"rules"`
}

type ruleDef struct {
	Countries []string `json:"countries"`
	Products  []string `json:"products"`
	Direction string   `json:"direction"`
	Status    Status   `json:"status"`
	Regimes   []string `json:"regimes"`
	Note      string   `json:"note"`
}

// Matrix is the loaded regulatory matrix.
type Matrix struct {
	Version string
	AsOf    string
	About   string

	countries *country.Table
	rows      []Jurisdiction
	bySlug    map[string]int
	byISO2    map[string]int
}

var (
	loadOnce sync.Once
	loaded   *Matrix
	loadErr  error
)

// Default returns the embedded matrix, parsed and validated once; it fails
// when the data file is malformed (a test rules that out).
func Default() (*Matrix, error) {
	loadOnce.Do(func() { loaded, loadErr = Parse(matrixJSON, country.Default()) })
	return loaded, loadErr
}

// Parse reads a matrix file over the jurisdictions of countries and checks
// every rule: known countries, products, directions and statuses, and a
// note and regime on each.
func Parse(data []byte, countries *country.Table) (*Matrix, error) {
	var doc struct {
		Version string    `json:"version"`
		AsOf    string    `json:"as_of"`
		About   string    `json:"about"`
		Default ruleDef   `json:"default"`
		Rules   []ruleDef `json:"rules"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("regulatory matrix: %w", err)
	}
	if doc.Version == "" || doc.AsOf == "" || doc.Default.Status != Allowed || doc.Default.Note == "" {
		return nil, fmt.Errorf("regulatory matrix: version, as_of and an allowed default with a note are required")
	}
	m := &Matrix{Version: doc.Version, AsOf: doc.AsOf, About: doc.About, countries: countries,
		bySlug: map[string]int{}, byISO2: map[string]int{}}
	for i, r := range doc.Rules {
		if err := r.check(countries); err != nil {
			return nil, fmt.Errorf("regulatory matrix: rule %d: %w", i+1, err)
		}
	}
	for _, c := range countries.All() {
		j := Jurisdiction{Slug: c.Slug, Country: c.Name, ISO2: c.ISO2, ISO3: c.ISO3, Rules: map[string]ProductRules{}}
		for _, p := range Products {
			imp := resolve(doc.Default, doc.Rules, c.ISO2, p.Category, "import")
			exp := resolve(doc.Default, doc.Rules, c.ISO2, p.Category, "export")
			pr := ProductRules{Status: imp.Status, Import: imp, Export: exp}
			if exp.Status.rank() > imp.Status.rank() {
				pr.Status = exp.Status
			}
			pr.Notes = combinedNotes(imp, exp)
			j.Rules[p.Category] = pr
		}
		m.bySlug[j.Slug] = len(m.rows)
		m.byISO2[j.ISO2] = len(m.rows)
		m.rows = append(m.rows, j)
	}
	return m, nil
}

func (r ruleDef) check(countries *country.Table) error {
	for _, c := range r.Countries {
		if cc, ok := countries.Resolve(c); !ok || cc.ISO2 != c {
			return fmt.Errorf("unknown country code %q", c)
		}
	}
	for _, p := range r.Products {
		if _, ok := Category(p); p != "*" && !ok {
			return fmt.Errorf("unknown product %q", p)
		}
	}
	if r.Direction != "import" && r.Direction != "export" && r.Direction != "both" {
		return fmt.Errorf("direction %q: want import, export or both", r.Direction)
	}
	if r.Status.rank() < 0 {
		return fmt.Errorf("status %q: want allowed, restricted or blocked", r.Status)
	}
	if len(r.Countries) == 0 || len(r.Products) == 0 || len(r.Regimes) == 0 || strings.TrimSpace(r.Note) == "" {
		return fmt.Errorf("countries, products, regimes and a note are required")
	}
	return nil
}

// resolve returns the verdict for one country, category and direction: the
// strictest matching rule's status, with every matching rule's note and
// regimes; the default when none matches.
func resolve(def ruleDef, rules []ruleDef, iso2, category, direction string) Rule {
	out := Rule{Status: Allowed, Regimes: []string{}}
	var notes []string
	for _, r := range rules {
		if !slices.Contains(r.Countries, iso2) || !(slices.Contains(r.Products, "*") || slices.Contains(r.Products, category)) ||
			!(r.Direction == "both" || r.Direction == direction) {
			continue
		}
		if r.Status.rank() > out.Status.rank() {
			out.Status = r.Status
		}
		notes = append(notes, r.Note)
		for _, g := range r.Regimes {
			if !slices.Contains(out.Regimes, g) {
				out.Regimes = append(out.Regimes, g)
			}
		}
	}
	if len(notes) == 0 {
		notes = []string{def.Note}
	}
	out.Notes = strings.Join(notes, " ")
	return out
}

func combinedNotes(imp, exp Rule) string {
	if imp.Notes == exp.Notes {
		return imp.Notes
	}
	return "Deliveries to it (demand): " + imp.Notes + " Cargo from it (supply): " + exp.Notes
}

// Jurisdictions returns all 235 rows, ordered by slug.
func (m *Matrix) Jurisdictions() []Jurisdiction { return m.rows }

// Jurisdiction returns the row for slug, or not_found.
func (m *Matrix) Jurisdiction(slug string) (Jurisdiction, error) {
	i, ok := m.bySlug[strings.ToLower(strings.TrimSpace(slug))]
	if !ok {
		return Jurisdiction{}, graph.Errorf(graph.CodeNotFound, "no jurisdiction with slug %q", slug)
	}
	return m.rows[i], nil
}

// Blocker explains why trade is not allowed.
type Blocker struct {
	Reason  string   `json:"reason"`
	Status  Status   `json:"status"`
	Regimes []string `json:"regimes"`
}

// Tradability answers whether a product may be traded with a jurisdiction
// in one direction.
type Tradability struct {
	Country     string    `json:"country"` // the jurisdiction's display name
	Slug        string    `json:"slug"`
	ISO2        string    `json:"iso2"`
	Product     string    `json:"product"` // as asked
	Category    string    `json:"category"`
	ListingType string    `json:"listing_type"` // supply or demand
	Direction   string    `json:"direction"`    // export or import
	Allowed     bool      `json:"allowed"`
	Status      Status    `json:"status"`
	Blockers    []Blocker `json:"blockers"`
	Notes       string    `json:"notes"`
	Regimes     []string  `json:"regimes"`
	Version     string    `json:"version"`
	AsOf        string    `json:"as_of"`
}

// Check answers a tradability question. countryIn is a name, ISO code,
// slug or common variant; product a category or keyword; listingType
// "supply" (export from the country) or "demand" (import into it), ""
// meaning demand. It fails with invalid naming country or listing_type,
// and invalid_param naming product for an unknown product, listing the
// accepted values. Restricted is not allowed: the service cannot see a
// licence, so the blocker says what the trade needs.
func (m *Matrix) Check(countryIn, product, listingType string) (Tradability, error) {
	if strings.TrimSpace(countryIn) == "" {
		return Tradability{}, graph.Invalid("country", "country is required (a name, ISO 3166 code or slug)")
	}
	if strings.TrimSpace(product) == "" {
		return Tradability{}, &graph.Error{Code: graph.CodeInvalidParam, Field: "product",
			Message: "product is required; accepted: " + strings.Join(AcceptedProducts(), ", ")}
	}
	cat, ok := Category(product)
	if !ok {
		return Tradability{}, &graph.Error{Code: graph.CodeInvalidParam, Field: "product",
			Message: fmt.Sprintf("unknown product %q; accepted: %s", product, strings.Join(AcceptedProducts(), ", ")),
			Details: map[string]any{"accepted": AcceptedProducts()}}
	}
	lt := strings.ToLower(strings.TrimSpace(listingType))
	direction := ""
	switch lt {
	case "", "demand":
		lt, direction = "demand", "import"
	case "supply":
		direction = "export"
	default:
		return Tradability{}, graph.Invalid("listing_type", "listing_type must be supply (export) or demand (import)")
	}
	c, ok := m.countries.Resolve(countryIn)
	if !ok {
		return Tradability{}, graph.Invalid("country", "unknown country %q: send a name, ISO 3166 alpha-2 or alpha-3 code, or slug", countryIn)
	}
	j := m.rows[m.byISO2[c.ISO2]]
	pr := j.Rules[cat]
	rule := pr.Import
	if direction == "export" {
		rule = pr.Export
	}
	t := Tradability{
		Country: j.Country, Slug: j.Slug, ISO2: j.ISO2, Product: product, Category: cat,
		ListingType: lt, Direction: direction, Allowed: rule.Status == Allowed, Status: rule.Status,
		Blockers: []Blocker{}, Notes: rule.Notes, Regimes: rule.Regimes, Version: m.Version, AsOf: m.AsOf,
	}
	switch rule.Status {
	case Blocked:
		t.Blockers = append(t.Blockers, Blocker{Status: Blocked, Regimes: rule.Regimes, Reason: "Blocked: " + rule.Notes})
	case Restricted:
		t.Blockers = append(t.Blockers, Blocker{Status: Restricted, Regimes: rule.Regimes,
			Reason: "Restricted, and no licence or authorisation can be verified by this service: " + rule.Notes})
	}
	return t, nil
}
