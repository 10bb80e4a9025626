package ide

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// minSize is the smallest plausible body for each served asset; the vendored
// bundles are far larger, the bootstrap files are small but not trivial.
var minSize = map[string]int{
	"react.production.min.js":     5_000,
	"react-dom.production.min.js": 100_000,
	"graphiql.min.js":             500_000,
	"graphiql.min.css":            100_000,
	"ide.js":                      500,
	"ide.css":                     50,
}

var refRE = regexp.MustCompile(`<(script|link)\b[^>]*?\b(src|href)="([^"]*)"`)

func newServer(t *testing.T, strip string, endpoint string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/graphiql/", http.StripPrefix(strip, Handler(endpoint)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, rawURL string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	// A custom Accept-Encoding disables the transport's transparent gzip.
	if _, ok := hdr["Accept-Encoding"]; !ok {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestPageAndAssets(t *testing.T) {
	for _, strip := range []string{"/graphiql", "/graphiql/"} {
		t.Run("StripPrefix("+strip+")", func(t *testing.T) {
			srv := newServer(t, strip, "/graphql")
			pageURL, _ := url.Parse(srv.URL + "/graphiql/")

			resp, body := get(t, pageURL.String(), nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("page: status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Fatalf("page: Content-Type %q", ct)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("page: X-Content-Type-Options %q", got)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("page: CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-eval") || strings.Contains(strings.Split(strings.Split(csp, "script-src")[1], ";")[0], "unsafe-inline") {
				t.Errorf("page: CSP allows inline or eval'd script: %q", csp)
			}
			html := string(body)
			if regexp.MustCompile(`<script\b[^>]*>[^<\s]`).MatchString(html) {
				t.Errorf("page has an inline script:\n%s", html)
			}
			if strings.Contains(html, "<style") || strings.Contains(html, " style=") {
				t.Errorf("page has inline styles:\n%s", html)
			}
			if !strings.Contains(html, `data-endpoint="/graphql"`) {
				t.Errorf("page does not carry the endpoint:\n%s", html)
			}

			refs := refRE.FindAllStringSubmatch(html, -1)
			seen := map[string]bool{}
			for _, m := range refs {
				tag, ref := m[1], m[3]
				if tag == "link" && strings.HasPrefix(ref, "data:") {
					continue // the empty favicon
				}
				if strings.Contains(ref, "://") || strings.HasPrefix(ref, "//") || strings.HasPrefix(ref, "/") {
					t.Errorf("%s reference %q is not relative", tag, ref)
					continue
				}
				u, err := pageURL.Parse(ref)
				if err != nil {
					t.Fatalf("bad reference %q: %v", ref, err)
				}
				if u.Host != pageURL.Host || !strings.HasPrefix(u.Path, "/graphiql/assets/") {
					t.Errorf("reference %q resolves to %s, outside /graphiql/assets/", ref, u)
				}
				name := strings.TrimPrefix(u.Path, "/graphiql/assets/")
				seen[name] = true

				aresp, abody := get(t, u.String(), nil)
				if aresp.StatusCode != http.StatusOK {
					t.Errorf("%s: status %d", ref, aresp.StatusCode)
					continue
				}
				wantCT := map[string]string{"script": "text/javascript", "link": "text/css"}[tag]
				if ct := aresp.Header.Get("Content-Type"); !strings.HasPrefix(ct, wantCT) {
					t.Errorf("%s: Content-Type %q, want %s", ref, ct, wantCT)
				}
				if got := aresp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("%s: X-Content-Type-Options %q", ref, got)
				}
				if cc := aresp.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") || !strings.Contains(cc, "immutable") {
					t.Errorf("%s: Cache-Control %q", ref, cc)
				}
				min, ok := minSize[name]
				if !ok {
					t.Errorf("unexpected asset %q referenced by the page", name)
				} else if len(abody) < min {
					t.Errorf("%s: %d bytes, want at least %d", ref, len(abody), min)
				}
				if aresp.Header.Get("Content-Encoding") != "" {
					t.Errorf("%s: Content-Encoding %q without Accept-Encoding", ref, aresp.Header.Get("Content-Encoding"))
				}
			}
			for name := range minSize {
				if !seen[name] {
					t.Errorf("page does not reference %s", name)
				}
			}
		})
	}
}

func TestGzipAndConditional(t *testing.T) {
	srv := newServer(t, "/graphiql", "/graphql")
	base := srv.URL + "/graphiql/assets/graphiql.min.js"
	plain, _ := assetFS.ReadFile("assets/graphiql.min.js")

	resp, body := get(t, base, map[string]string{"Accept-Encoding": "br, gzip"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip: status %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	unz, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unz, plain) {
		t.Fatalf("gzip body does not decode to the asset (err %v)", err)
	}
	if cc := resp.Header.Get("Cache-Control"); strings.Contains(cc, "immutable") {
		t.Errorf("unversioned URL must not be immutable: %q", cc)
	}

	resp, _ = get(t, base, map[string]string{"Accept-Encoding": "gzip;q=0"})
	if resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 still got Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}

	etag := resp.Header.Get("ETag")
	resp, _ = get(t, base, map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", resp.StatusCode)
	}
}

func TestRoutingAndMethods(t *testing.T) {
	srv := newServer(t, "/graphiql", "/graphql")
	for path, want := range map[string]int{
		"/graphiql/":                     200,
		"/graphiql/index.html":           200,
		"/graphiql/assets/LICENSE.react": 200,
		"/graphiql/assets/nope.js":       404,
		"/graphiql/assets/":              404,
		"/graphiql/assets/README.md":     404,
		"/graphiql/other":                404,
	} {
		resp, _ := get(t, srv.URL+path, nil)
		if resp.StatusCode != want {
			t.Errorf("GET %s: status %d, want %d", path, resp.StatusCode, want)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", path)
		}
	}
	resp, err := http.Post(srv.URL+"/graphiql/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: status %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	// ServeMux redirects the bare prefix to the slash form the relative URLs need.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/graphiql", nil)
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if (resp.StatusCode != http.StatusMovedPermanently && resp.StatusCode != http.StatusTemporaryRedirect) || resp.Header.Get("Location") != "/graphiql/" {
		t.Errorf("GET /graphiql: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestEndpointVariants(t *testing.T) {
	t.Run("escaped", func(t *testing.T) {
		srv := newServer(t, "/graphiql", `/graph"ql?a=1&b=<2>`)
		_, body := get(t, srv.URL+"/graphiql/", nil)
		if strings.Contains(string(body), `<2>`) || strings.Contains(string(body), `graph"ql`) {
			t.Errorf("endpoint not escaped:\n%s", body)
		}
	})
	t.Run("host CSP", func(t *testing.T) {
		srv := newServer(t, "/graphiql", "/graphql")
		resp, _ := get(t, srv.URL+"/graphiql/", nil)
		host := strings.TrimPrefix(srv.URL, "http://")
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "connect-src 'self' ws://"+host+" wss://"+host+";") {
			t.Errorf("CSP connect-src lacks the websocket origins of %s: %q", host, csp)
		}
		// A hostile Host header must not be copied into the policy.
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = "x; script-src *"
		if got := Handler("/graphql").(*handler).csp(r); strings.Contains(got, "script-src *") {
			t.Errorf("hostile Host header reached the CSP: %q", got)
		}
	})
	t.Run("absolute URL", func(t *testing.T) {
		srv := newServer(t, "/graphiql", "https://api.example.com/graphql")
		resp, body := get(t, srv.URL+"/graphiql/", nil)
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "connect-src 'self' https://api.example.com wss://api.example.com;") {
			t.Errorf("CSP %q", csp)
		}
		if !strings.Contains(string(body), `data-endpoint="https://api.example.com/graphql"`) {
			t.Errorf("endpoint missing:\n%s", body)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("Handler(ftp://...) did not panic")
			}
		}()
		Handler("ftp://example.com/graphql")
	})
}

func TestHead(t *testing.T) {
	srv := newServer(t, "/graphiql", "/graphql")
	resp, err := http.Head(srv.URL + "/graphiql/assets/ide.css")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("HEAD: status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
