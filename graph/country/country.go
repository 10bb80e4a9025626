// Package country resolves the country names, codes and variants that
// callers send (by name, ISO 3166 alpha-2 or alpha-3, slug, any case, with
// or without diacritics, and common variants such as "Russia", "Iran
// (Islamic Republic of)" or "Ivory Coast") to one of the 235 jurisdictions
// of the regulatory matrix. Every surface that takes a country uses it.
package country

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

//go:embed data/countries.json
var countriesJSON []byte

// Country is one jurisdiction.
type Country struct {
	Slug    string   `json:"slug"`    // lowercase hyphenated name: "russia"
	Name    string   `json:"country"` // display name: "Russia"
	ISO2    string   `json:"iso2"`
	ISO3    string   `json:"iso3"`
	Aliases []string `json:"aliases"`
}

// Table is the set of jurisdictions with their lookup keys.
type Table struct {
	all    []Country
	byCode map[string]int // upper-case alpha-2 and alpha-3
	byName map[string]int // Normalize(name, alias or slug)
}

var (
	loadOnce sync.Once
	table    *Table
)

// Default returns the embedded table of 235 jurisdictions. It panics only if
// the embedded data is malformed, which a test rules out.
func Default() *Table {
	loadOnce.Do(func() {
		var doc struct {
			Jurisdictions []Country `json:"jurisdictions"`
		}
		if err := json.Unmarshal(countriesJSON, &doc); err != nil {
			panic("country: embedded data: " + err.Error())
		}
		table = newTable(doc.Jurisdictions)
	})
	return table
}

func newTable(all []Country) *Table {
	t := &Table{all: all, byCode: map[string]int{}, byName: map[string]int{}}
	for i, c := range all {
		t.byCode[c.ISO2] = i
		t.byCode[c.ISO3] = i
		for _, n := range append([]string{c.Name, c.Slug}, c.Aliases...) {
			t.byName[Normalize(n)] = i
		}
	}
	return t
}

// All returns every jurisdiction, ordered by slug.
func (t *Table) All() []Country { return t.all }

// BySlug returns the jurisdiction with slug, exactly.
func (t *Table) BySlug(slug string) (Country, bool) {
	i, ok := t.byName[Normalize(slug)]
	if !ok || t.all[i].Slug != strings.ToLower(slug) {
		return Country{}, false
	}
	return t.all[i], true
}

// Resolve returns the jurisdiction s names, or false when it names none. An
// input of two or three letters is tried as an ISO code first.
func (t *Table) Resolve(s string) (Country, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Country{}, false
	}
	if n := len(s); (n == 2 || n == 3) && isLetters(s) {
		if i, ok := t.byCode[strings.ToUpper(s)]; ok {
			return t.all[i], true
		}
	}
	return t.ResolveName(s)
}

// ResolveName returns the jurisdiction s names by name, alias or slug only,
// never as an ISO code, or false when it names none: for free text, where
// "no", "in" or "and" are words, not Norway, India or Andorra.
func (t *Table) ResolveName(s string) (Country, bool) {
	if i, ok := t.byName[Normalize(s)]; ok {
		return t.all[i], true
	}
	return Country{}, false
}

func isLetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// Normalize folds a country name for lookup: diacritics removed, lower
// case, "&" as "and", "St." as "saint", punctuation as spaces, a leading
// "the" dropped, spaces collapsed.
func Normalize(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// combining mark: dropped with its diacritic
		case r == '&':
			b.WriteString(" and ")
		case r == '\'' || r == '’' || r == '`':
			// apostrophes join: "Cote d'Ivoire" -> "cote divoire"
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	if len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	for i, w := range words {
		if w == "st" || w == "ste" {
			words[i] = "saint"
		}
	}
	return strings.Join(words, " ")
}
