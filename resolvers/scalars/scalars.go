// Package scalars holds the GraphQL custom scalars. Each rejects bad input
// with an invalid-input error the error presenter maps to extensions.code.
package scalars

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/tradecompliance/compliance/graph"
)

// UUID is a canonical, lower-case RFC 4122 UUID string.
type UUID string

// UnmarshalGQL accepts a string in canonical UUID form; anything else is an
// invalid-input error.
func (u *UUID) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return graph.Errorf(graph.CodeInvalid, "must be a UUID string, got %s", typeName(v))
	}
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return graph.Errorf(graph.CodeInvalid, "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000")
	}
	*u = UUID(id.String())
	return nil
}

// MarshalGQL writes the UUID as a JSON string.
func (u UUID) MarshalGQL(w io.Writer) { io.WriteString(w, strconv.Quote(string(u))) }

// DateTime is an RFC 3339 instant.
type DateTime time.Time

// UnmarshalGQL accepts an RFC 3339 string; anything else is an invalid-input error.
func (d *DateTime) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return graph.Errorf(graph.CodeInvalid, "must be an RFC 3339 date-time string, got %s", typeName(v))
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return graph.Errorf(graph.CodeInvalid, "must be an RFC 3339 date-time such as 2026-01-02T15:04:05Z")
	}
	*d = DateTime(t)
	return nil
}

// MarshalGQL writes the instant in UTC, RFC 3339 with fractional seconds when present.
func (d DateTime) MarshalGQL(w io.Writer) {
	io.WriteString(w, strconv.Quote(time.Time(d).UTC().Format(time.RFC3339Nano)))
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
