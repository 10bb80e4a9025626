package rest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tradecompliance/compliance/graph/regulatory"
)

// countriesBody is the countries list, encoded once (the matrix is static)
// with its ETag.
type countriesBody struct {
	once sync.Once
	body []byte
	etag string
}

func (c *countriesBody) get(m *regulatory.Matrix) ([]byte, string) {
	c.once.Do(func() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		rows := m.Jurisdictions()
		enc.Encode(envelope{OK: true, Data: map[string]any{
			"count": len(rows), "version": m.Version, "as_of": m.AsOf, "countries": rows,
		}})
		c.body = buf.Bytes()
		sum := sha256.Sum256(c.body)
		c.etag = `"` + hex.EncodeToString(sum[:16]) + `"`
	})
	return c.body, c.etag
}

// regulatoryCountries lists every jurisdiction: GET /api/v1/regulatory/countries.
// It may be cached for an hour, and answers 304 to a matching If-None-Match.
func (s *server) regulatoryCountries(w http.ResponseWriter, r *http.Request) error {
	body, etag := s.countries.get(s.Matrix)
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
	return nil
}

// etagMatches reports whether an If-None-Match header names etag (or *).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// regulatoryCountry returns one jurisdiction: GET /api/v1/regulatory/countries/{slug}.
func (s *server) regulatoryCountry(w http.ResponseWriter, r *http.Request) error {
	j, err := s.Matrix.Jurisdiction(r.PathValue("slug"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, struct {
		regulatory.Jurisdiction
		Version string `json:"version"`
		AsOf    string `json:"as_of"`
	}{j, s.Matrix.Version, s.Matrix.AsOf})
	return nil
}

// regulatoryCheck answers a tradability question: GET /api/v1/regulatory/check.
func (s *server) regulatoryCheck(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	t, err := s.Matrix.Check(q.Get("country"), q.Get("product"), q.Get("listing_type"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, t)
	return nil
}

// regulatoryProducts lists the product categories: GET /api/v1/regulatory/products.
func (s *server) regulatoryProducts(w http.ResponseWriter, r *http.Request) error {
	writeData(w, http.StatusOK, map[string]any{
		"count": len(regulatory.Products), "products": regulatory.Products, "accepted_values": regulatory.AcceptedProducts(),
	})
	return nil
}
