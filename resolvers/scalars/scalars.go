// Package scalars holds the GraphQL custom scalars, as marshal and unmarshal
// functions over plain Go types (UUID over string, DateTime over time.Time,
// JSONObject over map[string]any).
// Each rejects bad input with an invalid-input error that the error
// presenter maps to extensions.code, naming the variable.
package scalars

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/tradecompliance/compliance/graph"
)

// MarshalUUID writes a UUID string.
func MarshalUUID(s string) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { io.WriteString(w, strconv.Quote(s)) })
}

// UnmarshalUUID accepts a UUID string and returns its canonical form; it
// fails with invalid for anything else.
func UnmarshalUUID(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", graph.Errorf(graph.CodeInvalid, "must be a UUID string, got %s", typeName(v))
	}
	id, err := graph.ParseID("", "", s)
	if err != nil {
		return "", graph.Errorf(graph.CodeInvalid, "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000")
	}
	return id, nil
}

// MarshalDateTime writes t in UTC, RFC 3339 with microseconds when present.
func MarshalDateTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.Quote(t.UTC().Format(time.RFC3339Nano)))
	})
}

// UnmarshalDateTime accepts an RFC 3339 string; it fails with invalid for
// anything else.
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, graph.Errorf(graph.CodeInvalid, "must be an RFC 3339 date-time string, got %s", typeName(v))
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, graph.Errorf(graph.CodeInvalid, "must be an RFC 3339 date-time such as 2026-01-02T15:04:05Z")
	}
	return t, nil
}

// MarshalJSONObject writes a free-form JSON object.
func MarshalJSONObject(m map[string]any) graphql.Marshaler {
	return graphql.MarshalMap(m)
}

// UnmarshalJSONObject accepts a JSON object; it fails with invalid for any
// other value (a list, a string, a number), which gqlgen's own map scalar
// reports as an internal error.
func UnmarshalJSONObject(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, graph.Errorf(graph.CodeInvalid, "must be a JSON object, got %s", typeName(v))
	}
	return m, nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	default:
		return fmt.Sprintf("a %T", v)
	}
}
