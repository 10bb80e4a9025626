package main

// End-to-end tests of issue 3: keys, authentication, scopes, sandbox keys,
// member isolation and daily quotas, over the real binary.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	productionKeyRE = regexp.MustCompile(`^ctc_live_[0-9A-Za-z]{40}$`)
	sandboxKeyRE    = regexp.MustCompile(`^sk_sandbox_[0-9A-Za-z]{40}$`)
)

// keysDB connects to the database named by env's DATABASE_URL, for
// assertions and for arranging states the API cannot reach (an expired key).
func keysDB(t *testing.T, env []string) *pgx.Conn {
	t.Helper()
	var url string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			url = v
		}
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// execSQL runs statements on c, failing the test on error.
func execSQL(t *testing.T, c *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// cliResult runs a binary subcommand and returns its stdout, stderr and
// exit code, without failing the test on a non-zero exit.
func cliResult(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("compliance %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// clientFrom returns an HTTP client whose connections leave from the
// loopback address ip (any of 127/8 on Linux), so the server sees ip as the
// client address.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// doWith is in.do through client; body is a string sent as JSON.
func (in *instance) doWith(client *http.Client, method, path, key, body string, headers ...string) response {
	in.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, in.base+path, rd)
	if err != nil {
		in.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		in.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// sandboxOut is the answer of POST /api/v1/keys/sandbox.
type sandboxOut struct {
	Key          string    `json:"key"`
	KeyID        string    `json:"key_id"`
	Environment  string    `json:"environment"`
	Scopes       []string  `json:"scopes"`
	ExpiresAt    time.Time `json:"expires_at"`
	DailyCallCap int       `json:"daily_call_cap"`
}

// sandboxKey issues a sandbox key for email from 127.0.0.1.
func (in *instance) sandboxKey(email string) sandboxOut {
	in.t.Helper()
	r := in.do("POST", "/api/v1/keys/sandbox", "", map[string]any{"email": email, "company": "Acme", "use_case": "tests"})
	if r.status != 201 {
		in.t.Fatalf("POST /api/v1/keys/sandbox(%s) = %d %s, want 201", email, r.status, r.body)
	}
	var k sandboxOut
	if err := json.Unmarshal(r.body, &k); err != nil {
		in.t.Fatal(err)
	}
	return k
}

// gqlErrorCodes returns the extensions.code of each GraphQL error.
func gqlErrorCodes(t *testing.T, r response) []string {
	t.Helper()
	var body struct {
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("GraphQL body: %v: %s", err, r.body)
	}
	var codes []string
	for _, e := range body.Errors {
		codes = append(codes, e.Extensions.Code)
	}
	return codes
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return fmt.Sprintf("%x", s[:])
}

func TestE2EKeysCLI(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	db := keysDB(t, env)
	ctx := context.Background()

	exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	out := runCLI(t, env, "keys", "create", "--member", "acme", "--name", "ci", "--scopes", "kyc,audit", "--env", "production", "--expires", exp.Format(time.RFC3339))
	var created struct {
		Key       string     `json:"key"`
		KeyID     string     `json:"key_id"`
		Scopes    []string   `json:"scopes"`
		ExpiresAt *time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(out, &created); err != nil {
		t.Fatalf("keys create output is not JSON: %v: %s", err, out)
	}
	if !productionKeyRE.MatchString(created.Key) || created.KeyID == "" || !slices.Equal(created.Scopes, []string{"audit", "kyc"}) ||
		created.ExpiresAt == nil || !created.ExpiresAt.Equal(exp) {
		t.Errorf("keys create = %s; want {key ctc_live_+40 base62, key_id, scopes [audit kyc], expires_at %s}", out, exp.Format(time.RFC3339))
	}

	// Stored as SHA-256 with a visible prefix; the secret is nowhere.
	var hash []byte
	var prefix, envName string
	if err := db.QueryRow(ctx, `SELECT key_hash, key_prefix, environment FROM api_keys WHERE id = $1`, created.KeyID).Scan(&hash, &prefix, &envName); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(created.Key)); !bytes.Equal(hash, sum[:]) {
		t.Errorf("key_hash = %x, want SHA-256 of the raw key %x", hash, sum)
	}
	if prefix != created.Key[:len("ctc_live_")+6] || envName != "production" {
		t.Errorf("key_prefix, environment = %q, %q; want %q, production", prefix, envName, created.Key[:15])
	}
	secret := created.Key[15:]
	var leaks int
	db.QueryRow(ctx, `SELECT (SELECT count(*) FROM api_keys k WHERE strpos(k::text, $1) > 0) +
		(SELECT count(*) FROM members m WHERE strpos(m::text, $1) > 0) +
		(SELECT count(*) FROM audit_log a WHERE strpos(a::text, $1) > 0)`, secret).Scan(&leaks)
	if leaks != 0 {
		t.Errorf("the secret part of the raw key is stored in %d rows", leaks)
	}

	// Defaults: the whole plan, no expiry.
	var def struct {
		Key       string     `json:"key"`
		KeyID     string     `json:"key_id"`
		Scopes    []string   `json:"scopes"`
		ExpiresAt *time.Time `json:"expires_at"`
	}
	json.Unmarshal(runCLI(t, env, "keys", "create", "--member", "acme", "--name", "default"), &def)
	wantAll := []string{"adverse_media", "audit", "cluster", "kyc", "lc", "regulatory", "reports", "ubo", "watchlists", "webhooks"}
	if !slices.Equal(def.Scopes, wantAll) || def.ExpiresAt != nil {
		t.Errorf("keys create without --scopes/--expires = scopes %v, expires %v; want %v, null", def.Scopes, def.ExpiresAt, wantAll)
	}

	// list shows both keys, never a secret.
	listOut := runCLI(t, env, "keys", "list", "--member", "acme")
	var list struct {
		Keys []map[string]any `json:"keys"`
	}
	json.Unmarshal(listOut, &list)
	if len(list.Keys) != 2 || bytes.Contains(listOut, []byte(secret)) || bytes.Contains(listOut, []byte(def.Key[15:])) {
		t.Errorf("keys list = %s; want 2 keys and no secret", listOut)
	}
	for _, k := range list.Keys {
		for _, f := range []string{"id", "name", "key_prefix", "environment", "scopes", "is_active", "last_used_at", "created_at", "expires_at"} {
			if _, ok := k[f]; !ok {
				t.Errorf("keys list entry lacks %q: %v", f, k)
			}
		}
	}

	// The key works until revoked through the CLI, then fails at once.
	if r := in.do("GET", "/api/v1/keys", created.Key, nil); r.status != 200 {
		t.Fatalf("GET /api/v1/keys with a CLI key = %d %s", r.status, r.body)
	}
	revokeTests := []struct {
		name, member string
		wantOut      string
		wantCode     int
	}{
		{"another member's key", "globex", "", 1},
		{"own key", "acme", `"revoked": true`, 0},
		{"own key again", "acme", `"revoked": false`, 0},
	}
	runCLI(t, env, "keys", "create", "--member", "globex", "--name", "x")
	for _, tt := range revokeTests {
		stdout, stderr, code := cliResult(t, env, "keys", "revoke", "--member", tt.member, "--id", created.KeyID)
		if code != tt.wantCode || !strings.Contains(stdout, tt.wantOut) {
			t.Errorf("keys revoke (%s) = exit %d, %q %q; want exit %d with %q", tt.name, code, stdout, stderr, tt.wantCode, tt.wantOut)
		}
	}
	if r := in.do("GET", "/api/v1/keys", created.Key, nil); r.status != 401 {
		t.Errorf("GET /api/v1/keys with a revoked key = %d, want 401", r.status)
	}

	errTests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"sandbox env", []string{"keys", "create", "--member", "acme", "--name", "n", "--env", "sandbox"}, "--env must be production"},
		{"bad expiry", []string{"keys", "create", "--member", "acme", "--name", "n", "--expires", "tomorrow"}, "RFC 3339"},
		{"past expiry", []string{"keys", "create", "--member", "acme", "--name", "n", "--expires", "2001-01-01T00:00:00Z"}, "expires_at must be in the future"},
		{"unknown scope", []string{"keys", "create", "--member", "acme", "--name", "n", "--scopes", "kyc,root"}, `unknown scope "root"`},
		{"no name", []string{"keys", "create", "--member", "acme"}, "name is required"},
		{"no member", []string{"keys", "create", "--name", "n"}, "--member is required"},
		{"list unknown member", []string{"keys", "list", "--member", "nobody"}, "no member named"},
		{"revoke bad id", []string{"keys", "revoke", "--member", "acme", "--id", "xyz"}, "--id must be a key id"},
		{"unknown subcommand", []string{"keys", "rotate", "--member", "acme"}, "unknown keys command"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := cliResult(t, env, tt.args...)
			if code == 0 || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("compliance %s = exit %d, stdout %q, stderr %q; want non-zero exit naming %q", strings.Join(tt.args, " "), code, stdout, stderr, tt.wantErr)
			}
		})
	}
}

func TestE2EKeysREST(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	db := keysDB(t, env)
	a := in.key("acme")

	// GET: no envelope, the API key fields, never a secret.
	r := in.do("GET", "/api/v1/keys", a.Key, nil)
	m := r.json(t)
	keys, _ := m["keys"].([]any)
	if r.status != 200 || m["ok"] != nil || len(keys) != 1 {
		t.Fatalf("GET /api/v1/keys = %d %s; want 200 {keys:[1 key]} without the envelope", r.status, r.body)
	}
	k0 := keys[0].(map[string]any)
	wantFields := []string{"created_at", "environment", "expires_at", "id", "is_active", "key_prefix", "last_used_at", "name", "scopes"}
	var gotFields []string
	for f := range k0 {
		gotFields = append(gotFields, f)
	}
	slices.Sort(gotFields)
	if !slices.Equal(gotFields, wantFields) || k0["id"] != a.KeyID || k0["environment"] != "production" || k0["is_active"] != true ||
		!strings.HasPrefix(a.Key, k0["key_prefix"].(string)) {
		t.Errorf("GET /api/v1/keys entry = %v; want exactly the fields %v of the caller's key", k0, wantFields)
	}
	if bytes.Contains(r.body, []byte(a.Key[15:])) {
		t.Errorf("GET /api/v1/keys shows the secret")
	}

	// POST: 201 {key, key_id, scopes, expires_at} without the envelope.
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	r = in.do("POST", "/api/v1/keys", a.Key, map[string]any{"name": "deploy", "scopes": []string{"kyc", "audit", "kyc"}, "expires_at": exp.Format(time.RFC3339)})
	var made struct {
		Key       string     `json:"key"`
		KeyID     string     `json:"key_id"`
		Scopes    []string   `json:"scopes"`
		ExpiresAt *time.Time `json:"expires_at"`
		OK        *bool      `json:"ok"`
	}
	json.Unmarshal(r.body, &made)
	if r.status != 201 || made.OK != nil || !productionKeyRE.MatchString(made.Key) || made.KeyID == "" ||
		!slices.Equal(made.Scopes, []string{"audit", "kyc"}) || made.ExpiresAt == nil || !made.ExpiresAt.Equal(exp) {
		t.Fatalf("POST /api/v1/keys = %d %s; want 201 {key, key_id, scopes [audit kyc], expires_at} without the envelope", r.status, r.body)
	}
	if r := in.do("GET", "/api/v1/audit?page_size=1", made.Key, nil); r.status != 200 {
		t.Errorf("the new key's audit scope: GET /api/v1/audit = %d %s", r.status, r.body)
	}

	// scopes must be a subset of the member's plan.
	execSQL(t, db, `UPDATE members SET plan_scopes = '{kyc,audit,regulatory}' WHERE name = 'acme'`)
	planTests := []struct {
		name       string
		scopes     any
		wantStatus int
		wantScopes []string
	}{
		{"within plan", []string{"regulatory"}, 201, []string{"regulatory"}},
		{"default is the plan", nil, 201, []string{"audit", "kyc", "regulatory"}},
		{"empty list is the plan", []string{}, 201, []string{"audit", "kyc", "regulatory"}},
		{"outside plan", []string{"kyc", "ubo"}, 400, nil},
		{"unknown scope", []string{"admin"}, 400, nil},
		{"scopes not a list", "kyc", 400, nil},
	}
	for _, tt := range planTests {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"name": tt.name}
			if tt.scopes != nil {
				body["scopes"] = tt.scopes
			}
			r := in.do("POST", "/api/v1/keys", a.Key, body)
			if r.status != tt.wantStatus {
				t.Fatalf("POST /api/v1/keys(scopes %v) = %d %s, want %d", tt.scopes, r.status, r.body, tt.wantStatus)
			}
			if tt.wantStatus == 400 {
				if e := r.errorOf(t); e["field"] != "scopes" {
					t.Errorf("POST /api/v1/keys(scopes %v) error.field = %v, want scopes", tt.scopes, e["field"])
				}
				return
			}
			var got struct{ Scopes []string }
			json.Unmarshal(r.body, &got)
			if !slices.Equal(got.Scopes, tt.wantScopes) {
				t.Errorf("POST /api/v1/keys(scopes %v) scopes = %v, want %v", tt.scopes, got.Scopes, tt.wantScopes)
			}
		})
	}

	// DELETE: soft revoke; the next request with the key fails at once.
	victim := in.key("acme")
	if r := in.do("GET", "/api/v1/keys", victim.Key, nil); r.status != 200 {
		t.Fatalf("victim key before revoke = %d", r.status)
	}
	revokeTests := []struct {
		name       string
		query      string
		wantStatus int
		want       string
	}{
		{"no id", "", 400, `"field":"id"`},
		{"not a uuid", "?id=12345", 400, `"field":"id"`},
		{"unknown key", "?id=00000000-0000-4000-8000-000000000000", 404, `"code":"not_found"`},
		{"own key", "?id=" + victim.KeyID, 200, `{"revoked":true}`},
		{"own key again", "?id=" + victim.KeyID, 200, `{"revoked":false}`},
		{"upper-case id", "?id=" + strings.ToUpper(victim.KeyID), 200, `{"revoked":false}`},
	}
	for _, tt := range revokeTests {
		t.Run("revoke "+tt.name, func(t *testing.T) {
			r := in.do("DELETE", "/api/v1/keys"+tt.query, a.Key, nil)
			if r.status != tt.wantStatus || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("DELETE /api/v1/keys%s = %d %s, want %d containing %s", tt.query, r.status, r.body, tt.wantStatus, tt.want)
			}
		})
	}
	for _, path := range []string{"/api/v1/keys", "/graphql"} {
		method, body := "GET", any(nil)
		if path == "/graphql" {
			method, body = "POST", map[string]any{"query": "{ me { memberId } }"}
		}
		if r := in.do(method, path, victim.Key, body); r.status != 401 {
			t.Errorf("%s %s with the revoked key = %d %s, want 401", method, path, r.status, r.body)
		}
	}
	var active bool
	var revokedAt *time.Time
	db.QueryRow(context.Background(), `SELECT is_active, revoked_at FROM api_keys WHERE id = $1`, victim.KeyID).Scan(&active, &revokedAt)
	if active || revokedAt == nil {
		t.Errorf("revoked key row: is_active %v, revoked_at %v; want kept with is_active false and revoked_at set", active, revokedAt)
	}
	list := in.do("GET", "/api/v1/keys", a.Key, nil)
	var listed struct {
		Keys []struct {
			ID       string `json:"id"`
			IsActive bool   `json:"is_active"`
		}
	}
	json.Unmarshal(list.body, &listed)
	found := false
	for _, k := range listed.Keys {
		if k.ID == victim.KeyID {
			found = true
			if k.IsActive {
				t.Errorf("revoked key listed with is_active true")
			}
		}
	}
	if !found {
		t.Errorf("revoked key missing from GET /api/v1/keys: revoke must be soft")
	}
}

func TestE2EAuthentication(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	db := keysDB(t, env)
	good := in.key("acme")
	kycOnly := in.key("acme", "kyc")
	revoked := in.key("acme")
	in.do("DELETE", "/api/v1/keys?id="+revoked.KeyID, good.Key, nil)
	expired := in.key("acme")
	execSQL(t, db, `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, expired.KeyID)
	sandExpired := in.sandboxKey("late@example.com")
	execSQL(t, db, `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, sandExpired.KeyID)
	unknown := "ctc_live_" + strings.Repeat("Z", 40)

	tests := []struct {
		name       string
		headers    []string
		wantStatus int
		badKey     bool // a key was sent and refused: its message must not say why
	}{
		{"no key", nil, 401, false},
		{"bearer", []string{"Authorization", "Bearer " + good.Key}, 200, false},
		{"bearer, lower-case scheme", []string{"Authorization", "bearer " + good.Key}, 200, false},
		{"X-Api-Key", []string{"X-Api-Key", good.Key}, 200, false},
		{"unknown key", []string{"Authorization", "Bearer " + unknown}, 401, true},
		{"unknown X-Api-Key", []string{"X-Api-Key", unknown}, 401, true},
		{"revoked key", []string{"Authorization", "Bearer " + revoked.Key}, 401, true},
		{"expired key", []string{"X-Api-Key", expired.Key}, 401, true},
		{"expired sandbox key", []string{"X-Api-Key", sandExpired.Key}, 401, true},
		{"key with a character more", []string{"X-Api-Key", good.Key + "x"}, 401, true},
		{"empty bearer", []string{"Authorization", "Bearer "}, 401, false},
		{"basic scheme", []string{"Authorization", "Basic " + good.Key}, 401, false},
		{"key without scheme", []string{"Authorization", good.Key}, 401, false},
	}
	var messages []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.do("GET", "/api/v1/keys", "", nil, tt.headers...)
			if r.status != tt.wantStatus {
				t.Fatalf("GET /api/v1/keys with %v = %d %s, want %d", tt.headers, r.status, r.body, tt.wantStatus)
			}
			if r.status == 401 {
				e := r.errorOf(t)
				if e["code"] != "unauthenticated" || r.header.Get("WWW-Authenticate") == "" {
					t.Errorf("401 = %s, WWW-Authenticate %q; want code unauthenticated and a challenge", r.body, r.header.Get("WWW-Authenticate"))
				}
				if tt.badKey {
					messages = append(messages, e["message"].(string))
				}
			}
		})
	}
	// Unknown, revoked and expired keys are refused alike.
	if len(messages) != 6 {
		t.Errorf("%d refused-key messages collected, want 6", len(messages))
	}
	for _, m := range messages {
		if m != messages[0] {
			t.Errorf("401 messages differ (%q vs %q): a caller could tell unknown, revoked and expired keys apart", m, messages[0])
		}
	}

	// 403 when the key lacks the route's scope, on REST and GraphQL.
	scopeTests := []struct {
		name, method, path string
		body               any
		key                string
		wantStatus         int
		wantGQLCode        string
	}{
		{"REST audit without the scope", "GET", "/api/v1/audit", nil, kycOnly.Key, 403, ""},
		{"REST audit summary without the scope", "GET", "/api/v1/audit?format=summary", nil, kycOnly.Key, 403, ""},
		{"REST audit with the scope", "GET", "/api/v1/audit", nil, good.Key, 200, ""},
		{"GraphQL auditRows without the scope", "POST", "/graphql", map[string]any{"query": "{ auditRows { count } }"}, kycOnly.Key, 200, "forbidden"},
		{"GraphQL auditSummary without the scope", "POST", "/graphql", map[string]any{"query": "{ auditSummary { total } }"}, kycOnly.Key, 200, "forbidden"},
		{"GraphQL auditRows without a key", "POST", "/graphql", map[string]any{"query": "{ auditRows { count } }"}, "", 200, "unauthenticated"},
		{"GraphQL apiKeys without a key", "POST", "/graphql", map[string]any{"query": "{ apiKeys { id } }"}, "", 200, "unauthenticated"},
		{"GraphQL with an unknown key", "POST", "/graphql", map[string]any{"query": "{ me { memberId } }"}, unknown, 401, ""},
		{"GraphQL with a revoked key", "POST", "/graphql", map[string]any{"query": "{ me { memberId } }"}, revoked.Key, 401, ""},
	}
	for _, tt := range scopeTests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.do(tt.method, tt.path, tt.key, tt.body)
			if r.status != tt.wantStatus {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, r.status, r.body, tt.wantStatus)
			}
			switch {
			case r.status == 403:
				if e := r.errorOf(t); e["code"] != "forbidden" {
					t.Errorf("403 error = %v, want code forbidden", e)
				}
			case r.status == 401:
				if e := r.errorOf(t); e["code"] != "unauthenticated" {
					t.Errorf("401 error = %v, want code unauthenticated", e)
				}
			case tt.wantGQLCode != "":
				if codes := gqlErrorCodes(t, r); !slices.Equal(codes, []string{tt.wantGQLCode}) {
					t.Errorf("GraphQL error codes = %v, want [%s]: %s", codes, tt.wantGQLCode, r.body)
				}
			}
		})
	}
	// Without a key, me is null rather than an error.
	if r := in.gql("", "{ me { memberId } }", nil); r.status != 200 || !strings.Contains(string(r.body), `"me":null`) || strings.Contains(string(r.body), "errors") {
		t.Errorf("{ me } without a key = %d %s, want data.me null", r.status, r.body)
	}
}

func TestE2ESandboxKeys(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	db := keysDB(t, env)

	// Bad input is 400 naming the field and uses no issuance quota.
	badTests := []struct {
		name, body, field string
	}{
		{"missing email", `{"company": "Acme"}`, "email"},
		{"empty email", `{"email": ""}`, "email"},
		{"no at sign", `{"email": "analyst.example.com"}`, "email"},
		{"no dotted domain", `{"email": "analyst@localhost"}`, "email"},
		{"display name", `{"email": "Ann <ann@example.com>"}`, "email"},
		{"two addresses", `{"email": "a@example.com,b@example.com"}`, "email"},
		{"email not a string", `{"email": 42}`, "email"},
		{"not JSON", `email=a@example.com`, "body"},
	}
	for _, tt := range badTests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.do("POST", "/api/v1/keys/sandbox", "", tt.body)
			if r.status != 400 {
				t.Fatalf("POST /api/v1/keys/sandbox %s = %d %s, want 400", tt.body, r.status, r.body)
			}
			if e := r.errorOf(t); e["field"] != tt.field || e["code"] != "invalid" {
				t.Errorf("POST /api/v1/keys/sandbox %s error = %v, want invalid naming %s", tt.body, e, tt.field)
			}
		})
	}

	// 201 with the key once, no envelope, keyless: a production key sent
	// along is ignored.
	before := time.Now()
	r := in.do("POST", "/api/v1/keys/sandbox", "ctc_live_"+strings.Repeat("0", 40), map[string]any{"email": " Dev@Example.COM "})
	var sk sandboxOut
	json.Unmarshal(r.body, &sk)
	var raw map[string]any
	json.Unmarshal(r.body, &raw)
	scopes := slices.Clone(sk.Scopes)
	slices.Sort(scopes)
	if r.status != 201 || raw["ok"] != nil || !sandboxKeyRE.MatchString(sk.Key) || sk.KeyID == "" || sk.Environment != "sandbox" ||
		!slices.Equal(scopes, []string{"cluster", "regulatory"}) || sk.DailyCallCap != 100 {
		t.Fatalf("POST /api/v1/keys/sandbox = %d %s; want 201 {key sk_sandbox_+40, key_id, environment sandbox, scopes [regulatory cluster], expires_at, daily_call_cap 100}", r.status, r.body)
	}
	if lo, hi := before.Add(30*24*time.Hour-time.Minute), time.Now().Add(30*24*time.Hour+time.Minute); sk.ExpiresAt.Before(lo) || sk.ExpiresAt.After(hi) {
		t.Errorf("sandbox expires_at = %v, want 30 days from now", sk.ExpiresAt)
	}
	var hash []byte
	var email, ip, prefix string
	var cap int
	db.QueryRow(context.Background(), `SELECT key_hash, issued_to_email, host(issued_to_ip), daily_call_cap, key_prefix FROM api_keys WHERE id = $1`, sk.KeyID).
		Scan(&hash, &email, &ip, &cap, &prefix)
	if sum := sha256.Sum256([]byte(sk.Key)); !bytes.Equal(hash, sum[:]) || email != "dev@example.com" || ip != "127.0.0.1" || cap != 100 || prefix != sk.Key[:len("sk_sandbox_")+6] {
		t.Errorf("stored sandbox key: hash %x, email %q, ip %q, cap %d, prefix %q; want SHA-256, dev@example.com, 127.0.0.1, 100, %q", hash, email, ip, cap, prefix, sk.Key[:17])
	}

	// Sandbox keys reach only regulatory and cluster-check routes: 403 on
	// key management and the audit trail, REST and GraphQL.
	restTests := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/keys", nil},
		{"POST", "/api/v1/keys", map[string]any{"name": "escalate", "scopes": []string{"regulatory"}}},
		{"DELETE", "/api/v1/keys?id=" + sk.KeyID, nil},
		{"GET", "/api/v1/audit", nil},
		{"GET", "/api/v1/audit?format=csv", nil},
		{"GET", "/api/v1/audit?format=summary", nil},
	}
	for _, tt := range restTests {
		t.Run("sandbox "+tt.method+" "+tt.path, func(t *testing.T) {
			r := in.do(tt.method, tt.path, sk.Key, tt.body)
			if r.status != 403 {
				t.Fatalf("%s %s with a sandbox key = %d %s, want 403", tt.method, tt.path, r.status, r.body)
			}
			if e := r.errorOf(t); e["code"] != "forbidden" {
				t.Errorf("%s %s with a sandbox key: error %v, want forbidden", tt.method, tt.path, e)
			}
		})
	}
	gqlTests := []struct{ name, query string }{
		{"apiKeys", `{ apiKeys { id } }`},
		{"apiKey", `{ apiKey(id: "` + sk.KeyID + `") { id } }`},
		{"auditRows", `{ auditRows { count } }`},
		{"auditSummary", `{ auditSummary { total } }`},
		{"createApiKey", `mutation { createApiKey(input: {name: "x", scopes: [regulatory]}) { key } }`},
		{"revokeApiKey", `mutation { revokeApiKey(id: "` + sk.KeyID + `") { revoked } }`},
		{"_entities", `{ _entities(representations: [{__typename: "ApiKey", id: "` + sk.KeyID + `"}]) { ... on ApiKey { id } } }`},
	}
	for _, tt := range gqlTests {
		t.Run("sandbox GraphQL "+tt.name, func(t *testing.T) {
			r := in.gql(sk.Key, tt.query, nil)
			if codes := gqlErrorCodes(t, r); !slices.Equal(codes, []string{"forbidden"}) {
				t.Errorf("GraphQL %s with a sandbox key = %d %s, want one forbidden error", tt.name, r.status, r.body)
			}
			if strings.Contains(string(r.body), `"id":"`+sk.KeyID) {
				t.Errorf("GraphQL %s with a sandbox key leaked a key: %s", tt.name, r.body)
			}
		})
	}
	me := in.gql(sk.Key, `{ me { memberName key { environment isActive } } }`, nil)
	if !strings.Contains(string(me.body), `"memberName":"sandbox:dev@example.com"`) || !strings.Contains(string(me.body), `"environment":"sandbox"`) {
		t.Errorf("{ me } with a sandbox key = %s", me.body)
	}
	var keys int
	db.QueryRow(context.Background(), `SELECT count(*) FROM api_keys`).Scan(&keys)
	if keys != 1 {
		t.Errorf("%d keys after the sandbox key's attempts, want 1: it must not have minted any", keys)
	}
}

func TestE2ESandboxIssuanceLimits(t *testing.T) {
	in := start(t, testEnv(t))
	retryAfter := func(t *testing.T, r response) int {
		t.Helper()
		if r.status != 429 {
			t.Fatalf("status = %d %s, want 429", r.status, r.body)
		}
		e := r.errorOf(t)
		secs, err := strconv.Atoi(r.header.Get("Retry-After"))
		if err != nil || e["code"] != "rate_limited" {
			t.Fatalf("429 = Retry-After %q, %s; want seconds and code rate_limited", r.header.Get("Retry-After"), r.body)
		}
		if d, _ := e["details"].(map[string]any); d["retry_after_seconds"] != float64(secs) {
			t.Errorf("details.retry_after_seconds = %v, want Retry-After %d", d["retry_after_seconds"], secs)
		}
		return secs
	}
	issue := func(ip, email string) response {
		return in.doWith(clientFrom(ip), "POST", "/api/v1/keys/sandbox", "", fmt.Sprintf(`{"email": %q}`, email))
	}

	// 3 keys per address per hour.
	for i := range 3 {
		if r := issue("127.0.0.1", fmt.Sprintf("ip%d@example.com", i)); r.status != 201 {
			t.Fatalf("sandbox key %d from 127.0.0.1 = %d %s, want 201", i+1, r.status, r.body)
		}
	}
	if secs := retryAfter(t, issue("127.0.0.1", "ip4@example.com")); secs < 3500 || secs > 3600 {
		t.Errorf("4th key from one address: Retry-After %d, want about an hour (3500..3600)", secs)
	}

	// 5 keys per email per day, whatever the address and letter case.
	steps := []struct{ ip, email string }{
		{"127.0.0.2", "quota@example.com"},
		{"127.0.0.2", "quota@example.com"},
		{"127.0.0.2", "Quota@Example.com"},
		{"127.0.0.3", "quota@example.com"},
		{"127.0.0.3", "QUOTA@example.com"},
	}
	for i, s := range steps {
		if r := issue(s.ip, s.email); r.status != 201 {
			t.Fatalf("sandbox key %d for %s from %s = %d %s, want 201", i+1, s.email, s.ip, r.status, r.body)
		}
	}
	if secs := retryAfter(t, issue("127.0.0.4", "quota@example.com")); secs < 86000 || secs > 86400 {
		t.Errorf("6th key for one email: Retry-After %d, want about a day", secs)
	}
	// Another email from a fresh address is unaffected.
	if r := issue("127.0.0.4", "other@example.com"); r.status != 201 {
		t.Errorf("sandbox key for another email = %d %s, want 201", r.status, r.body)
	}
}

// TestE2ESandboxDailyQuotaAcrossInstances makes 101 calls with one sandbox
// key, split over two instances sharing a database: 100 pass, the 101st is
// 429 on both. { me } is a GraphQL call any key may make, and /graphql
// counts the quota of every key with a daily cap.
func TestE2ESandboxDailyQuotaAcrossInstances(t *testing.T) {
	env := testEnv(t)
	in1 := start(t, slices.Clip(env))
	in2 := serveOnly(t, slices.Clip(env))
	sk := in1.sandboxKey("quota@example.com")
	ins := []*instance{in1, in2}
	for i := range 100 {
		r := ins[i%2].gql(sk.Key, "{ me { memberId } }", nil)
		if r.status != 200 || !strings.Contains(string(r.body), `"memberId"`) {
			t.Fatalf("call %d of 100 on instance %d = %d %s, want 200", i+1, i%2+1, r.status, r.body)
		}
	}
	for n, in := range ins {
		r := in.gql(sk.Key, "{ me { memberId } }", nil)
		if r.status != 429 {
			t.Fatalf("call past 100 on instance %d = %d %s, want 429", n+1, r.status, r.body)
		}
		e := r.errorOf(t)
		secs, err := strconv.Atoi(r.header.Get("Retry-After"))
		if e["code"] != "rate_limited" || err != nil || secs < 1 || secs > 86400 {
			t.Errorf("call past 100 on instance %d: %s, Retry-After %q; want rate_limited and 1..86400 s (to 00:00 UTC)", n+1, r.body, r.header.Get("Retry-After"))
		}
	}
	// A production key of another member is not affected.
	if r := in2.gql(in1.key("acme").Key, "{ me { memberId } }", nil); r.status != 200 {
		t.Errorf("production key after the sandbox quota ran out = %d %s", r.status, r.body)
	}
}

func TestE2EMemberIsolation(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	db := keysDB(t, env)
	a := in.key("acme")
	aOther := in.key("acme", "kyc")
	b := in.key("globex")
	unknownID := "00000000-0000-4000-8000-000000000000"

	// A leaves audit rows with known request ids.
	var aRequests []string
	for i := range 3 {
		id := fmt.Sprintf("acme-private-%d-request", i)
		aRequests = append(aRequests, id)
		in.do("GET", "/api/v1/keys", a.Key, nil, "X-Request-Id", id)
	}
	var aMember string
	db.QueryRow(context.Background(), `SELECT id::text FROM members WHERE name = 'acme'`).Scan(&aMember)
	leaks := func(t *testing.T, what string, body []byte) {
		t.Helper()
		for _, s := range append([]string{a.KeyID, aOther.KeyID, aMember, a.Key[:15]}, aRequests...) {
			if bytes.Contains(body, []byte(s)) {
				t.Errorf("%s shows member A's %q: %s", what, s, body)
			}
		}
	}

	// REST list and audit export show B nothing of A's.
	restReads := []string{"/api/v1/keys", "/api/v1/audit", "/api/v1/audit?format=csv", "/api/v1/audit?format=summary", "/api/v1/audit?days=365&page_size=10000"}
	for _, p := range restReads {
		t.Run("B reads "+p, func(t *testing.T) {
			r := in.do("GET", p, b.Key, nil)
			if r.status != 200 {
				t.Fatalf("GET %s as B = %d %s", p, r.status, r.body)
			}
			leaks(t, "GET "+p+" as B", r.body)
		})
	}
	var bRows int
	db.QueryRow(context.Background(), `SELECT count(*) FROM audit_log a JOIN members m ON m.id = a.member_id WHERE m.name = 'globex'`).Scan(&bRows)
	r := in.do("GET", "/api/v1/audit?format=summary", b.Key, nil)
	if total := r.json(t)["data"].(map[string]any)["total"]; total != float64(bRows) {
		t.Errorf("B's audit summary total = %v, want B's own %d rows", total, bRows)
	}

	// B cannot revoke A's key, and cannot tell it from an unknown id.
	ra := in.do("DELETE", "/api/v1/keys?id="+aOther.KeyID, b.Key, nil)
	ru := in.do("DELETE", "/api/v1/keys?id="+unknownID, b.Key, nil)
	ea, eu := ra.errorOf(t), ru.errorOf(t)
	if ra.status != 404 || ru.status != 404 || ea["code"] != eu["code"] || ea["message"] != eu["message"] {
		t.Errorf("B revoking A's key = %d %v; unknown id = %d %v; want the same 404", ra.status, ea, ru.status, eu)
	}

	// GraphQL: B's keys only; A's key is null like an unknown one, through
	// apiKey and federation _entities; revoke fails like an unknown id.
	gqlReads := []struct {
		name, query, want string
	}{
		{"apiKeys", `{ apiKeys { id } }`, `{"data":{"apiKeys":[{"id":"` + b.KeyID + `"}]}}`},
		{"apiKey of A", `{ apiKey(id: "` + a.KeyID + `") { id name } }`, `{"data":{"apiKey":null}}`},
		{"apiKey unknown", `{ apiKey(id: "` + unknownID + `") { id name } }`, `{"data":{"apiKey":null}}`},
		{"apiKey own", `{ apiKey(id: "` + b.KeyID + `") { id } }`, `{"data":{"apiKey":{"id":"` + b.KeyID + `"}}}`},
		{"_entities of A", `{ _entities(representations: [{__typename: "ApiKey", id: "` + a.KeyID + `"}, {__typename: "ApiKey", id: "` + b.KeyID + `"}]) { ... on ApiKey { id } } }`,
			`{"data":{"_entities":[null,{"id":"` + b.KeyID + `"}]}}`},
		{"_entities unknown", `{ _entities(representations: [{__typename: "ApiKey", id: "` + unknownID + `"}]) { ... on ApiKey { id } } }`, `{"data":{"_entities":[null]}}`},
	}
	for _, tt := range gqlReads {
		t.Run("B GraphQL "+tt.name, func(t *testing.T) {
			r := in.gql(b.Key, tt.query, nil)
			if string(bytes.TrimSpace(r.body)) != tt.want {
				t.Errorf("GraphQL %s as B = %s, want %s", tt.name, r.body, tt.want)
			}
		})
	}
	rowsQ := in.gql(b.Key, `{ auditRows(days: 365, pageSize: 10000) { count rows { requestId memberId keyId } } auditSummary(days: 365) { total } }`, nil)
	if codes := gqlErrorCodes(t, rowsQ); len(codes) != 0 {
		t.Errorf("B's auditRows/auditSummary errors: %s", rowsQ.body)
	}
	leaks(t, "GraphQL auditRows as B", rowsQ.body)
	revA := in.gql(b.Key, `mutation { revokeApiKey(id: "`+aOther.KeyID+`") { revoked } }`, nil)
	revU := in.gql(b.Key, `mutation { revokeApiKey(id: "`+unknownID+`") { revoked } }`, nil)
	if ca, cu := gqlErrorCodes(t, revA), gqlErrorCodes(t, revU); !slices.Equal(ca, []string{"not_found"}) || !slices.Equal(ca, cu) {
		t.Errorf("B revokeApiKey(A's key) = %s; unknown id = %s; want the same not_found", revA.body, revU.body)
	}

	// A's keys still work after every attempt.
	for _, k := range []keyOut{a, aOther} {
		if r := in.do("GET", "/api/v1/keys", k.Key, nil); r.status != 200 {
			t.Errorf("A's key %s after B's attempts = %d, want 200", k.KeyID, r.status)
		}
	}
	var active int
	db.QueryRow(context.Background(), `SELECT count(*) FROM api_keys WHERE is_active`).Scan(&active)
	if active != 3 {
		t.Errorf("%d active keys, want 3: B revoked something", active)
	}
}

// TestE2EKeysGraphQL covers the GraphQL side of key management: createApiKey
// returns the raw key once, apiKeys/apiKey never return secrets, and
// revokeApiKey takes effect at once.
func TestE2EKeysGraphQL(t *testing.T) {
	in := start(t, testEnv(t))
	a := in.key("acme")
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	r := in.gql(a.Key, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { key apiKey { id name keyPrefix environment scopes isActive expiresAt } } }`,
		map[string]any{"in": map[string]any{"name": "gql", "scopes": []string{"kyc", "audit"}, "expiresAt": exp}})
	var created struct {
		Data struct {
			CreateAPIKey struct {
				Key    string
				APIKey struct {
					ID, Name, KeyPrefix, Environment, ExpiresAt string
					Scopes                                      []string
					IsActive                                    bool
				} `json:"apiKey"`
			} `json:"createApiKey"`
		}
	}
	json.Unmarshal(r.body, &created)
	c := created.Data.CreateAPIKey
	if !productionKeyRE.MatchString(c.Key) || c.APIKey.Name != "gql" || !strings.HasPrefix(c.Key, c.APIKey.KeyPrefix) ||
		c.APIKey.Environment != "production" || !slices.Equal(c.APIKey.Scopes, []string{"audit", "kyc"}) || !c.APIKey.IsActive {
		t.Fatalf("createApiKey = %s", r.body)
	}
	if got, _ := time.Parse(time.RFC3339, c.APIKey.ExpiresAt); got.Format(time.RFC3339) != exp {
		t.Errorf("createApiKey expiresAt = %q, want %s", c.APIKey.ExpiresAt, exp)
	}

	badTests := []struct {
		name  string
		input map[string]any
		field string
	}{
		{"empty name", map[string]any{"name": " "}, "input.name"},
		{"past expiry", map[string]any{"name": "x", "expiresAt": "2001-01-01T00:00:00Z"}, "input.expiresAt"},
	}
	for _, tt := range badTests {
		t.Run(tt.name, func(t *testing.T) {
			r := in.gql(a.Key, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { key } }`, map[string]any{"in": tt.input})
			_, ext := gqlError(t, r)
			if ext["code"] != "invalid" || ext["field"] != tt.field {
				t.Errorf("createApiKey(%v) = %d %s, want invalid naming %s", tt.input, r.status, r.body, tt.field)
			}
		})
	}

	list := in.gql(a.Key, `{ apiKeys { id keyPrefix isActive } apiKey(id: "`+c.APIKey.ID+`") { id } }`, nil)
	if bytes.Contains(list.body, []byte(c.Key[15:])) || bytes.Contains(list.body, []byte(a.Key[15:])) || !bytes.Contains(list.body, []byte(c.APIKey.ID)) {
		t.Errorf("apiKeys = %s; want the keys without secrets", list.body)
	}
	rev := in.gql(a.Key, `mutation { revokeApiKey(id: "`+c.APIKey.ID+`") { revoked } }`, nil)
	if !bytes.Contains(rev.body, []byte(`"revoked":true`)) {
		t.Errorf("revokeApiKey = %s", rev.body)
	}
	if r := in.gql(c.Key, `{ me { memberId } }`, nil); r.status != 401 {
		t.Errorf("GraphQL with the key revoked through GraphQL = %d, want 401", r.status)
	}
	if r := in.gql(a.Key, `mutation { revokeApiKey(id: "`+c.APIKey.ID+`") { revoked } }`, nil); !bytes.Contains(r.body, []byte(`"revoked":false`)) {
		t.Errorf("revokeApiKey again = %s, want revoked false", r.body)
	}
}
