package graphdb

import (
	"fmt"
	"regexp"
)

// A query is one Cypher statement the package runs, declared once with
// register so that the conformance test can enumerate every statement.
type query struct {
	name   string // unique, lower_snake_case; names the statement in errors and tests
	cypher string
}

// registry holds every registered query, in registration order.
var registry []query

var queryName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// register declares a Cypher statement under name and returns it. It panics
// if name is malformed or already registered, so mistakes fail at init.
//
// Write portable Cypher (DESIGN.md section 4): anchor on an indexed label
// with a property map, avoid list comprehensions over paths, and do not
// rely on ORDER BY after UNWIND (sort in Go instead).
func register(name, cypher string) query {
	if !queryName.MatchString(name) {
		panic(fmt.Sprintf("graphdb: malformed query name %q", name))
	}
	for _, q := range registry {
		if q.name == name {
			panic(fmt.Sprintf("graphdb: query %q registered twice", name))
		}
	}
	q := query{name: name, cypher: cypher}
	registry = append(registry, q)
	return q
}

// queries returns a copy of the registry.
func queries() []query {
	return append([]query(nil), registry...)
}
