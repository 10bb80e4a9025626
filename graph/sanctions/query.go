package sanctions

import (
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/country"
)

// NewQuery validates a screening question's fields and resolves its
// country (any name, code or variant) to ISO alpha-2. It fails with invalid
// naming the field.
func NewQuery(name, ctry, dob, imo, kind string, ids []string, threshold float64, limit int) (Query, error) {
	q := Query{Name: strings.TrimSpace(name), DOB: strings.TrimSpace(dob), IMO: strings.TrimSpace(imo), Identifiers: ids, Threshold: threshold, Limit: limit}
	if len(q.Name) > 500 {
		return q, graph.Invalid("name", "name must be at most 500 characters")
	}
	if ctry != "" {
		c, ok := country.Default().Resolve(ctry)
		if !ok {
			return q, graph.Invalid("country", "unknown country %q: send a name, ISO 3166 code or slug", ctry)
		}
		q.Country = c.ISO2
	}
	if q.DOB != "" && !validDOB(q.DOB) {
		return q, graph.Invalid("dob", "dob must be YYYY, YYYY-MM or YYYY-MM-DD")
	}
	switch Kind(kind) {
	case "", Person, Entity, Vessel, Aircraft:
		q.Kind = Kind(kind)
	default:
		return q, graph.Invalid("kind", "kind must be person, entity, vessel or aircraft")
	}
	if limit < 0 || limit > 100 {
		return q, graph.Invalid("limit", "limit must be between 1 and 100")
	}
	return q, nil
}

// validDOB reports whether s is a real date written YYYY, YYYY-MM or
// YYYY-MM-DD.
func validDOB(s string) bool {
	for _, layout := range []string{"2006", "2006-01", "2006-01-02"} {
		if len(s) == len(layout) {
			_, err := time.Parse(layout, s)
			return err == nil
		}
	}
	return false
}
