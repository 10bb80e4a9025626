package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/relational"
)

// seedAgent marks the rows cmdSeed inserts.
const seedAgent = "compliance-benchtool/seed"

// cursorLayout is how the service writes cursors (graph.AuditTimeLayout).
const cursorLayout = "2006-01-02T15:04:05.000000Z07:00"

// memberAndKey returns the id of the member named name and of its oldest key.
func memberAndKey(ctx context.Context, db *pgx.Conn, name string) (string, string, error) {
	var member, key string
	err := db.QueryRow(ctx, `SELECT m.id::text, k.id::text FROM members m JOIN api_keys k ON k.member_id = m.id
		WHERE m.name = $1 ORDER BY k.created_at LIMIT 1`, name).Scan(&member, &key)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fmt.Errorf("no member %q with a key; run `compliance keys create --member %s` first", name, name)
	}
	return member, key, err
}

// cmdSeed inserts the rows issue 3's export benchmark reads: n rows of the
// member's, 5 s apart, ending about 31 days ago (inside the default 90-day
// window), with seq and logged_at increasing together. The chain hashes are
// placeholders (sha256 of the row number): the chain does not verify in
// this throwaway database. It must run before anything else writes audit
// rows, or logged_at would go backwards in seq order.
func cmdSeed(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	member := fs.String("member", "", "member name (the bench key's member)")
	n := fs.Int64("rows", 1_000_000, "rows to insert")
	out := fs.String("out", "", "results file (optional)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	defer db.Close(context.Background())
	memberID, keyID, err := memberAndKey(ctx, db, *member)
	if err != nil {
		return err
	}
	var have int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE user_agent = $1`, seedAgent).Scan(&have); err != nil {
		return err
	}
	if have > 0 {
		if have != *n {
			return fmt.Errorf("audit_log already holds %d seeded rows, not %d: use a fresh database", have, *n)
		}
		say("seed: %d rows already there", have)
		return nil
	}
	start := time.Now().UTC().Add(-89 * 24 * time.Hour).Truncate(time.Second)
	var newer int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE logged_at >= $1`, start).Scan(&newer); err != nil {
		return err
	}
	if newer > 0 {
		return fmt.Errorf("audit_log already holds %d rows newer than the seed's first: seed before any server runs", newer)
	}
	say("seed: inserting %d audit rows for member %s", *n, *member)
	t := time.Now()
	tag, err := db.Exec(ctx, `
		INSERT INTO audit_log (request_id, route, method, scope, member_id, key_id, response_status,
			response_sha256, client_ip, user_agent, duration_ms, logged_at, prev_hash, row_hash)
		SELECT 'seed-' || lpad(g::text, 8, '0'), 'GET /api/v1/keys', 'GET', NULL, $1::uuid, $2::uuid, 200,
			sha256(int8send(g)), '127.0.0.1', $3, (g % 997) / 10.0,
			$4::timestamptz + g * interval '5 seconds', sha256(int8send(g - 1)), sha256(int8send(g))
		FROM generate_series(1, $5::bigint) AS g
		ORDER BY g`, memberID, keyID, seedAgent, start, *n)
	if err != nil {
		return fmt.Errorf("seed audit_log: %w", err)
	}
	ins := time.Since(t)
	// Fresh statistics and visibility map, and the dirty pages written
	// out, so the benchmarks that follow do not pay for the insert.
	for _, q := range []string{`VACUUM (ANALYZE) audit_log`, `CHECKPOINT`} {
		if _, err := db.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	say("seed: %d rows in %s (+ vacuum, checkpoint: %s)", tag.RowsAffected(), ins.Round(time.Millisecond), (time.Since(t) - ins).Round(time.Millisecond))
	if *out != "" {
		return appendResults(*out, Result{Section: "B4 audit export", Name: "seed: rows inserted with SQL", Value: float64(tag.RowsAffected()), Unit: "rows",
			Baseline: fmt.Sprintf("%.1f s", ins.Seconds()), Goal: Info,
			Note: "generate_series, 5 s apart, ending ~31 days ago; VACUUM ANALYZE and CHECKPOINT before measuring"})
	}
	return nil
}

// exportRun is what one export through the API measured.
type exportRun struct {
	format     string
	rows       int64
	pages      int
	bytes      int64
	elapsed    time.Duration
	preRSS     int64
	peakRSS    int64
	cpu        cpuShares
	serverCPU  time.Duration
	firstPage  time.Duration
	slowest    time.Duration
	badPayload string
}

func (e exportRun) rowsPerSec() float64 { return float64(e.rows) / e.elapsed.Seconds() }

// cmdExport measures issue 3's export target: the seeded rows as CSV through
// GET /api/v1/audit, following X-Next-Cursor; at least 200,000 rows/s with
// server RSS growth under 50 MB. JSON (following next_cursor) is measured
// for comparison, and the same pages read straight from the store with the
// server's own code (graph.ExportAudit over relational.AuditLog) are the
// floor without HTTP and encoding.
func cmdExport(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	c.register(fs, true)
	member := fs.String("member", "", "member name (the bench key's member)")
	want := fs.Int64("rows", 1_000_000, "rows seeded")
	pageSize := fs.Int("page-size", 10000, "page_size")
	days := fs.Int("days", 365, "days")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(true); err != nil {
		return err
	}
	db, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	defer db.Close(context.Background())
	memberID, _, err := memberAndKey(ctx, db, *member)
	if err != nil {
		return err
	}
	// Start below the rows other benchmarks add (they are newer than every
	// seeded row), so exactly the seeded rows are exported.
	var newest time.Time
	var seeded int64
	err = db.QueryRow(ctx, `SELECT count(*), coalesce(max(logged_at), 'epoch') FROM audit_log WHERE member_id = $1 AND user_agent = $2`,
		memberID, seedAgent).Scan(&seeded, &newest)
	if err != nil {
		return err
	}
	if seeded == 0 {
		return errors.New("no seeded rows: run `benchtool seed` first")
	}
	cursor := newest.Add(time.Microsecond).UTC().Format(cursorLayout)

	floorRows, floorTime, err := storeFloor(ctx, memberID, newest.Add(time.Microsecond), *pageSize, *days)
	if err != nil {
		return err
	}
	floorRate := float64(floorRows) / floorTime.Seconds()
	say("export: store floor %d rows in %s (%.0f rows/s)", floorRows, floorTime.Round(time.Millisecond), floorRate)

	csvRun, err := exportThrough(ctx, c, "csv", cursor, *pageSize, *days)
	if err != nil {
		return err
	}
	jsonRun, err := exportThrough(ctx, c, "json", cursor, *pageSize, *days)
	if err != nil {
		return err
	}

	sec := "B4 audit export"
	floor := fmt.Sprintf("store read: %s rows/s", groupThousands(fmt.Sprintf("%.0f", floorRate)))
	note := func(e exportRun) string {
		n := fmt.Sprintf("%d pages of %d, %.1f MB in %.2f s (%.0f MB/s); first page %.0f ms, slowest %.0f ms; CPU share: server %.0f%%, postgres %.0f%%, benchtool %.0f%%, other processes %.0f%%",
			e.pages, *pageSize, mb(e.bytes), e.elapsed.Seconds(), mb(e.bytes)/e.elapsed.Seconds(), ms(e.firstPage), ms(e.slowest),
			e.cpu.server, e.cpu.postgres, e.cpu.loadgen, e.cpu.other())
		if e.badPayload != "" {
			n += "; " + e.badPayload
		}
		return n
	}
	rssBase := func(e exportRun) string { return fmt.Sprintf("pre-export: %.1f MB", mb(e.preRSS)) }
	return appendResults(c.out,
		Result{Section: sec, Name: "store floor: rows/s (no HTTP)", Value: floorRate, Unit: "rows/s", Goal: Info,
			Note: fmt.Sprintf("graph.ExportAudit over relational.AuditLog in benchtool, same pages and cursor: %d rows in %.2f s", floorRows, floorTime.Seconds())},
		Result{Section: sec, Name: "CSV: data rows exported", Value: float64(csvRun.rows), Unit: "rows", Goal: Exactly, Target: float64(*want),
			Note: fmt.Sprintf("GET /api/v1/audit?format=csv&page_size=%d&days=%d following X-Next-Cursor, starting at the cursor just above the newest seeded row", *pageSize, *days)},
		Result{Section: sec, Name: "CSV: rows/s", Value: csvRun.rowsPerSec(), Unit: "rows/s", Baseline: floor, Goal: AtLeast, Target: 200000, Note: note(csvRun)},
		Result{Section: sec, Name: "CSV: server RSS growth (peak, 100 ms samples)", Value: mb(csvRun.peakRSS - csvRun.preRSS), Unit: "MB",
			Baseline: rssBase(csvRun), Goal: Below, Target: 50},
		Result{Section: sec, Name: "JSON: data rows exported", Value: float64(jsonRun.rows), Unit: "rows", Goal: Exactly, Target: float64(*want),
			Note: "format=json following next_cursor in the body; for comparison, no target"},
		Result{Section: sec, Name: "JSON: rows/s", Value: jsonRun.rowsPerSec(), Unit: "rows/s", Baseline: floor, Goal: Info, Note: note(jsonRun)},
		Result{Section: sec, Name: "JSON: server RSS growth (peak, 100 ms samples)", Value: mb(jsonRun.peakRSS - jsonRun.preRSS), Unit: "MB",
			Baseline: rssBase(jsonRun), Goal: Info},
	)
}

// storeFloor reads the pages with the server's own read path, without HTTP
// or encoding.
func storeFloor(ctx context.Context, memberID string, cursor time.Time, pageSize, days int) (int64, time.Duration, error) {
	db, err := relational.Open(ctx, os.Getenv("DATABASE_URL"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	audit := relational.NewAuditLog(db)
	defer audit.Close()
	var rows int64
	cur := &cursor
	t := time.Now()
	for cur != nil {
		_, next, err := graph.ExportAudit(ctx, audit, memberID, graph.AuditPageRequest{Days: days, PageSize: pageSize, Cursor: cur}, time.Now().UTC(),
			func(graph.AuditRow) error { rows++; return nil })
		if err != nil {
			return 0, 0, err
		}
		cur = next
	}
	return rows, time.Since(t), nil
}

// exportThrough starts a server and exports every page through the API,
// sampling the server's VmRSS every 100 ms.
func exportThrough(ctx context.Context, c common, format, cursor string, pageSize, days int) (exportRun, error) {
	e := exportRun{format: format}
	s, err := startServer(ctx, "export-"+format, c.bin, c.logDir)
	if err != nil {
		return e, err
	}
	defer s.stop()
	// Let start-up settle before the reference reading.
	sleepUntil(ctx, time.Now().Add(time.Second))
	runtime.GC()
	if e.preRSS, err = vmRSS(s.pid); err != nil {
		return e, err
	}
	e.peakRSS = e.preRSS
	stop := make(chan struct{})
	sampled := make(chan int64)
	go func() {
		peak := e.preRSS
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-stop:
				if v, err := vmRSS(s.pid); err == nil {
					peak = max(peak, v)
				}
				sampled <- peak
				return
			}
			if v, err := vmRSS(s.pid); err == nil {
				peak = max(peak, v)
			}
		}
	}()

	client := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{DisableCompression: true}}
	var buf bytes.Buffer
	a := snapCPU(s.pid)
	t := time.Now()
	for cursor != "" {
		q := url.Values{"format": {format}, "page_size": {strconv.Itoa(pageSize)}, "days": {strconv.Itoa(days)}, "cursor": {cursor}}
		req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/api/v1/audit?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+c.key)
		pt := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			close(stop)
			<-sampled
			return e, err
		}
		var n int64
		var next string
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			close(stop)
			<-sampled
			return e, fmt.Errorf("export %s page %d: %s: %s", format, e.pages+1, resp.Status, body)
		}
		if format == "csv" {
			var lines, size int64
			lines, size, err = countLines(resp.Body)
			n, e.bytes = lines-1, e.bytes+size // minus the header line
			next = resp.Header.Get("X-Next-Cursor")
		} else {
			buf.Reset()
			_, err = buf.ReadFrom(resp.Body)
			e.bytes += int64(buf.Len())
			if err == nil {
				if e.pages == 0 && !json.Valid(buf.Bytes()) {
					e.badPayload = "the first JSON page is not valid JSON"
				}
				n, next, err = jsonTail(buf.Bytes())
			}
		}
		resp.Body.Close()
		if err != nil {
			close(stop)
			<-sampled
			return e, fmt.Errorf("export %s page %d: %w", format, e.pages+1, err)
		}
		d := time.Since(pt)
		if e.pages == 0 {
			e.firstPage = d
		}
		e.slowest = max(e.slowest, d)
		e.pages++
		e.rows += n
		cursor = next
	}
	e.elapsed = time.Since(t)
	b := snapCPU(s.pid)
	close(stop)
	e.peakRSS = <-sampled
	e.cpu = shares(a, b, runtime.NumCPU())
	e.serverCPU = b.server - a.server
	say("export %s: %d rows in %s (%.0f rows/s), %d pages, RSS %.1f MB -> peak %.1f MB",
		format, e.rows, e.elapsed.Round(time.Millisecond), e.rowsPerSec(), e.pages, mb(e.preRSS), mb(e.peakRSS))
	return e, nil
}

// countLines counts '\n' in r, and its bytes. The seeded rows hold no
// quoted newlines, so each line is one CSV record.
func countLines(r io.Reader) (lines, size int64, err error) {
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		size += int64(n)
		if err == io.EOF {
			return lines, size, nil
		}
		if err != nil {
			return lines, size, err
		}
	}
}

// jsonTail reads count and next_cursor from the end of an export page,
// `...],"count":N,"next_cursor":"..."|null}}`, without decoding the rows.
func jsonTail(b []byte) (int64, string, error) {
	i := bytes.LastIndex(b, []byte(`],"count":`))
	if i < 0 {
		return 0, "", fmt.Errorf("no count in the JSON page: %.200s", b)
	}
	var tailDoc struct {
		Count      int64   `json:"count"`
		NextCursor *string `json:"next_cursor"`
	}
	// `{"count":N,"next_cursor":...}` is the tail minus the outer `}`.
	t := bytes.TrimRight(b[i+2:], "\n")
	t = bytes.TrimSuffix(t, []byte("}"))
	if err := json.Unmarshal(append([]byte("{"), t...), &tailDoc); err != nil {
		return 0, "", fmt.Errorf("JSON page tail %q: %w", t, err)
	}
	if tailDoc.NextCursor == nil {
		return tailDoc.Count, "", nil
	}
	return tailDoc.Count, *tailDoc.NextCursor, nil
}

// cmdDropDB drops a database, disconnecting whoever is still on it.
func cmdDropDB(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("dropdb", flag.ContinueOnError)
	admin := fs.String("url", "", "URL of another database on the same server")
	name := fs.String("name", "", "database to drop")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" {
		return errors.New("-name is required")
	}
	db, err := pgx.Connect(ctx, *admin)
	if err != nil {
		return err
	}
	defer db.Close(context.Background())
	_, err = db.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{*name}.Sanitize()+` WITH (FORCE)`)
	return err
}
