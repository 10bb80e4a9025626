package rest

import (
	"net/http"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// The key endpoints answer without the envelope, as the spec says; their
// failures use it like every other endpoint.

// createSandboxKey issues a self-serve sandbox key: POST /api/v1/keys/sandbox.
func (s *server) createSandboxKey(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Email   *string `json:"email"`
		Company string  `json:"company"`
		UseCase string  `json:"use_case"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Email == nil {
		return graph.Invalid("email", "email is required")
	}
	k, err := s.Keys.IssueSandbox(r.Context(), s.Sandbox, graph.SandboxRequest{
		Email: *body.Email, Company: body.Company, UseCase: body.UseCase, ClientIP: clientIP(r),
	})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, map[string]any{
		"key":            k.Raw,
		"key_id":         k.ID,
		"key_prefix":     k.KeyPrefix,
		"environment":    k.Environment,
		"scopes":         k.Scopes,
		"expires_at":     k.ExpiresAt,
		"daily_call_cap": *k.DailyCallCap,
	})
	return nil
}

// listKeys lists the caller's member's keys: GET /api/v1/keys.
func (s *server) listKeys(w http.ResponseWriter, r *http.Request) error {
	c := graph.CallerFrom(r.Context())
	keys, err := s.KeyStore.ListKeys(r.Context(), c.Member.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
	return nil
}

// createKey issues a production key for the caller's member: POST /api/v1/keys.
func (s *server) createKey(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name      *string  `json:"name"`
		Scopes    []string `json:"scopes"`
		ExpiresAt *string  `json:"expires_at"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Name == nil {
		return graph.Invalid("name", "name is required")
	}
	var exp *time.Time
	if body.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339Nano, *body.ExpiresAt)
		if err != nil {
			return graph.Invalid("expires_at", "expires_at must be an RFC 3339 date-time such as 2027-01-02T15:04:05Z")
		}
		exp = &t
	}
	c := graph.CallerFrom(r.Context())
	k, err := s.Keys.Create(r.Context(), graph.CreateRequest{
		MemberID: c.Member.ID, PlanScopes: c.Member.PlanScopes, CallerScopes: c.Key.Scopes, Name: *body.Name, Scopes: body.Scopes, ExpiresAt: exp,
	})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, map[string]any{
		"key": k.Raw, "key_id": k.ID, "key_prefix": k.KeyPrefix, "scopes": k.Scopes, "expires_at": k.ExpiresAt,
	})
	return nil
}

// revokeKey revokes one of the caller's member's keys: DELETE /api/v1/keys?id=.
func (s *server) revokeKey(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query().Get("id")
	if q == "" {
		return graph.Invalid("id", "id is required")
	}
	id, err := graph.ParseID("id", "", q)
	if err != nil {
		return err
	}
	c := graph.CallerFrom(r.Context())
	was, err := s.KeyStore.RevokeKey(r.Context(), c.Member.ID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"revoked": was})
	return nil
}
