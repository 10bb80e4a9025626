package graph

import (
	"strings"

	"github.com/google/uuid"
)

// NewID returns a fresh random (version 4) UUID in canonical form.
func NewID() string { return uuid.NewString() }

// ParseID returns the canonical form of a UUID, accepting it with or without
// a prefix such as "wh_". It fails with invalid naming field when s is not a
// UUID.
func ParseID(field, prefix, s string) (string, error) {
	s = strings.TrimPrefix(s, prefix)
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", Invalid(field, "%s must be a UUID", field)
	}
	return u.String(), nil
}
