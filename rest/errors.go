// Package rest is the HTTP surface: the probes, the /api/v1 compatibility
// adapter, the keyless public endpoints and the MCP endpoint. The response
// envelope and the one table from error code to HTTP status live here.
package rest

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/tradecompliance/compliance/graph"
)

// statusByCode is the one table from the error vocabulary to HTTP status.
var statusByCode = map[graph.Code]int{
	graph.CodeInvalid:         http.StatusBadRequest,
	graph.CodeInvalidParam:    http.StatusBadRequest,
	graph.CodeUnauthenticated: http.StatusUnauthorized,
	graph.CodePaymentRequired: http.StatusPaymentRequired,
	graph.CodeForbidden:       http.StatusForbidden,
	graph.CodeNotFound:        http.StatusNotFound,
	graph.CodeConflict:        http.StatusConflict,
	graph.CodeRateLimited:     http.StatusTooManyRequests,
	graph.CodeInternal:        http.StatusInternalServerError,
	graph.CodeUnavailable:     http.StatusServiceUnavailable,
}

// StatusFor returns the HTTP status for an error code; 500 for a code not in
// the table.
func StatusFor(c graph.Code) int {
	if s, ok := statusByCode[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// errorBody is the failure envelope's error object.
type errorBody struct {
	Code      graph.Code     `json:"code"`
	Message   string         `json:"message"`
	Field     string         `json:"field,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
	RequestID string         `json:"request_id,omitempty"`
}

// writeError writes err in the failure envelope with the status its code
// maps to. An internal error is logged in full and shown only as "internal
// error" with the request id.
func writeError(ctx context.Context, w http.ResponseWriter, log *slog.Logger, err error) {
	e := graph.AsError(err)
	id := graph.RequestID(ctx)
	body := errorBody{Code: e.Code, Message: e.Message, Field: e.Field, Details: e.Details, RequestID: id}
	if e.Code == graph.CodeInternal {
		log.ErrorContext(ctx, "internal error", "request_id", id, "err", err)
		body = errorBody{Code: e.Code, Message: "internal error (request id " + id + ")", RequestID: id}
	} else if e.Code == graph.CodeUnavailable && e.Err != nil {
		log.WarnContext(ctx, "dependency unavailable", "request_id", id, "err", err)
	}
	switch e.Code {
	case graph.CodeRateLimited:
		retryAfter(w, e)
	case graph.CodeUnauthenticated:
		w.Header().Set("WWW-Authenticate", `Bearer realm="compliance"`)
	}
	if body.Message == "" {
		body.Message = defaultMessage(e)
	}
	writeJSON(w, StatusFor(e.Code), envelope{OK: false, Error: &body})
}

func defaultMessage(e *graph.Error) string {
	if e.Field != "" {
		return e.Field + " is invalid"
	}
	return http.StatusText(StatusFor(e.Code))
}
