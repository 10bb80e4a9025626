// Package ide serves an interactive GraphQL IDE (GraphiQL) from the binary.
//
// All browser code is vendored in assets/ and embedded with go:embed: the
// GraphiQL 3 UMD build (which bundles the graphql-ws client used for
// subscriptions), the React 18 UMD builds, their licenses, and a small
// bootstrap script (assets/ide.js). No CDN is contacted. See assets/README.md
// for the pinned versions and fetch-assets.sh for refreshing them.
//
// Mount the handler under a path prefix that ends in a slash, stripping the
// prefix:
//
//	mux.Handle("/graphiql/", http.StripPrefix("/graphiql", ide.Handler("/graphql")))
//
// (stripping "/graphiql/" instead of "/graphiql" works as well). The page uses
// relative asset URLs ("assets/..."), so it must be reached at a URL ending in
// "/" — http.ServeMux redirects "/graphiql" to "/graphiql/" by itself.
package ide

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"
)

//go:embed assets/*.js assets/*.css assets/LICENSE.*
var assetFS embed.FS

// AssetPrefix is the sub-path, relative to the handler's root, under which the
// embedded assets are served.
const AssetPrefix = "assets/"

type asset struct {
	name        string
	contentType string
	data        []byte
	hash        string // hex sha256 prefix, used as ?v= and ETag

	gzOnce sync.Once
	gz     []byte // gzip-compressed data, nil when compression does not pay
}

func (a *asset) gzipped() []byte {
	a.gzOnce.Do(func() {
		if len(a.data) < 1024 {
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(a.data)
		_ = zw.Close()
		if buf.Len() < len(a.data) {
			a.gz = buf.Bytes()
		}
	})
	return a.gz
}

var (
	assetsOnce sync.Once
	assetsByNm map[string]*asset
)

func loadAssets() map[string]*asset {
	assetsOnce.Do(func() {
		entries, err := assetFS.ReadDir("assets")
		if err != nil {
			panic("ide: reading embedded assets: " + err.Error())
		}
		assetsByNm = make(map[string]*asset, len(entries))
		for _, e := range entries {
			data, err := assetFS.ReadFile("assets/" + e.Name())
			if err != nil {
				panic("ide: reading embedded asset: " + err.Error())
			}
			sum := sha256.Sum256(data)
			assetsByNm[e.Name()] = &asset{
				name:        e.Name(),
				contentType: contentType(e.Name()),
				data:        data,
				hash:        hex.EncodeToString(sum[:8]),
			}
		}
	})
	return assetsByNm
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	default: // LICENSE.*
		return "text/plain; charset=utf-8"
	}
}

// Scripts and stylesheets referenced by the page, in load order.
var (
	pageScripts     = []string{"react.production.min.js", "react-dom.production.min.js", "graphiql.min.js", "ide.js"}
	pageStylesheets = []string{"graphiql.min.css", "ide.css"}
)

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Compliance GraphQL IDE</title>
<link rel="icon" href="data:,">
{{- range .Stylesheets}}
<link rel="stylesheet" href="{{.}}">
{{- end}}
</head>
<body>
<div id="graphiql" class="ide-message" data-endpoint="{{.Endpoint}}">Loading GraphiQL…</div>
<noscript>This GraphQL IDE needs JavaScript. The API itself is at {{.Endpoint}}.</noscript>
{{- range .Scripts}}
<script src="{{.}}"></script>
{{- end}}
</body>
</html>
`))

type handler struct {
	endpoint string
	// fixedConnect holds CSP connect-src sources for an absolute endpoint URL
	// (its origin and the matching ws/wss origin); empty for a path endpoint.
	fixedConnect []string
	page         []byte
	pageETag     string
	assets       map[string]*asset
}

// Handler returns an http.Handler serving the GraphiQL IDE, configured to send
// queries and mutations to endpoint over HTTP POST and subscriptions over a
// websocket to the same URL with the scheme switched to ws:// or wss://
// (following the page's own scheme when endpoint is a path).
//
// endpoint is normally an absolute path such as "/graphql"; a relative path is
// resolved against the page URL, and an absolute http(s) URL is allowed too (it
// is then added to the page's CSP connect-src). An empty endpoint means
// "/graphql". Handler panics if endpoint is not a valid URL reference.
//
// Routes, relative to wherever the handler is mounted (after StripPrefix):
//
//	"" or "/" or "/index.html"    the IDE page (GET, HEAD)
//	"assets/<name>"               embedded assets (GET, HEAD), long-cached
//
// Everything else is 404; other methods are 405. Every response carries
// X-Content-Type-Options: nosniff; the page carries a Content-Security-Policy
// allowing only same-origin scripts (no inline script, no eval) and
// same-origin styles plus 'unsafe-inline' styles (CodeMirror and GraphiQL set
// style attributes).
func Handler(endpoint string) http.Handler {
	if endpoint == "" {
		endpoint = "/graphql"
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		panic(fmt.Sprintf("ide: invalid endpoint %q: %v", endpoint, err))
	}
	h := &handler{endpoint: endpoint, assets: loadAssets()}
	if u.IsAbs() || u.Host != "" {
		var wsScheme string
		switch u.Scheme {
		case "https":
			wsScheme = "wss"
		case "http":
			wsScheme = "ws"
		default:
			panic(fmt.Sprintf("ide: endpoint %q must be a path or an http(s) URL", endpoint))
		}
		if u.Host == "" || strings.ContainsAny(u.Host, " ;,'\"") {
			panic(fmt.Sprintf("ide: invalid endpoint host in %q", endpoint))
		}
		h.fixedConnect = []string{u.Scheme + "://" + u.Host, wsScheme + "://" + u.Host}
	}

	data := struct {
		Endpoint    string
		Scripts     []string
		Stylesheets []string
	}{Endpoint: endpoint}
	for _, name := range pageScripts {
		data.Scripts = append(data.Scripts, h.assetURL(name))
	}
	for _, name := range pageStylesheets {
		data.Stylesheets = append(data.Stylesheets, h.assetURL(name))
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, data); err != nil {
		panic("ide: rendering page: " + err.Error())
	}
	h.page = buf.Bytes()
	sum := sha256.Sum256(h.page)
	h.pageETag = `"` + hex.EncodeToString(sum[:8]) + `"`
	return h
}

// assetURL is the page-relative URL of an embedded asset, versioned by content
// hash so that it can be cached as immutable.
func (h *handler) assetURL(name string) string {
	a, ok := h.assets[name]
	if !ok {
		panic("ide: missing embedded asset " + name)
	}
	return AssetPrefix + a.name + "?v=" + a.hash
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	p := strings.TrimPrefix(r.URL.Path, "/")

	var a *asset
	switch {
	case p == "" || p == "index.html":
	case strings.HasPrefix(p, AssetPrefix):
		a = h.assets[strings.TrimPrefix(p, AssetPrefix)]
		if a == nil {
			http.NotFound(w, r)
			return
		}
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if a != nil {
		h.serveAsset(w, r, a)
		return
	}
	h.servePage(w, r)
}

func (h *handler) servePage(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("ETag", h.pageETag)
	hdr.Set("Content-Security-Policy", h.csp(r))
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(h.page))
}

// hostRE accepts what may appear in a Host header: a DNS name or IPv4 address,
// or a bracketed IPv6 address, with an optional port. Anything else is left out
// of the CSP rather than trusted.
var hostRE = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$`)

func (h *handler) csp(r *http.Request) string {
	connect := []string{"'self'"}
	if h.fixedConnect != nil {
		connect = append(connect, h.fixedConnect...)
	} else if hostRE.MatchString(r.Host) {
		// CSP3 lets 'self' match ws:/wss: on the same host, but older browsers
		// do not; name the websocket origins explicitly.
		connect = append(connect, "ws://"+r.Host, "wss://"+r.Host)
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data:",
		"font-src 'self' data:",
		"connect-src " + strings.Join(connect, " "),
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "; ")
}

func (h *handler) serveAsset(w http.ResponseWriter, r *http.Request, a *asset) {
	hdr := w.Header()
	hdr.Set("Content-Type", a.contentType)
	hdr.Set("Vary", "Accept-Encoding")
	if r.URL.Query().Get("v") == a.hash {
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		// Unversioned (or stale) URL: cacheable, but revalidated.
		hdr.Set("Cache-Control", "public, max-age=300")
	}
	data, etag := a.data, `"`+a.hash+`"`
	if gz := a.gzipped(); gz != nil && acceptsGzip(r) {
		data, etag = gz, `"`+a.hash+`-gz"`
		hdr.Set("Content-Encoding", "gzip")
	}
	hdr.Set("ETag", etag)
	http.ServeContent(w, r, a.name, time.Time{}, bytes.NewReader(data))
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (listed without q=0).
func acceptsGzip(r *http.Request) bool {
	for _, field := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(field, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
				return false
			}
			return true
		}
	}
	return false
}
