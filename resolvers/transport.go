package resolvers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// postTransport serves GraphQL over HTTP POST with application/json bodies.
// Unlike gqlgen's own POST transport it names the offending field of a bad
// body and answers 400 (never 422 or 200) when the request is bad input: a
// malformed or oversize body, a variable of the wrong type, an unparsable or
// invalid query, or an operation whose every error is an input error and
// which returned no data.
type postTransport struct {
	maxBody int64 // 1 MiB when zero
}

var _ graphql.Transport = postTransport{}

func (postTransport) Supports(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Header.Get("Upgrade") == ""
}

type postBody struct {
	Query         *string         `json:"query"`
	OperationName string          `json:"operationName"`
	Variables     json.RawMessage `json:"variables"`
	Extensions    map[string]any  `json:"extensions"`
}

func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	w.Header().Set("Content-Type", "application/json")
	start := graphql.Now()

	fail := func(field, format string, args ...any) {
		e := gqlerror.Errorf(format, args...)
		e.Extensions = map[string]any{"code": "invalid", "field": field}
		w.WriteHeader(http.StatusBadRequest)
		writeResponse(w, exec.DispatchError(ctx, gqlerror.List{e}))
	}

	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || (mt != "application/json" && mt != "application/graphql-response+json") {
		fail("Content-Type", "Content-Type must be application/json")
		return
	}
	max := t.maxBody
	if max == 0 {
		max = 1 << 20
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail("body", "request body exceeds %d bytes", tooBig.Limit)
			return
		}
		fail("body", "request body could not be read")
		return
	}
	var body postBody
	if field, msg := decodeJSON(raw, &body); msg != "" {
		fail(field, "%s", msg)
		return
	}
	if body.Query == nil || strings.TrimSpace(*body.Query) == "" {
		fail("query", "query is required")
		return
	}
	params := &graphql.RawParams{
		Query:         *body.Query,
		OperationName: body.OperationName,
		Extensions:    body.Extensions,
		Headers:       r.Header,
	}
	if v := bytes.TrimSpace(body.Variables); len(v) > 0 && !bytes.Equal(v, []byte("null")) {
		if v[0] != '{' {
			fail("variables", "variables must be a JSON object")
			return
		}
		// Plain numbers (float64), not json.Number: gqlparser checks a String
		// variable by its Go kind, and json.Number's kind is string, which
		// would let 7 pass as "7". GraphQL's Int is 32-bit, so nothing is lost.
		if field, msg := decodeJSONPlain(v, &params.Variables); msg != "" {
			fail("variables"+suffix(field), "%s", msg)
			return
		}
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	resp := responses(ctx)
	if onlyInputErrors(resp) {
		w.WriteHeader(http.StatusBadRequest)
	}
	writeResponse(w, resp)
}

// decodeJSON decodes raw into v, numbers as json.Number. On failure it
// returns the field at fault ("body" when it is the whole document) and a
// message naming the problem without echoing the body.
func decodeJSON(raw []byte, v any) (field, msg string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			return "body", "request body must hold a single JSON value"
		}
		return "", ""
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		f := typeErr.Field
		if f == "" {
			f = "body"
		}
		return f, fmt.Sprintf("%s must be %s, got %s", f, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return "body", fmt.Sprintf("malformed JSON at byte %d", syntaxErr.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "body", "request body is empty or truncated JSON"
	default:
		return "body", "malformed JSON"
	}
}

// decodeJSONPlain is decodeJSON with numbers as float64.
func decodeJSONPlain(raw []byte, v any) (field, msg string) {
	if err := json.Unmarshal(raw, v); err != nil {
		return decodeJSON(raw, v)
	}
	return "", ""
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "a boolean"
	case "ptr":
		return "a string"
	default:
		return "a number"
	}
}

func suffix(field string) string {
	if field == "" || field == "body" {
		return ""
	}
	return "." + field
}

// onlyInputErrors reports whether resp failed as a whole because of bad
// input: it has errors, each with code invalid or invalid_param, and its data
// is null or holds only nulls.
func onlyInputErrors(resp *graphql.Response) bool {
	if resp == nil || len(resp.Errors) == 0 {
		return false
	}
	for _, e := range resp.Errors {
		c, _ := e.Extensions["code"].(string)
		if c != "invalid" && c != "invalid_param" {
			return false
		}
	}
	data := bytes.TrimSpace(resp.Data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return true
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	for _, v := range top {
		if !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return false
		}
	}
	return true
}

func writeResponse(w io.Writer, resp *graphql.Response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b = []byte(`{"errors":[{"message":"internal error","extensions":{"code":"internal"}}]}`)
	}
	w.Write(b)
}
