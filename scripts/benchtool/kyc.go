package main

// K1/K2 KYC screening (issue 5): POST /api/v1/kyc/screen at a constant
// arrival rate with the 8 lists loaded (target p99 < 100 ms at 50 req/s),
// and 1,000 concurrent subscribers (SSE and GraphQL websocket) to one run
// (every event to every subscriber, p99 lag emitted -> received < 200 ms).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
)

// kycBodies are the screen requests cycled through: allowed, restricted and
// blocked jurisdictions, with and without directors, so every step runs.
func kycBodies(n int) [][]byte {
	countries := []struct{ country, product string }{
		{"Norway", "crude"}, {"Singapore", "refined"}, {"Russia", "diesel"}, {"Netherlands", "lng"},
		{"Iran", "crude"}, {"United Arab Emirates", "bitumen"}, {"Nigeria", "lpg"}, {"", ""},
	}
	out := make([][]byte, n)
	for i := range n {
		c := countries[i%len(countries)]
		body := map[string]any{"company_name": fmt.Sprintf("Bench Trading Company %05d", i)}
		if c.country != "" {
			body["country"], body["product"] = c.country, c.product
		}
		if i%2 == 0 {
			body["directors"] = []string{fmt.Sprintf("Director Number %d", i), "Jane Example"}
		}
		out[i], _ = json.Marshal(body)
	}
	return out
}

// arrivals sends rate requests per second for d at fixed intervals, each in
// its own goroutine (an open loop: a slow answer never delays the next
// send), and returns each request's latency measured from its scheduled
// time, and the failures.
func arrivals(ctx context.Context, client *http.Client, rate int, d time.Duration, mk func(i int) *http.Request, ok func(int) bool) ([]time.Duration, []string) {
	n := int(d.Seconds() * float64(rate))
	interval := time.Second / time.Duration(rate)
	lat := make([]time.Duration, n)
	errs := make([]string, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		at := start.Add(time.Duration(i) * interval)
		sleepUntil(ctx, at)
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Do(mk(i).WithContext(ctx))
			if err != nil {
				errs[i] = "transport: " + err.Error()
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			lat[i] = time.Since(at)
			if !ok(resp.StatusCode) {
				errs[i] = resp.Status
			}
		}()
	}
	wg.Wait()
	var fails []string
	for _, e := range errs {
		if e != "" {
			fails = append(fails, e)
		}
	}
	return lat, fails
}

func pctOf(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

func failNote(fails []string) string {
	if len(fails) == 0 {
		return "no failures"
	}
	count := map[string]int{}
	for _, f := range fails {
		count[f]++
	}
	var parts []string
	for k, v := range count {
		parts = append(parts, fmt.Sprintf("%d x %.80s", v, k))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

func cmdKYC(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("kyc", flag.ContinueOnError)
	c.register(fs, false)
	dataDir := fs.String("data", "", "the shared data directory (default ../shared/data beside the repository, or $COMPLIANCE_SHARED_DATA)")
	rate := fs.Int("rate", 50, "screen requests per second (constant arrival rate)")
	warmup := fs.Duration("warmup", 3*time.Second, "warm-up at the same rate before measuring")
	duration := fs.Duration("duration", 15*time.Second, "measured window")
	subs := fs.Int("subscribers", 1000, "concurrent subscribers to one run (half SSE, half GraphQL websocket)")
	stepDelay := fs.Duration("step-delay", 2*time.Second, "KYC_STEP_DELAY of the subscriber run's server, so steps arrive live")
	k1Workers := fs.Int("k1-workers", 10, "KYC_WORKERS of the K1 server (0: its runs' background steps are not worked during the window; diagnostic)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(false); err != nil {
		return err
	}
	dir, err := sharedDataDir(*dataDir)
	if err != nil {
		return err
	}
	dbURL := os.Getenv("DATABASE_URL")
	if dbURL == "" {
		return errors.New("DATABASE_URL is not set")
	}
	t0 := time.Now()
	ingests, err := ingestLists(ctx, c.bin, dbURL, dir, c.logDir, screenLists)
	if err != nil {
		return err
	}
	rows := 0
	for _, r := range ingests {
		rows += r.rows
	}
	say("kyc: %d lists (%d rows) ingested in %s", len(ingests), rows, time.Since(t0).Round(time.Millisecond))
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close(context.Background())
	member, err := ensureMember(ctx, db, "bench-kyc")
	if err != nil {
		return err
	}
	total := int((*warmup+*duration).Seconds()*float64(*rate)) + 1
	// 30 per minute per key, burst included: each key is used at most 5 times.
	keys, err := insertKeys(ctx, db, member, "bench kyc", "kyc", total/5+10)
	if err != nil {
		return err
	}
	k1, err := measureK1(ctx, c, keys, *rate, *warmup, *duration, rows, *k1Workers)
	if err != nil {
		return err
	}
	k2, err := measureK2(ctx, c, keys[len(keys)-1], *subs, *stepDelay)
	if err != nil {
		return err
	}
	return appendResults(c.out, append(k1, k2...)...)
}

func measureK1(ctx context.Context, c common, keys []string, rate int, warmup, duration time.Duration, rows, workers int) ([]Result, error) {
	s, err := startServer(ctx, "kyc", c.bin, c.logDir, "SANCTIONS_SYNC_INTERVAL=0", fmt.Sprintf("KYC_WORKERS=%d", workers))
	if err != nil {
		return nil, err
	}
	defer s.stop()
	ids := make([]string, len(screenLists))
	for i, l := range screenLists {
		ids[i] = l.id
	}
	if _, _, err := waitLists(ctx, s, keys[0], ids, 120*time.Second); err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	bodies := kycBodies(len(keys) * 5)
	var used atomic.Int64
	screen := func(int) *http.Request {
		i := int(used.Add(1) - 1)
		req, _ := http.NewRequest("POST", s.base+"/api/v1/kyc/screen", strings.NewReader(string(bodies[i%len(bodies)])))
		req.Header.Set("Authorization", "Bearer "+keys[i%len(keys)])
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	health := func(int) *http.Request {
		req, _ := http.NewRequest("GET", s.base+"/healthz", nil)
		return req
	}
	is200 := func(code int) bool { return code == 200 }
	say("kyc: K1 warm-up %s, then POST /api/v1/kyc/screen at %d req/s for %s, with GET /healthz at the same rate in the same window", warmup, rate, duration)
	arrivals(ctx, client, rate, warmup, screen, is200)
	var hLat []time.Duration
	var hFail []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the baseline shares the window, and so whatever else runs on the machine
		defer wg.Done()
		hLat, hFail = arrivals(ctx, client, rate, duration, health, is200)
	}()
	sLat, sFail := arrivals(ctx, client, rate, duration, screen, is200)
	wg.Wait()
	sec := "K1 kyc screen"
	cfg := fmt.Sprintf("POST /api/v1/kyc/screen at a constant %d req/s, and GET /healthz at the same rate in the same window as the baseline (open loop: each request sent at its scheduled time in its own goroutine; latency from the scheduled time), %s warm-up, %s measured, %d requests; "+
		"8 lists loaded (%d rows); the synchronous cluster and tradability checks, the run, dossier, first events and River job committed before the answer; %s; %d keys (30 per minute each)",
		rate, warmup, duration, len(sLat), rows, workersNote(workers), len(keys))
	return []Result{
		{Section: sec, Name: "screen: p99 latency", Value: ms(pctOf(sLat, 99)), Unit: "ms", Baseline: fmt.Sprintf("healthz, same rate, same window: %.1f ms", ms(pctOf(hLat, 99))),
			Goal: Below, Target: 100, Note: cfg},
		{Section: sec, Name: "screen: p50 latency", Value: ms(pctOf(sLat, 50)), Unit: "ms", Baseline: fmt.Sprintf("healthz: %.1f ms", ms(pctOf(hLat, 50))), Goal: Info,
			Note: fmt.Sprintf("p90 %.1f ms, max %.1f ms", ms(pctOf(sLat, 90)), ms(pctOf(sLat, 100)))},
		{Section: sec, Name: "screen: failures", Value: float64(len(sFail)), Unit: "errors", Baseline: fmt.Sprintf("healthz: %d", len(hFail)), Goal: Exactly, Target: 0, Note: failNote(sFail)},
	}, nil
}

func workersNote(n int) string {
	if n == 0 {
		return "KYC_WORKERS=0: the runs' background steps were NOT worked during the window (diagnostic run)"
	}
	return fmt.Sprintf("the background steps of the runs execute on the same server meanwhile (KYC_WORKERS=%d)", n)
}

// k2Sub is what one subscriber received.
type k2Sub struct {
	kind      string
	connected time.Time
	seqs      []int
	lags      []time.Duration // live events only
	bySeq     map[int]time.Duration
	replayed  int // events emitted before it was connected
	err       error
}

func measureK2(ctx context.Context, c common, key string, n int, delay time.Duration) ([]Result, error) {
	s, err := startServer(ctx, "kyc-subscribers", c.bin, c.logDir, "SANCTIONS_SYNC_INTERVAL=0", "KYC_STEP_DELAY="+delay.String())
	if err != nil {
		return nil, err
	}
	defer s.stop()
	api := whAPI{base: s.base, key: key, client: &http.Client{Timeout: 10 * time.Second}}
	code, body, err := api.call(ctx, "POST", "/api/v1/kyc/screen", map[string]any{"company_name": "Bench Subscribers Trading AS", "country": "Norway", "product": "crude"})
	if err != nil || code != 200 {
		return nil, fmt.Errorf("screen: %d %s %v", code, body, err)
	}
	var first struct {
		Data struct {
			EntityID string `json:"entity_id"`
		} `json:"data"`
	}
	json.Unmarshal(body, &first)
	// A re-screen: no step is logged when it is queued; the first arrives
	// after KYC_STEP_DELAY, while the subscribers connect.
	code, body, err = api.call(ctx, "POST", "/api/v1/kyc/rescreen", map[string]any{"entity_id": first.Data.EntityID})
	if err != nil || code != 202 {
		return nil, fmt.Errorf("rescreen: %d %s %v", code, body, err)
	}
	var q struct {
		Data struct {
			ID string `json:"screening_run_id"`
		} `json:"data"`
	}
	json.Unmarshal(body, &q)
	runID := q.Data.ID
	say("kyc: K2 %d subscribers to run %s (steps every %s)", n, runID, delay)
	tr := &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0}
	sseClient := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	out := make([]k2Sub, n)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				out[i] = sseSubscriber(ctx, sseClient, s.base, key, runID)
			} else {
				out[i] = wsSubscriber(ctx, s.base, key, runID)
			}
		}()
	}
	wg.Wait()
	took := time.Since(t0)
	var lags []time.Duration
	byKind := map[string][]time.Duration{}
	complete, replayed, failed := 0, 0, 0
	var firstErr error
	var lastConnect time.Time
	want := []int{1, 2, 3, 4, 5, 6, 7}
	for _, r := range out {
		if r.err != nil {
			failed++
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		if slices.Equal(r.seqs, want) {
			complete++
		}
		lags = append(lags, r.lags...)
		byKind[r.kind] = append(byKind[r.kind], r.lags...)
		replayed += r.replayed
		if r.connected.After(lastConnect) {
			lastConnect = r.connected
		}
	}
	// The fastest subscriber of each live event: the pipeline's floor
	// (commit, NOTIFY, one read, one write) without the fan-out's queueing.
	fastest := map[int]time.Duration{}
	for _, r := range out {
		for seq, l := range r.bySeq {
			if f, ok := fastest[seq]; !ok || l < f {
				fastest[seq] = l
			}
		}
	}
	var floor []time.Duration
	for _, l := range fastest {
		floor = append(floor, l)
	}
	sec := "K2 kyc progress fan-out"
	cfg := fmt.Sprintf("%d subscribers to one re-screen run on one server (%d SSE GET /api/v1/kyc/runs/{id}/events, %d GraphQL graphql-transport-ws screeningProgress), all connected %.1f s after the run was queued; KYC_STEP_DELAY=%s so the 7 events arrive live; "+
		"lag = receive time - the event's emitted_at (Postgres clock_timestamp() at its insert, same machine): commit, NOTIFY, one read per instance, fan-out, write; the whole run took %s",
		n, (n+1)/2, n/2, lastConnect.Sub(t0).Seconds(), delay, took.Round(time.Millisecond))
	errNote := "every subscriber got seq 1..7 exactly once, in order"
	if firstErr != nil || complete != n {
		errNote = fmt.Sprintf("%d complete, %d failed; first error: %v", complete, failed, firstErr)
	}
	return []Result{
		{Section: sec, Name: "subscribers with every event once, in order", Value: float64(complete), Unit: "subscribers", Goal: Exactly, Target: float64(n), Note: errNote},
		{Section: sec, Name: "event lag p99", Value: ms(pctOf(lags, 99)), Unit: "ms", Baseline: fmt.Sprintf("fastest subscriber per event: max %.1f ms", ms(pctOf(floor, 100))), Goal: Below, Target: 200,
			Note: cfg + fmt.Sprintf("; %d live deliveries measured, %d replayed from the log (emitted before that subscriber connected) not counted; max %.1f ms", len(lags), replayed, ms(pctOf(lags, 100)))},
		{Section: sec, Name: "event lag p50", Value: ms(pctOf(lags, 50)), Unit: "ms", Baseline: fmt.Sprintf("fastest subscriber per event: p50 %.1f ms", ms(pctOf(floor, 50))), Goal: Info},
		{Section: sec, Name: "event lag p99, SSE subscribers", Value: ms(pctOf(byKind["sse"], 99)), Unit: "ms", Baseline: fmt.Sprintf("p50 %.1f ms", ms(pctOf(byKind["sse"], 50))), Goal: Info},
		{Section: sec, Name: "event lag p99, websocket subscribers", Value: ms(pctOf(byKind["ws"], 99)), Unit: "ms", Baseline: fmt.Sprintf("p50 %.1f ms", ms(pctOf(byKind["ws"], 50))), Goal: Info},
	}, nil
}

// progressEvent is the part of a step event the subscribers read.
type progressEvent struct {
	Seq       int       `json:"seq"`
	EmittedAt time.Time `json:"emitted_at"`
	Final     bool      `json:"final"`
}

func (r *k2Sub) add(ev progressEvent, at time.Time) {
	r.seqs = append(r.seqs, ev.Seq)
	if ev.EmittedAt.Before(r.connected) {
		r.replayed++
		return
	}
	r.lags = append(r.lags, at.Sub(ev.EmittedAt))
	if r.bySeq == nil {
		r.bySeq = map[int]time.Duration{}
	}
	r.bySeq[ev.Seq] = at.Sub(ev.EmittedAt)
}

func sseSubscriber(ctx context.Context, client *http.Client, base, key, runID string) k2Sub {
	r := k2Sub{kind: "sse"}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/kyc/runs/"+runID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		r.err = err
		return r
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		r.err = fmt.Errorf("SSE answered %s", resp.Status)
		return r
	}
	r.connected = time.Now()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: ") && event == "step":
			var ev progressEvent
			if err := json.Unmarshal([]byte(line[6:]), &ev); err != nil {
				r.err = err
				return r
			}
			r.add(ev, time.Now())
		case strings.HasPrefix(line, "data: ") && event == "completed":
			return r
		}
	}
	r.err = fmt.Errorf("SSE stream ended before completed: %v", sc.Err())
	return r
}

func wsSubscriber(ctx context.Context, base, key, runID string) k2Sub {
	r := k2Sub{kind: "ws"}
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 30 * time.Second}
	c, _, err := d.DialContext(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql", nil)
	if err != nil {
		r.err = err
		return r
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	if err := c.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}}); err != nil {
		r.err = err
		return r
	}
	q := `subscription($id: UUID!) { screeningProgress(runId: $id) { seq emittedAt final } }`
	type msg struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	for {
		var m msg
		if err := c.ReadJSON(&m); err != nil {
			r.err = err
			return r
		}
		switch m.Type {
		case "connection_ack":
			if err := c.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": q, "variables": map[string]any{"id": runID}}}); err != nil {
				r.err = err
				return r
			}
			r.connected = time.Now()
		case "next":
			at := time.Now()
			var p struct {
				Data struct {
					P struct {
						Seq       int       `json:"seq"`
						EmittedAt time.Time `json:"emittedAt"`
						Final     bool      `json:"final"`
					} `json:"screeningProgress"`
				} `json:"data"`
				Errors []any `json:"errors"`
			}
			if err := json.Unmarshal(m.Payload, &p); err != nil || len(p.Errors) > 0 || p.Data.P.EmittedAt.IsZero() {
				r.err = fmt.Errorf("next: %v %s", err, m.Payload)
				return r
			}
			r.add(progressEvent{Seq: p.Data.P.Seq, EmittedAt: p.Data.P.EmittedAt, Final: p.Data.P.Final}, at)
		case "complete":
			return r
		case "error":
			r.err = fmt.Errorf("subscription error: %s", m.Payload)
			return r
		}
	}
}
