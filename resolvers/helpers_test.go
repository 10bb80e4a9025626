package resolvers

import (
	"testing"

	"github.com/tradecompliance/compliance/graph"
)

// gqlField renames a REST field to its GraphQL argument, an indexed list
// element (directors[1], as kyc.Input.Validate names a bad director)
// included, in the field and at the head of the message.
func TestGQLFieldRenamesIndexedFields(t *testing.T) {
	names := map[string]string{"company_name": "input.companyName", "directors": "input.directors"}
	tests := []struct{ field, msg, wantField, wantMsg string }{
		{"company_name", "company_name is required", "input.companyName", "input.companyName is required"},
		{"directors", "directors holds at most 50 names", "input.directors", "input.directors holds at most 50 names"},
		{"directors[1]", "directors[1] must have at least 2 letters or digits", "input.directors[1]", "input.directors[1] must have at least 2 letters or digits"},
		{"other", "other is odd", "other", "other is odd"},
	}
	for _, tt := range tests {
		e := graph.AsError(gqlField(graph.Invalid(tt.field, "%s", tt.msg), names))
		if e.Field != tt.wantField || e.Message != tt.wantMsg {
			t.Errorf("gqlField(%s) = %s %q, want %s %q", tt.field, e.Field, e.Message, tt.wantField, tt.wantMsg)
		}
	}
}
