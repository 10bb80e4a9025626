package rest

import (
	"net/http"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ubo"
)

// The UBO endpoints: a production key with the "ubo" scope; graphs are the
// caller's member's own.

func (s *server) uboService() (*ubo.Service, error) {
	if s.UBO == nil {
		return nil, graph.Errorf(graph.CodeUnavailable, "UBO screening is not configured")
	}
	return s.UBO, nil
}

// uboScreen answers POST /api/v1/ubo/screen: 200 with a ready graph of the
// same request built within 90 days, else 202 with the queued graph.
func (s *server) uboScreen(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.uboService()
	if err != nil {
		return err
	}
	var body struct {
		RootEntityName   *string `json:"root_entity_name"`
		RootJurisdiction *string `json:"root_jurisdiction"`
		MaxHops          *int    `json:"max_hops"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.RootEntityName == nil {
		return graph.Invalid("root_entity_name", "root_entity_name is required")
	}
	g, err := svc.Screen(r.Context(), *body.RootEntityName, uboDeref(body.RootJurisdiction), body.MaxHops)
	if err != nil {
		return err
	}
	status := http.StatusAccepted
	if g.Status == ubo.StatusReady {
		status = http.StatusOK
	}
	writeData(w, status, g.View())
	return nil
}

// uboGraph answers GET /api/v1/ubo/graph/{id}: the caller's graph, queued
// or ready.
func (s *server) uboGraph(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.uboService()
	if err != nil {
		return err
	}
	g, err := svc.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, g.View())
	return nil
}

func uboDeref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
