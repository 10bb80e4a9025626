// Package cluster is the scam-cluster registry: verified-fraudulent
// counterparty records with severity tiers, grouped by teardown group, the
// exact-match entity check, and customer submissions.
package cluster

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Severity is a cluster record's tier. Ordered confirmed > likely >
// suspected. A suspected record is a publicly reported lead, not a
// confirmed fraud.
type Severity string

const (
	Confirmed Severity = "confirmed"
	Likely    Severity = "likely"
	Suspected Severity = "suspected"
)

// Severities lists the tiers from the highest down.
var Severities = []Severity{Confirmed, Likely, Suspected}

// Rank orders severities: confirmed 3, likely 2, suspected 1, anything
// else 0.
func (s Severity) Rank() int {
	switch s {
	case Confirmed:
		return 3
	case Likely:
		return 2
	case Suspected:
		return 1
	}
	return 0
}

// Valid reports whether s is one of the three tiers.
func (s Severity) Valid() bool { return s.Rank() > 0 }

// Record is one entity of the registry.
type Record struct {
	ID         string    // uuid
	Slug       string    // the entity's own slug, unique
	EntityName string    // as published
	Aliases    []string  // other names it trades under
	Severity   Severity  //
	Country    string    // ISO 3166-1 alpha-2, "" when unknown
	Group      string    // teardown-group slug, "" for none
	GroupID    string    // the teardown group's uuid, "" for none
	AddedAt    time.Time // UTC
	Source     string    // where the record comes from (a public note; never a submitter)

	// SanctionsSource is the id of the sanctions list the record was
	// sourced from ("us_sdn", ...), "" when it was not: its sanctions
	// network is then not_screened.
	SanctionsSource string
	// Protected records fall under the protected-entity policy: their
	// sanctions links are withheld.
	Protected bool
	UpdatedAt time.Time // UTC; the last change of any field
}

// Keys returns the record's distinct normalized names: its entity name's
// first, then its aliases', skipping those shorter than MinCheckChars.
func (r Record) Keys() []string {
	var keys []string
	for _, n := range append([]string{r.EntityName}, r.Aliases...) {
		k := Normalize(n)
		if utf8.RuneCountInString(k) < MinCheckChars || slices.Contains(keys, k) {
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

// Normalize is the spec's check normalization: every character that is not
// a letter or a digit is dropped and the rest is case folded. "Acme Oil &
// Gas, Ltd." and "ACMEOILGASLTD" normalize alike. The text is composed
// (Unicode NFC) first, so a name typed with combining accents (NFD, as
// some systems send it) keeps its accented letters and matches the same
// name typed precomposed; and again after, so that letters the dropped
// characters kept apart (Hangul jamo) compose as they would in a second
// pass, which keeps the result stable.
func Normalize(s string) string {
	var b strings.Builder
	for _, r := range norm.NFC.String(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
		}
	}
	return norm.NFC.String(b.String())
}

// MinCheckChars is the fewest letters and digits a checked name may have
// after normalization.
const MinCheckChars = 2

// CheckResult is the answer of an entity check.
type CheckResult struct {
	Matched         bool
	Matches         []Record
	HighestSeverity Severity // "" when nothing matched
	// CountryUnknown is true when a country was given and a record with no
	// country on file matched (it is not excluded: see Checker).
	CountryUnknown bool
}

// Caveats returns the caveats of the check's answer: those of every cluster
// answer, and CaveatCountryUnknown when it applies.
func (r CheckResult) Caveats() []string {
	if r.CountryUnknown {
		return append(Caveats(), CaveatCountryUnknown)
	}
	return Caveats()
}

// Checker answers the exact-match entity check: normalized name against
// normalized names and aliases, never a substring; country, when not "",
// restricts matches to records of that country (ISO alpha-2) and records
// with no country on file, which a country cannot rule out. It fails with
// graph.Invalid("entity", ...) when the name has fewer than MinCheckChars
// letters and digits.
type Checker interface {
	Check(ctx context.Context, entity, country string) (CheckResult, error)
}
