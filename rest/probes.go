package rest

import (
	"net/http"
	"strings"

	"github.com/tradecompliance/compliance/graph"
)

// healthz answers 200 while the process serves requests.
func (s *server) healthz(w http.ResponseWriter, r *http.Request) error {
	version := ""
	if s.Health != nil {
		version = s.Health.Version
	}
	writeData(w, http.StatusOK, map[string]string{"status": "alive", "version": version})
	return nil
}

// readyz answers 200 when Postgres and Neo4j answer and their migrations are
// current, else 503 naming each failed check.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) error {
	st := s.Health.Status(r.Context())
	if st.Ready {
		writeData(w, http.StatusOK, st)
		return nil
	}
	var failed []string
	for _, c := range st.Checks {
		if !c.OK {
			failed = append(failed, c.Name+": "+c.Detail)
		}
	}
	return &graph.Error{
		Code:    graph.CodeUnavailable,
		Message: "not ready: " + strings.Join(failed, "; "),
		Details: map[string]any{"checks": st.Checks},
	}
}
