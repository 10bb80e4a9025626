package rest

import (
	"net/http"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/sanctions"
)

// sanctionsLists reports each list's snapshot and freshness: GET /api/v1/sanctions/lists.
func (s *server) sanctionsLists(w http.ResponseWriter, r *http.Request) error {
	writeData(w, http.StatusOK, map[string]any{"lists": s.Screener.Lists(), "coverage": graph.ServiceCoverage()})
	return nil
}

// sanctionsQuery is the body of POST /api/v1/sanctions/search.
type sanctionsQuery struct {
	Name        string   `json:"name"`
	Country     string   `json:"country"`
	DOB         string   `json:"dob"`
	IMO         string   `json:"imo"`
	Identifiers []string `json:"identifiers"`
	Kind        string   `json:"kind"`
	Threshold   float64  `json:"threshold"`
	Limit       int      `json:"limit"`
}

// sanctionsSearch screens one name against the 8 lists:
// POST /api/v1/sanctions/search.
func (s *server) sanctionsSearch(w http.ResponseWriter, r *http.Request) error {
	var body sanctionsQuery
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	q, err := sanctions.NewQuery(body.Name, body.Country, body.DOB, body.IMO, body.Kind, body.Identifiers, body.Threshold, body.Limit)
	if err != nil {
		return err
	}
	res, err := s.Screener.Screen(q)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"query": q, "screening": res, "coverage": graph.ServiceCoverage()})
	return nil
}
