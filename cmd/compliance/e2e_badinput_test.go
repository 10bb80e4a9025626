package main

import (
	"strings"
	"testing"
)

// gqlError returns the first GraphQL error's message and extensions.
func gqlError(t *testing.T, r response) (string, map[string]any) {
	t.Helper()
	m := r.json(t)
	errs, _ := m["errors"].([]any)
	if len(errs) == 0 {
		t.Fatalf("no errors in %s", r.body)
	}
	e := errs[0].(map[string]any)
	ext, _ := e["extensions"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg, ext
}

func TestE2EGraphQLBadInput(t *testing.T) {
	in := start(t, testEnv(t, "MAX_BODY_BYTES=4096"))
	k := in.key("acme")
	const createKey = `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { apiKey { id } } }`
	const oneKey = `query($id: UUID!) { apiKey(id: $id) { id } }`
	const submit = `mutation($in: ClusterSubmissionInput!) { submitCluster(input: $in) { requestId } }`
	submission := func(change func(map[string]any)) map[string]any {
		in := map[string]any{"submitterEmail": "bad-input@example.com", "entityName": "Demo Bad Input Trading",
			"pitchSummary": "A pitch of at least forty characters about a phantom cargo."}
		change(in)
		return map[string]any{"query": submit, "variables": map[string]any{"in": in}}
	}
	tests := []struct {
		name      string
		body      any
		wantField string
		wantIn    string // substring of the message
	}{
		{"malformed JSON", `{"query": "{ me { memberId } }"`, "body", "JSON"},
		{"not an object", `[1, 2]`, "body", "object"},
		{"query of wrong type", `{"query": 5}`, "query", "string"},
		{"query missing", `{"variables": {}}`, "query", "required"},
		{"variables not an object", map[string]any{"query": oneKey, "variables": []int{1}}, "variables", "object"},
		{"oversize body", `{"query": "` + strings.Repeat("x", 5000) + `"}`, "body", "exceeds"},
		{"syntax error", map[string]any{"query": "{ me { "}, "query", ""},
		{"unknown field", map[string]any{"query": "{ noSuchField }"}, "query", "noSuchField"},
		{"variable of wrong type", map[string]any{"query": oneKey, "variables": map[string]any{"id": 5}}, "id", "UUID"},
		{"bad UUID", map[string]any{"query": oneKey, "variables": map[string]any{"id": "not-a-uuid"}}, "id", "UUID"},
		{"missing variable", map[string]any{"query": oneKey}, "id", ""},
		{"unknown enum value", map[string]any{"query": createKey, "variables": map[string]any{"in": map[string]any{"name": "x", "scopes": []string{"everything"}}}}, "in.scopes[0]", "everything"},
		{"bad date", map[string]any{"query": createKey, "variables": map[string]any{"in": map[string]any{"name": "x", "expiresAt": "tomorrow"}}}, "input.expiresAt", "RFC 3339"},
		{"wrong input type", map[string]any{"query": createKey, "variables": map[string]any{"in": map[string]any{"name": 7}}}, "in.name", ""},
		{"bad UUID literal", map[string]any{"query": `{ apiKey(id: "nope") { id } }`}, "id", "UUID"},
		{"date in the past", map[string]any{"query": createKey, "variables": map[string]any{"in": map[string]any{"name": "x", "expiresAt": "2001-01-01T00:00:00Z"}}}, "input.expiresAt", "future"},
		// The cluster submission names its input fields as the input path.
		{"evidence notes not an object", submission(func(m map[string]any) { m["evidenceNotes"] = []int{1} }), "input.evidenceNotes", "object"},
		{"evidence notes a string", submission(func(m map[string]any) { m["evidenceNotes"] = "x" }), "input.evidenceNotes", "object"},
		{"submitter email", submission(func(m map[string]any) { m["submitterEmail"] = "not-an-email" }), "input.submitterEmail", "input.submitterEmail"},
		{"entity name too short", submission(func(m map[string]any) { m["entityName"] = "X" }), "input.entityName", "input.entityName"},
		{"pitch too short", submission(func(m map[string]any) { m["pitchSummary"] = "short" }), "input.pitchSummary", "input.pitchSummary"},
		{"evidence url", submission(func(m map[string]any) { m["evidenceUrls"] = []string{"ftp://x.example/a"} }), "input.evidenceUrls", "input.evidenceUrls"},
		{"linkedin url", submission(func(m map[string]any) { m["entityLinkedinUrl"] = "linkedin.com/x" }), "input.entityLinkedinUrl", "input.entityLinkedinUrl"},
		{"submission request id", map[string]any{"query": `{ clusterSubmission(requestId: "sub_nope") { requestId } }`}, "requestId", "requestId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.do("POST", "/graphql", k.Key, tt.body)
			if r.status != 400 {
				t.Fatalf("POST /graphql %s = %d, want 400: %s", tt.name, r.status, r.body)
			}
			msg, ext := gqlError(t, r)
			if ext["code"] != "invalid" {
				t.Errorf("extensions.code = %v, want invalid (%s)", ext["code"], r.body)
			}
			if tt.wantField != "" && ext["field"] != tt.wantField {
				t.Errorf("extensions.field = %v, want %q (%s)", ext["field"], tt.wantField, r.body)
			}
			if !strings.Contains(msg, tt.wantIn) {
				t.Errorf("message = %q, want it to mention %q", msg, tt.wantIn)
			}
			for _, leak := range []string{"goroutine", ".go:", "SELECT ", "MATCH ", "pgx", "neo4j"} {
				if strings.Contains(string(r.body), leak) {
					t.Errorf("body leaks %q: %s", leak, r.body)
				}
			}
		})
	}
}

func TestE2ERESTBadInput(t *testing.T) {
	in := start(t, testEnv(t, "MAX_BODY_BYTES=4096"))
	k := in.key("acme", "audit", "kyc")
	tests := []struct {
		name         string
		method, path string
		body         any
		wantStatus   int
		wantField    string
	}{
		{"malformed JSON", "POST", "/api/v1/keys", `{"name": `, 400, "body"},
		{"empty body", "POST", "/api/v1/keys", ``, 400, "body"},
		{"array body", "POST", "/api/v1/keys", `[]`, 400, "body"},
		{"trailing data", "POST", "/api/v1/keys", `{"name":"a"} {}`, 400, "body"},
		{"name of wrong type", "POST", "/api/v1/keys", `{"name": 5}`, 400, "name"},
		{"name missing", "POST", "/api/v1/keys", `{"scopes": ["audit"]}`, 400, "name"},
		{"scopes of wrong type", "POST", "/api/v1/keys", `{"name": "a", "scopes": "audit"}`, 400, "scopes"},
		{"unknown scope", "POST", "/api/v1/keys", `{"name": "a", "scopes": ["root"]}`, 400, "scopes"},
		{"bad date", "POST", "/api/v1/keys", `{"name": "a", "expires_at": "next week"}`, 400, "expires_at"},
		{"past date", "POST", "/api/v1/keys", `{"name": "a", "expires_at": "2001-01-01T00:00:00Z"}`, 400, "expires_at"},
		{"oversize body", "POST", "/api/v1/keys", `{"name": "` + strings.Repeat("a", 5000) + `"}`, 400, "body"},
		{"bad UUID", "DELETE", "/api/v1/keys?id=12345", nil, 400, "id"},
		{"missing id", "DELETE", "/api/v1/keys", nil, 400, "id"},
		{"days too small", "GET", "/api/v1/audit?days=0", nil, 400, "days"},
		{"days too large", "GET", "/api/v1/audit?days=366", nil, 400, "days"},
		{"days not a number", "GET", "/api/v1/audit?days=many", nil, 400, "days"},
		{"page_size too large", "GET", "/api/v1/audit?page_size=10001", nil, 400, "page_size"},
		{"bad format", "GET", "/api/v1/audit?format=xml", nil, 400, "format"},
		{"bad cursor", "GET", "/api/v1/audit?cursor=yesterday", nil, 400, "cursor"},
		{"bad email", "POST", "/api/v1/keys/sandbox", `{"email": "not-an-email"}`, 400, "email"},
		{"email of wrong type", "POST", "/api/v1/keys/sandbox", `{"email": ["a@b.co"]}`, 400, "email"},
		{"search without a name", "POST", "/api/v1/sanctions/search", `{"country": "RU"}`, 400, "name"},
		{"search name of wrong type", "POST", "/api/v1/sanctions/search", `{"name": 7}`, 400, "name"},
		{"search bad dob", "POST", "/api/v1/sanctions/search", `{"name": "x", "dob": "1970-13"}`, 400, "dob"},
		{"search unknown country", "POST", "/api/v1/sanctions/search", `{"name": "x", "country": "Atlantis"}`, 400, "country"},
		{"search bad kind", "POST", "/api/v1/sanctions/search", `{"name": "x", "kind": "ship"}`, 400, "kind"},
		{"search threshold too high", "POST", "/api/v1/sanctions/search", `{"name": "x", "threshold": 1.5}`, 400, "threshold"},
		{"search threshold of wrong type", "POST", "/api/v1/sanctions/search", `{"name": "x", "threshold": "high"}`, 400, "threshold"},
		{"unknown path", "GET", "/api/v1/nothing-here", nil, 404, ""},
		{"wrong method", "PUT", "/api/v1/keys", nil, 405, "method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.do(tt.method, tt.path, k.Key, tt.body)
			if r.status != tt.wantStatus {
				t.Fatalf("%s %s = %d, want %d: %s", tt.method, tt.path, r.status, tt.wantStatus, r.body)
			}
			e := r.errorOf(t)
			if tt.wantField != "" && e["field"] != tt.wantField {
				t.Errorf("error.field = %v, want %q: %s", e["field"], tt.wantField, r.body)
			}
			if msg, _ := e["message"].(string); msg == "" {
				t.Errorf("error.message is empty: %s", r.body)
			}
			if e["request_id"] != r.header.Get("X-Request-Id") {
				t.Errorf("error.request_id = %v, want the X-Request-Id %q", e["request_id"], r.header.Get("X-Request-Id"))
			}
		})
	}
	// Nothing was half-written: the member still has only its first key.
	list := in.do("GET", "/api/v1/keys", k.Key, nil)
	if keys := list.json(t)["keys"].([]any); len(keys) != 1 {
		t.Errorf("after bad requests the member has %d keys, want 1", len(keys))
	}
}
