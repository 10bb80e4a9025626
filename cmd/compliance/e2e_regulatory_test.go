package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestE2ERegulatoryEndpoints(t *testing.T) {
	in := start(t, testEnv(t))
	k := in.key("acme", "regulatory")

	list := in.do("GET", "/api/v1/regulatory/countries", k.Key, nil)
	if list.status != 200 {
		t.Fatalf("countries = %d %s", list.status, list.body)
	}
	data := list.json(t)["data"].(map[string]any)
	if data["count"] != float64(235) || data["version"] != "v1-beta" || data["as_of"] == "" || len(data["countries"].([]any)) != 235 {
		t.Errorf("countries data: count %v version %v as_of %v", data["count"], data["version"], data["as_of"])
	}
	etag := list.header.Get("ETag")
	if etag == "" || !strings.Contains(list.header.Get("Cache-Control"), "max-age=3600") {
		t.Errorf("ETag %q Cache-Control %q", etag, list.header.Get("Cache-Control"))
	}
	if r := in.do("GET", "/api/v1/regulatory/countries", k.Key, nil, "If-None-Match", etag); r.status != 304 || len(r.body) != 0 {
		t.Errorf("If-None-Match = %d with %d bytes, want 304 and no body", r.status, len(r.body))
	}

	tests := []struct {
		name, path string
		status     int
		code       string
	}{
		{"one country", "/api/v1/regulatory/countries/russia", 200, ""},
		{"unknown slug", "/api/v1/regulatory/countries/atlantis", 404, "not_found"},
		{"products", "/api/v1/regulatory/products", 200, ""},
		{"check", "/api/v1/regulatory/check?country=Russian%20Federation&product=gasoil&listing_type=supply", 200, ""},
		{"unknown product", "/api/v1/regulatory/check?country=France&product=coal", 400, "invalid_param"},
		{"unknown country", "/api/v1/regulatory/check?country=Atlantis&product=crude", 400, "invalid"},
		{"bad listing type", "/api/v1/regulatory/check?country=France&product=crude&listing_type=x", 400, "invalid"},
	}
	for _, tt := range tests {
		r := in.do("GET", tt.path, k.Key, nil)
		if r.status != tt.status {
			t.Errorf("%s: GET %s = %d, want %d: %s", tt.name, tt.path, r.status, tt.status, r.body)
			continue
		}
		if tt.code != "" && r.errorOf(t)["code"] != tt.code {
			t.Errorf("%s: code = %v, want %s", tt.name, r.errorOf(t)["code"], tt.code)
		}
	}
	p := in.do("GET", "/api/v1/regulatory/products", k.Key, nil).json(t)["data"].(map[string]any)
	if p["count"] != float64(5) {
		t.Errorf("products count = %v, want 5", p["count"])
	}
	c := in.do("GET", "/api/v1/regulatory/check?country=RU&product=diesel&listing_type=supply", k.Key, nil).json(t)["data"].(map[string]any)
	if c["allowed"] != false || c["country"] != "Russia" || c["product"] != "diesel" || len(c["blockers"].([]any)) == 0 {
		t.Errorf("check RU diesel supply = %v", c)
	}

	// A sandbox key reaches the regulatory routes; a key without the scope does not.
	sb := in.do("POST", "/api/v1/keys/sandbox", "", map[string]any{"email": "analyst@example.com"}).json(t)
	if r := in.do("GET", "/api/v1/regulatory/products", sb["key"].(string), nil); r.status != 200 {
		t.Errorf("sandbox key on products = %d %s", r.status, r.body)
	}
	noScope := in.key("acme", "kyc")
	if r := in.do("GET", "/api/v1/regulatory/products", noScope.Key, nil); r.status != 403 {
		t.Errorf("key without regulatory scope = %d, want 403", r.status)
	}
}

func TestE2ERegulatoryRateLimit(t *testing.T) {
	in := start(t, testEnv(t))
	k := in.key("acme", "regulatory")
	limited := 0
	for i := range 70 {
		r := in.do("GET", "/api/v1/regulatory/products", k.Key, nil)
		if r.status == 429 {
			limited++
			if r.header.Get("Retry-After") == "" || r.errorOf(t)["code"] != "rate_limited" {
				t.Errorf("429 without Retry-After or envelope: %v %s", r.header, r.body)
			}
		} else if r.status != 200 {
			t.Fatalf("request %d = %d", i, r.status)
		}
	}
	if limited < 5 || limited > 10 {
		t.Errorf("%d of 70 requests in a burst were limited, want 10 (60 per minute)", limited)
	}
}

// REST and GraphQL give the same answers for every jurisdiction, product
// and listing type.
func TestE2ERegulatoryRESTMatchesGraphQL(t *testing.T) {
	in := start(t, testEnv(t))
	keys := make([]string, 42) // 60 REST calls per key per minute
	for i := range keys {
		keys[i] = in.key(fmt.Sprintf("m%d", i), "regulatory").Key
	}

	// Jurisdictions: the REST list against the GraphQL list, field by field.
	var rest struct {
		Data struct {
			Countries []struct {
				Slug, Country, ISO2, ISO3 string
				Rules                     map[string]struct {
					Status, Notes  string
					Import, Export struct {
						Status, Notes string
						Regimes       []string
					}
				}
			}
		}
	}
	json.Unmarshal(in.do("GET", "/api/v1/regulatory/countries", keys[0], nil).body, &rest)
	q := `{ jurisdictions { slug country iso2 iso3 rules { ` + ruleFields("crude") + ruleFields("refined") + ruleFields("lpg") + ruleFields("lng") + ruleFields("bitumen") + ` } } }`
	var gql struct {
		Data struct {
			Jurisdictions []struct {
				Slug, Country, Iso2, Iso3 string
				Rules                     map[string]struct {
					Status, Notes  string
					Import, Export struct {
						Status, Notes string
						Regimes       []string
					}
				}
			}
		}
	}
	json.Unmarshal(in.gql(keys[0], q, nil).body, &gql)
	if len(rest.Data.Countries) != 235 || len(gql.Data.Jurisdictions) != 235 {
		t.Fatalf("REST %d and GraphQL %d jurisdictions, want 235 each", len(rest.Data.Countries), len(gql.Data.Jurisdictions))
	}
	for i, r := range rest.Data.Countries {
		g := gql.Data.Jurisdictions[i]
		if r.Slug != g.Slug || r.Country != g.Country || r.ISO2 != g.Iso2 || r.ISO3 != g.Iso3 || fmt.Sprint(r.Rules) != fmt.Sprint(g.Rules) {
			t.Errorf("jurisdiction %s differs between REST and GraphQL", r.Slug)
		}
	}

	// Tradability: every jurisdiction x product x listing type on both.
	type ask struct{ iso2, product, listing string }
	var asks []ask
	for _, c := range rest.Data.Countries {
		for _, p := range []string{"crude", "refined", "lpg", "lng", "bitumen"} {
			for _, l := range []string{"supply", "demand"} {
				asks = append(asks, ask{c.ISO2, p, l})
			}
		}
	}
	restAnswers := make([]string, len(asks))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, a := range asks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := in.do("GET", "/api/v1/regulatory/check?country="+a.iso2+"&product="+url.QueryEscape(a.product)+"&listing_type="+a.listing, keys[i/56], nil)
			var v struct {
				Data struct {
					Allowed  bool
					Status   string
					Notes    string
					Blockers []struct{ Reason string }
				}
			}
			json.Unmarshal(r.body, &v)
			restAnswers[i] = fmt.Sprintf("%d %v %s %d %s", r.status, v.Data.Allowed, v.Data.Status, len(v.Data.Blockers), v.Data.Notes)
		}()
	}
	wg.Wait()
	for start := 0; start < len(asks); start += 100 {
		var b strings.Builder
		b.WriteString("{")
		end := min(start+100, len(asks))
		for i := start; i < end; i++ {
			a := asks[i]
			fmt.Fprintf(&b, ` a%d: tradability(country: %q, product: %q, listingType: %s) { allowed status notes blockers { reason } }`, i, a.iso2, a.product, a.listing)
		}
		b.WriteString("}")
		var v struct {
			Data map[string]struct {
				Allowed  bool
				Status   string
				Notes    string
				Blockers []struct{ Reason string }
			}
		}
		r := in.gql(keys[41], b.String(), nil)
		json.Unmarshal(r.body, &v)
		for i := start; i < end; i++ {
			g := v.Data[fmt.Sprintf("a%d", i)]
			got := fmt.Sprintf("200 %v %s %d %s", g.Allowed, g.Status, len(g.Blockers), g.Notes)
			if got != restAnswers[i] {
				t.Errorf("%v: REST %.80q, GraphQL %.80q", asks[i], restAnswers[i], got)
			}
		}
	}
}

func ruleFields(c string) string {
	return c + ` { status notes import { status notes regimes } export { status notes regimes } } `
}
