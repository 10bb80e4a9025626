package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph"
)

// checkPath is the route C5 measures; checkBucket prefixes its rolling
// limit's buckets in rate_gcra (rest/server.go: "route:" + pattern + ":key:" + id).
const (
	checkPath   = "/api/v1/regulatory/check"
	checkBucket = "route:GET " + checkPath + ":key:"
)

// The check route's limit (rest/routes.go): 60 per minute per key, as GCRA
// a burst of 60 and then one per second.
const (
	checkBurst    = 60
	checkInterval = time.Second
)

// checkCountry is a country as a caller may name it, and the ISO code it
// must resolve to.
type checkCountry struct{ in, iso2 string }

// checkCountries are names, ISO-2 and ISO-3 codes and variants, one
// diacritic and one parenthesised form among them.
var checkCountries = []checkCountry{
	{"Russia", "RU"}, {"RU", "RU"}, {"RUS", "RU"}, {"Russian Federation", "RU"},
	{"Iran (Islamic Republic of)", "IR"}, {"IR", "IR"}, {"IRN", "IR"}, {"Iran", "IR"},
	{"Côte d'Ivoire", "CI"}, {"CIV", "CI"}, {"Ivory Coast", "CI"},
	{"France", "FR"}, {"FR", "FR"}, {"FRA", "FR"},
	{"United States", "US"}, {"US", "US"}, {"USA", "US"}, {"United States of America", "US"},
	{"India", "IN"}, {"IND", "IN"}, {"india", "IN"},
	{"Nigeria", "NG"}, {"NG", "NG"},
	{"China", "CN"}, {"CHN", "CN"}, {"People's Republic of China", "CN"},
}

// checkProducts are categories and keywords, with the category each names.
var checkProducts = []struct{ in, category string }{
	{"crude", "crude"}, {"refined", "refined"}, {"lpg", "lpg"}, {"lng", "lng"}, {"bitumen", "bitumen"},
	{"diesel", "refined"}, {"gasoil", "refined"}, {"gas oil", "refined"}, {"jet", "refined"}, {"naphtha", "refined"},
}

// checkListings are the listing_type values; "" leaves the parameter out
// (the service then answers for demand).
var checkListings = []struct{ in, want string }{{"supply", "supply"}, {"demand", "demand"}, {"", "demand"}}

// checkQuery is one query string of the mix and the answer it must get.
type checkQuery struct {
	raw                    string // URL-encoded, without the '?'
	iso2, category, listed string
}

// checkQueries returns every country x product x listing type: 780 query
// strings, spaces and non-ASCII percent-encoded.
func checkQueries() []checkQuery {
	enc := func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
	var qs []checkQuery
	for _, c := range checkCountries {
		for _, p := range checkProducts {
			for _, l := range checkListings {
				raw := "country=" + enc(c.in) + "&product=" + enc(p.in)
				if l.in != "" {
					raw += "&listing_type=" + l.in
				}
				qs = append(qs, checkQuery{raw: raw, iso2: c.iso2, category: p.category, listed: l.want})
			}
		}
	}
	return qs
}

// checkSource is one connection's requests: it cycles through its own keys
// and, independently, through every query of the mix (each connection
// starting at a different query).
type checkSource struct {
	head, auth, tail []byte // around the query string and the key
	queries          []checkQuery
	keys             []string
	off, n           int
	uses             []int // requests sent with each key
}

func newCheckSource(addr string, queries []checkQuery, keys []string, off int) *checkSource {
	return &checkSource{
		head:    []byte("GET " + checkPath + "?"),
		auth:    []byte(" HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer "),
		tail:    []byte("\r\nUser-Agent: compliance-benchtool\r\nAccept: application/json\r\n\r\n"),
		queries: queries, keys: keys, off: off, uses: make([]int, len(keys)),
	}
}

func (g *checkSource) next(dst []byte) []byte {
	q := g.queries[(g.off+g.n)%len(g.queries)]
	k := g.n % len(g.keys)
	g.uses[k]++
	g.n++
	dst = append(dst, g.head...)
	dst = append(dst, q.raw...)
	dst = append(dst, g.auth...)
	dst = append(dst, g.keys[k]...)
	return append(dst, g.tail...)
}

// ensureMember returns the id of the member named name, creating it with
// every production scope in its plan.
func ensureMember(ctx context.Context, db *pgx.Conn, name string) (string, error) {
	if _, err := db.Exec(ctx, `INSERT INTO members (id, name, plan_scopes) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
		graph.NewID(), name, graph.ProductionScopes); err != nil {
		return "", fmt.Errorf("create member %s: %w", name, err)
	}
	var id string
	err := db.QueryRow(ctx, `SELECT id::text FROM members WHERE name = $1`, name).Scan(&id)
	return id, err
}

// insertKeys issues n production keys with the one scope to the member, in
// one statement, and returns the raw keys.
func insertKeys(ctx context.Context, db *pgx.Conn, memberID, name, scope string, n int) ([]string, error) {
	raws := make([]string, n)
	ids := make([]string, n)
	prefixes := make([]string, n)
	hashes := make([][]byte, n)
	for i := range n {
		raws[i], prefixes[i], hashes[i] = graph.GenerateKey(graph.Production)
		ids[i] = graph.NewID()
	}
	tag, err := db.Exec(ctx, `
		INSERT INTO api_keys (id, member_id, name, key_prefix, key_hash, environment, scopes)
		SELECT id, $2::uuid, $3 || ' ' || lpad(ord::text, 5, '0'), prefix, hash, 'production', ARRAY[$6::text]
		FROM unnest($1::uuid[], $4::text[], $5::bytea[]) WITH ORDINALITY AS k(id, prefix, hash, ord)`,
		ids, memberID, name, prefixes, hashes, scope)
	if err != nil {
		return nil, fmt.Errorf("insert %d keys: %w", n, err)
	}
	if tag.RowsAffected() != int64(n) {
		return nil, fmt.Errorf("inserted %d keys, not %d", tag.RowsAffected(), n)
	}
	// A deployment's api_keys grows a key at a time and autovacuum keeps
	// its statistics; thousands inserted at once would leave the server's
	// cached plans (made on a near-empty table) scanning the whole table
	// until autovacuum's next pass. ANALYZE now, as it would have.
	if _, err := db.Exec(ctx, `ANALYZE api_keys`); err != nil {
		return nil, fmt.Errorf("analyze api_keys: %w", err)
	}
	return raws, nil
}

// verifyQueries sends every query of the mix once through net/http, each
// key at most 50 times (under the burst), and checks the answer: 200, and
// the country, category and listing type the query names. The load
// generator then only counts statuses.
func verifyQueries(ctx context.Context, base string, qs []checkQuery, keys []string) error {
	client := &http.Client{Timeout: 10 * time.Second}
	for i, q := range qs {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+checkPath+"?"+q.raw, nil)
		req.Header.Set("Authorization", "Bearer "+keys[i/50])
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		var env struct {
			OK   bool `json:"ok"`
			Data struct {
				ISO2        string `json:"iso2"`
				Category    string `json:"category"`
				ListingType string `json:"listing_type"`
			} `json:"data"`
		}
		err = json.Unmarshal(body, &env)
		d := env.Data
		if resp.StatusCode != http.StatusOK || err != nil || !env.OK || d.ISO2 != q.iso2 || d.Category != q.category || d.ListingType != q.listed {
			return fmt.Errorf("GET %s?%s: %s, want 200 with iso2 %s, category %s, listing_type %s: %.300s",
				checkPath, q.raw, resp.Status, q.iso2, q.category, q.listed, body)
		}
	}
	return nil
}

// cmdRegulatory measures issue 4's target: GET /api/v1/regulatory/check at
// 64 keep-alive connections, >= 5,000 req/s with no errors. The route is
// authenticated, audited and rate-limited (60 per minute per key, GCRA in
// Postgres), and the limit stays on: the run issues enough production keys
// that none reaches it. Baseline, on the same server: GET /healthz, keyless
// and audited, at the same concurrency.
func cmdRegulatory(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("regulatory", flag.ContinueOnError)
	c.register(fs, false)
	conns := fs.Int("conns", 64, "concurrent keep-alive connections")
	warmup := fs.Duration("warmup", 3*time.Second, "warm-up before measuring")
	duration := fs.Duration("duration", 15*time.Second, "measured window")
	nkeys := fs.Int("keys", 2500, "production keys to issue at least (more when the baseline's rate could drive a key into its limit)")
	member := fs.String("member", "bench-regulatory", "member the keys are issued to (created when missing)")
	perf := fs.Bool("perf", false, "record a system-wide `perf` CPU profile during the check window (distorts the figures)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(false); err != nil {
		return err
	}
	db, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	defer db.Close(context.Background())
	memberID, err := ensureMember(ctx, db, *member)
	if err != nil {
		return err
	}
	queries := checkQueries()
	verifyKeys, err := insertKeys(ctx, db, memberID, "scripts/bench regulatory verify", "regulatory", (len(queries)+49)/50)
	if err != nil {
		return err
	}

	s, err := startServer(ctx, "regulatory", c.bin, c.logDir)
	if err != nil {
		return err
	}
	defer s.stop()
	t := time.Now()
	if err := verifyQueries(ctx, s.base, queries, verifyKeys); err != nil {
		return err
	}
	say("regulatory: %d queries (%d countries x %d products x %d listing types) answer 200 with the country, category and listing type asked (%s)",
		len(queries), len(checkCountries), len(checkProducts), len(checkListings), time.Since(t).Round(time.Millisecond))

	opts := loadOpts{conns: *conns, warmup: *warmup, duration: *duration, path: "/healthz", ncpu: runtime.NumCPU(), countAudit: true, pgStats: true}
	health, err := driveLoad(ctx, c, s, "healthz", opts)
	if err != nil {
		return err
	}

	// A key may make checkBurst requests at once and one more per
	// checkInterval: about checkBurst + run/checkInterval over the run.
	// The check does all /healthz does and more, so the baseline's rate
	// bounds it; keys are issued for 1.5 times that rate.
	run := *warmup + *duration
	budget := checkBurst + int(run/checkInterval)
	need := int(math.Ceil(1.5 * health.rps() * run.Seconds() / float64(budget)))
	n := max(*nkeys, need, *conns)
	t = time.Now()
	keys, err := insertKeys(ctx, db, memberID, "scripts/bench regulatory", "regulatory", n)
	if err != nil {
		return err
	}
	say("regulatory: issued %d production keys with scope regulatory to member %s in %s (at least %d asked; %d would carry 1.5x the baseline's rate)",
		n, *member, time.Since(t).Round(time.Millisecond), *nkeys, need)

	addr := strings.TrimPrefix(s.base, "http://")
	sources := make([]*checkSource, *conns)
	opts.path = checkPath
	opts.perf = *perf
	opts.requests = func(i int) requestSource {
		lo, hi := i*n / *conns, (i+1)*n / *conns // disjoint slices
		sources[i] = newCheckSource(addr, queries, keys[lo:hi], i*len(queries) / *conns)
		return sources[i].next
	}
	cc := c // its perf reports, if any, go apart from B3's
	cc.logDir = filepath.Join(c.logDir, "regulatory")
	if err := os.MkdirAll(cc.logDir, 0o755); err != nil {
		return err
	}
	chk, err := driveLoad(ctx, cc, s, "check", opts)
	if err != nil {
		return err
	}
	maxUses, minPer, maxPer := 0, n, 0
	for _, g := range sources {
		minPer, maxPer = min(minPer, len(g.keys)), max(maxPer, len(g.keys))
		for _, u := range g.uses {
			maxUses = max(maxUses, u)
		}
	}
	var buckets int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM rate_gcra WHERE starts_with(bucket, $1)`, checkBucket).Scan(&buckets); err != nil {
		return err
	}

	sec := "C5 regulatory check"
	cfg := fmt.Sprintf("GET %s, %d keep-alive connections, %s warm-up, %s measured, same server for both runs; %d queries cycled (%d country forms x %d products x %d listing types, e.g. ?%s)",
		checkPath, *conns, *warmup, *duration, len(queries), len(checkCountries), len(checkProducts), len(checkListings), queries[len(queries)/3+1].raw)
	rs := []Result{
		{Section: sec, Name: "check: throughput", Value: chk.rps(), Unit: "req/s",
			Baseline: "healthz: " + fmtNum(health.rps(), "req/s"), Goal: AtLeast, Target: 5000,
			Note: cfg + "; every answer is sent after its key is looked up, its rolling limit counted and its audit row committed"},
		{Section: sec, Name: "check: p99 latency", Value: ms(chk.pct(99)), Unit: "ms",
			Baseline: fmt.Sprintf("healthz: %.1f ms", ms(health.pct(99))), Goal: Info},
		{Section: sec, Name: "check: p50 latency", Value: ms(chk.pct(50)), Unit: "ms",
			Baseline: fmt.Sprintf("healthz: %.1f ms", ms(health.pct(50))), Goal: Info,
			Note: latencyNote(chk, health)},
		{Section: sec, Name: "check: errors (non-200 + transport)", Value: float64(chk.errors), Unit: "errors",
			Baseline: fmt.Sprintf("healthz: %d", health.errors), Goal: Exactly, Target: 0, Note: codesNote(chk)},
		{Section: sec, Name: "check / healthz throughput", Value: safeDiv(chk.rps(), health.rps()), Unit: "x", Goal: Info,
			Note: fmt.Sprintf("healthz = GET /healthz on the same server, keyless and audited (no database read besides its audit row): %.0f req/s, p50 %.1f ms, p99 %.1f ms, %d errors",
				health.rps(), ms(health.pct(50)), ms(health.pct(99)), health.errors)},
		{Section: sec, Name: "keys issued (production, scope regulatory)", Value: float64(n), Unit: "keys",
			Baseline: fmt.Sprintf("%d to %d per connection", minPer, maxPer), Goal: Info,
			Note: fmt.Sprintf("inserted into api_keys with pgx for member %s; the limit stays on: 60 per minute per key, GCRA in Postgres, so a key may make about %d requests in the %s run (burst %d + 1 per second); "+
				"each connection cycles through its own keys; rate_gcra holds %d buckets for the route after the run (one per key used, %d keys verified the queries first)",
				*member, budget, run, checkBurst, buckets, len(verifyKeys))},
		{Section: sec, Name: "most requests sent with one key", Value: float64(maxUses), Unit: "requests",
			Baseline: fmt.Sprintf("allowed: about %d", budget), Goal: Info,
			Note: "warm-up and window together; over the allowance a key would be answered 429, counted as an error above"},
	}
	rs = append(rs, costResults(sec, chk, health)...)
	if chk.perfOut != "" {
		rs[0].Note += "; a perf profile was recorded during the check window, which costs CPU: " + chk.perfOut
	}
	return appendResults(c.out, rs...)
}
