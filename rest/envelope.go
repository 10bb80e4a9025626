package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tradecompliance/compliance/graph"
)

// envelope is the response shape of every enveloped endpoint:
// {ok:true, data} on success, {ok:false, error:{code, message}} on failure.
type envelope struct {
	OK    bool       `json:"ok"`
	Data  any        `json:"data,omitempty"`
	Error *errorBody `json:"error,omitempty"`
}

// writeJSON writes v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"ok":false,"error":{"code":"internal","message":"internal error"}}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// writeData writes data in the success envelope.
func writeData(w http.ResponseWriter, status int, data any) {
	writeJSON(w, status, envelope{OK: true, Data: data})
}

// decodeBody decodes the JSON request body into v. It fails with an
// invalid-input error naming the field for a wrong type, and naming "body"
// for malformed, empty, trailing or oversize JSON. Unknown fields are ignored.
// The Content-Type is not checked: legacy clients send JSON bodies under
// form or missing content types (curl -d does), and the body decides.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(v)
	if err == nil {
		if _, err := dec.Token(); err != io.EOF {
			return graph.Invalid("body", "request body must hold a single JSON value")
		}
		return nil
	}
	var (
		typeErr   *json.UnmarshalTypeError
		syntaxErr *json.SyntaxError
		tooBig    *http.MaxBytesError
	)
	switch {
	case errors.As(err, &tooBig):
		return graph.Invalid("body", "request body exceeds %d bytes", tooBig.Limit)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return graph.Invalid("body", "request body must be a JSON object")
		}
		return graph.Invalid(field, "%s must be %s", field, kindName(typeErr))
	case errors.As(err, &syntaxErr):
		return graph.Invalid("body", "malformed JSON at byte %d", syntaxErr.Offset)
	case errors.Is(err, io.EOF):
		return graph.Invalid("body", "request body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return graph.Invalid("body", "request body is truncated JSON")
	default:
		var ge *graph.Error
		if errors.As(err, &ge) { // from a field's UnmarshalJSON
			return ge
		}
		return graph.Invalid("body", "malformed JSON: %s", sanitize(err))
	}
}

func kindName(e *json.UnmarshalTypeError) string {
	switch e.Type.Kind().String() {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	default:
		return fmt.Sprintf("of type %s", e.Type)
	}
}

// sanitize returns the error text without any Go type names after "json: ".
func sanitize(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}
