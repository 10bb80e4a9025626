package main

// End-to-end tests: the real binary, built once, serving on a free port
// against a fresh Postgres database and the Bolt server NEO4J_URI names.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graphdb/graphdbtest"
	"github.com/tradecompliance/compliance/relational/relationaltest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds the compliance binary once per test process.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "compliance-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "compliance")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// instance is one running server.
type instance struct {
	t       testing.TB
	base    string
	env     []string
	cmd     *exec.Cmd
	logs    *bytes.Buffer
	logMu   *sync.Mutex
	stopped bool
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// testEnv returns the environment for a server on a fresh database.
func testEnv(t testing.TB, extra ...string) []string {
	neo := graphdbtest.Lookup(t)
	env := append(os.Environ(),
		"DATABASE_URL="+relationaltest.NewURL(t),
		"NEO4J_URI="+neo.URI,
		"NEO4J_USER="+neo.User,
		"NEO4J_PASSWORD="+neo.Password,
		"NEO4J_DATABASE="+neo.Database,
		"LOG_LEVEL=debug",
	)
	return append(env, extra...)
}

// runCLI runs a binary subcommand with env and returns its stdout; it fails
// the test on a non-zero exit.
func runCLI(t testing.TB, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("compliance %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// start migrates the database in env and starts `compliance serve`,
// waiting for /healthz. The server is stopped when the test ends.
func start(t testing.TB, env []string) *instance {
	t.Helper()
	runCLI(t, env, "migrate")
	return serveOnly(t, env)
}

func serveOnly(t testing.TB, env []string) *instance {
	t.Helper()
	port := freePort(t)
	env = append(env, fmt.Sprintf("PORT=%d", port))
	in := &instance{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port), env: env, logs: &bytes.Buffer{}, logMu: &sync.Mutex{}}
	in.cmd = exec.Command(binary(t), "serve")
	in.cmd.Env = env
	in.cmd.Stdout = io.Discard
	in.cmd.Stderr = lockedWriter{in.logMu, in.logs}
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.stop() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(in.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %v\n%s", err, in.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return in
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (in *instance) logText() string {
	in.logMu.Lock()
	defer in.logMu.Unlock()
	return in.logs.String()
}

// stop sends SIGTERM and waits for the process to exit.
func (in *instance) stop() error {
	if in.stopped {
		return nil
	}
	in.stopped = true
	in.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- in.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		in.cmd.Process.Kill()
		return fmt.Errorf("server did not stop within 30s")
	}
}

// key issues a production key for member through the CLI.
func (in *instance) key(member string, scopes ...string) keyOut {
	in.t.Helper()
	args := []string{"keys", "create", "--member", member, "--name", "e2e " + member}
	if len(scopes) > 0 {
		args = append(args, "--scopes", strings.Join(scopes, ","))
	}
	var k keyOut
	if err := json.Unmarshal(runCLI(in.t, in.env, args...), &k); err != nil {
		in.t.Fatal(err)
	}
	return k
}

type keyOut struct {
	Key    string   `json:"key"`
	KeyID  string   `json:"key_id"`
	Scopes []string `json:"scopes"`
}

// response is an HTTP answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

// errorOf returns the error object of a failure envelope.
func (r response) errorOf(t testing.TB) map[string]any {
	t.Helper()
	m := r.json(t)
	if m["ok"] != false {
		t.Fatalf("ok = %v, want false: %s", m["ok"], r.body)
	}
	e, _ := m["error"].(map[string]any)
	if e == nil {
		t.Fatalf("no error object: %s", r.body)
	}
	return e
}

// do sends a request; body may be nil, a string (sent as is) or a value
// (sent as JSON). Headers are name, value pairs.
func (in *instance) do(method, path, key string, body any, headers ...string) response {
	in.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, in.base+path, rd)
	if err != nil {
		in.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// gql posts a GraphQL query and returns the response.
func (in *instance) gql(key, query string, vars map[string]any) response {
	in.t.Helper()
	return in.do("POST", "/graphql", key, map[string]any{"query": query, "variables": vars})
}
