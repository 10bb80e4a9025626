package main

// D7 webhook delivery (issue 7): sustained signed deliveries to a local
// receiver (target >= 500/s) and event-to-first-attempt latency with an
// idle queue (target p99 < 1 s), against the real binary, its River queue
// and Postgres.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/webhooks"
	"github.com/tradecompliance/compliance/rest/webhooksend"
)

// whReceiver verifies every delivery's signature, as a real receiver would,
// and records when each webhook-id first arrived and the key name its
// api_key.created payload carries.
type whReceiver struct {
	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	secrets map[string]string // by path
	seen    map[string]bool   // webhook-ids
	arrived []whArrival
	bad     atomic.Int64 // requests whose signature did not verify
	dups    atomic.Int64
	base    atomic.Int64 // baseline requests (path /base), verified
}

type whArrival struct {
	at       time.Time
	name     string    // data.name of the event (the key's name)
	occurred time.Time // the event's timestamp (when the key was made, just before its transaction commits)
}

func newWHReceiver() (*whReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &whReceiver{ln: ln, secrets: map[string]string{}, seen: map[string]bool{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *whReceiver) url(path string) string { return "http://" + r.ln.Addr().String() + path }

func (r *whReceiver) setSecret(path, secret string) {
	r.mu.Lock()
	r.secrets[path] = secret
	r.mu.Unlock()
}

func (r *whReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(400)
		return
	}
	r.mu.Lock()
	secret := r.secrets[req.URL.Path]
	r.mu.Unlock()
	id := req.Header.Get(webhooks.HeaderID)
	if secret == "" || webhooks.Verify(secret, id, req.Header.Get(webhooks.HeaderTimestamp), req.Header.Get(webhooks.HeaderSignature), body, now, 5*time.Minute) != nil {
		r.bad.Add(1)
		w.WriteHeader(401)
		return
	}
	if req.URL.Path == "/base" {
		r.base.Add(1)
		w.WriteHeader(204)
		return
	}
	var ev struct {
		Timestamp time.Time `json:"timestamp"`
		Data      struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	json.Unmarshal(body, &ev)
	r.mu.Lock()
	if r.seen[id] {
		r.mu.Unlock()
		r.dups.Add(1)
		w.WriteHeader(204)
		return
	}
	r.seen[id] = true
	r.arrived = append(r.arrived, whArrival{at: now, name: ev.Data.Name, occurred: ev.Timestamp})
	r.mu.Unlock()
	w.WriteHeader(204)
}

// snapshot returns the first arrivals so far.
func (r *whReceiver) snapshot() []whArrival {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.arrived)
}

func (r *whReceiver) close() { r.srv.Close() }

// whAPI calls the server as the benchmark's member.
type whAPI struct {
	base, key string
	client    *http.Client
}

func (a whAPI) call(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// subscribe creates a subscription to api_key.created at url and returns
// its id and secret.
func (a whAPI) subscribe(ctx context.Context, url string) (id, secret string, err error) {
	st, body, err := a.call(ctx, "POST", "/api/v1/webhooks", map[string]any{"url": url, "events": []string{graph.EventAPIKeyCreated}})
	if err != nil {
		return "", "", err
	}
	if st != 201 {
		return "", "", fmt.Errorf("POST /api/v1/webhooks = %d %s", st, body)
	}
	var out struct {
		Data struct{ ID, Secret string } `json:"data"`
	}
	json.Unmarshal(body, &out)
	return out.Data.ID, out.Data.Secret, nil
}

// createKey makes an api_key.created event named name.
func (a whAPI) createKey(ctx context.Context, name string) error {
	st, body, err := a.call(ctx, "POST", "/api/v1/keys", map[string]any{"name": name, "scopes": []string{"webhooks"}})
	if err != nil {
		return err
	}
	if st != 201 {
		return fmt.Errorf("POST /api/v1/keys = %d %s", st, body)
	}
	return nil
}

// cmdWebhooks runs the D7 section.
func cmdWebhooks(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("webhooks", flag.ContinueOnError)
	c.register(fs, false)
	member := fs.String("member", "bench-webhooks", "member whose subscriptions and keys the benchmark makes")
	latEvents := fs.Int("latency-events", 200, "events of the idle-queue latency run, one at a time")
	latGap := fs.Duration("latency-gap", 30*time.Millisecond, "pause after each latency event's delivery (the queue is idle before the next)")
	fanout := fs.Int("fanout", 10, "subscriptions per event in the throughput run")
	rate := fs.Float64("rate", 100, "events per second offered in the throughput run (deliveries per second = rate x fanout)")
	warmup := fs.Duration("warmup", 3*time.Second, "throughput run warm-up")
	duration := fs.Duration("duration", 15*time.Second, "throughput run measured window")
	workers := fs.Int("workers", 100, "WEBHOOK_WORKERS of the server")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(false); err != nil {
		return err
	}
	sec := "D7 webhook delivery"
	ncpu := runtime.NumCPU()

	// The member's key, from the operator CLI (its own member, so that no
	// other section's events fan out to these subscriptions).
	out, err := exec.CommandContext(ctx, c.bin, "keys", "create", "--member", *member, "--name", "scripts/bench webhooks", "--scopes", "webhooks").Output()
	if err != nil {
		return fmt.Errorf("keys create: %w", err)
	}
	var kout struct{ Key string }
	if err := json.Unmarshal(out, &kout); err != nil || kout.Key == "" {
		return fmt.Errorf("keys create answered %s", out)
	}

	rcv, err := newWHReceiver()
	if err != nil {
		return err
	}
	defer rcv.close()

	// Baseline: the sender alone (render, sign, POST to the receiver), no
	// queue and no database, at the server's concurrency, for 3 s.
	baseRate, err := whBaseline(ctx, rcv, *workers, 3*time.Second)
	if err != nil {
		return err
	}
	say("webhooks: baseline (sender alone): %.0f signed requests/s", baseRate)

	s, err := startServer(ctx, "webhooks", c.bin, c.logDir, "WEBHOOK_ALLOW_PRIVATE_TARGETS=true", "WEBHOOK_WORKERS="+strconv.Itoa(*workers))
	if err != nil {
		return err
	}
	defer s.stop()
	api := whAPI{base: s.base, key: kout.Key, client: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}

	// 1. Latency with an idle queue: one event at a time, one
	// subscription; from the request that makes the event to the first
	// attempt's arrival at the receiver.
	latID, latSecret, err := api.subscribe(ctx, rcv.url("/lat"))
	if err != nil {
		return err
	}
	rcv.setSecret("/lat", latSecret)
	var lat, rtt, fromStart []time.Duration
	for i := range *latEvents {
		name := fmt.Sprintf("lat-%d", i)
		before := len(rcv.snapshot())
		t0 := time.Now()
		if err := api.createKey(ctx, name); err != nil {
			return err
		}
		rtt = append(rtt, time.Since(t0))
		deadline := time.Now().Add(10 * time.Second)
		var got, occurred time.Time
		for got.IsZero() {
			for _, a := range rcv.snapshot()[before:] {
				if a.name == name {
					got, occurred = a.at, a.occurred
				}
			}
			if got.IsZero() {
				if time.Now().After(deadline) {
					return fmt.Errorf("latency event %s not delivered within 10 s", name)
				}
				time.Sleep(time.Millisecond)
			}
		}
		lat = append(lat, got.Sub(occurred))
		fromStart = append(fromStart, got.Sub(t0))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(*latGap):
		}
	}
	if st, body, err := api.call(ctx, "DELETE", "/api/v1/webhooks/"+latID, nil); err != nil || st != 200 {
		return fmt.Errorf("DELETE latency subscription: %d %s %v", st, body, err)
	}
	slices.Sort(lat)
	slices.Sort(rtt)
	slices.Sort(fromStart)
	say("webhooks: event-to-first-attempt p50 %.1f ms, p99 %.1f ms (from the request's start: p99 %.1f ms; API round trip p99 %.1f ms)",
		ms(whPct(lat, 50)), ms(whPct(lat, 99)), ms(whPct(fromStart, 99)), ms(whPct(rtt, 99)))

	// 2. Sustained delivery: events offered at a fixed rate, each fanning
	// out to `fanout` subscriptions; every delivery's signature verified.
	for i := range *fanout {
		_, secret, err := api.subscribe(ctx, rcv.url(fmt.Sprintf("/s%d", i)))
		if err != nil {
			return err
		}
		rcv.setSecret(fmt.Sprintf("/s%d", i), secret)
	}
	startArr := len(rcv.snapshot())
	runCtx, stopRun := context.WithCancel(ctx)
	var produced, prodErrs atomic.Int64
	var firstErr atomic.Value
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / *rate)
	go func() {
		next := time.Now()
		for n := 0; runCtx.Err() == nil; n++ {
			next = next.Add(interval)
			if d := time.Until(next); d > 0 {
				time.Sleep(d)
			}
			select {
			case sem <- struct{}{}:
			case <-runCtx.Done():
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				name := "tp-" + strconv.FormatInt(time.Now().UnixNano(), 10)
				if err := api.createKey(runCtx, name); err != nil {
					if runCtx.Err() == nil {
						prodErrs.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
					return
				}
				produced.Add(1)
			}()
		}
	}()
	select {
	case <-time.After(*warmup):
	case <-ctx.Done():
		stopRun()
		return ctx.Err()
	}
	winStart := time.Now()
	cpu0 := snapCPU(s.pid)
	prod0 := produced.Load()
	select {
	case <-time.After(*duration):
	case <-ctx.Done():
		stopRun()
		return ctx.Err()
	}
	winEnd := time.Now()
	cpu1 := snapCPU(s.pid)
	prod1 := produced.Load()
	stopRun()
	wg.Wait()
	offeredTotal := produced.Load() * int64(*fanout)

	// Drain: how long until every delivery made so far has arrived.
	drainStart := time.Now()
	for int64(len(rcv.snapshot())-startArr) < offeredTotal && time.Since(drainStart) < 2*time.Minute {
		time.Sleep(20 * time.Millisecond)
	}
	drain := time.Since(drainStart)
	arrivals := rcv.snapshot()[startArr:]
	delivered := 0
	var lags []time.Duration
	for _, a := range arrivals {
		if a.at.Before(winStart) || !a.at.Before(winEnd) {
			continue
		}
		delivered++
		if ns, err := strconv.ParseInt(strings.TrimPrefix(a.name, "tp-"), 10, 64); err == nil {
			lags = append(lags, a.at.Sub(time.Unix(0, ns)))
		}
	}
	slices.Sort(lags)
	window := winEnd.Sub(winStart)
	tput := float64(delivered) / window.Seconds()
	offered := float64(prod1-prod0) * float64(*fanout) / window.Seconds()
	sh := shares(cpu0, cpu1, ncpu)
	say("webhooks: %.0f deliveries/s (offered %.0f/s), lag p99 %.0f ms, drained in %s, %d bad signatures",
		tput, offered, ms(whPct(lags, 99)), drain.Round(time.Millisecond), rcv.bad.Load())

	var errNote string
	if v := firstErr.Load(); v != nil {
		errNote = fmt.Sprintf("; %d event requests failed, first: %s", prodErrs.Load(), v)
	}
	cfg := fmt.Sprintf("%d subscriptions per event (api_key.created from POST /api/v1/keys), events offered at %.0f/s by up to 32 concurrent requests, "+
		"%s warm-up, %s measured; WEBHOOK_WORKERS=%d; the receiver (in benchtool, on 127.0.0.1) verifies every signature with HMAC-SHA256 and answers 204",
		*fanout, *rate, *warmup, *duration, *workers)
	return appendResults(c.out,
		Result{Section: sec, Name: "sustained signed deliveries", Value: tput, Unit: "deliveries/s",
			Baseline: fmt.Sprintf("sender alone: %s", fmtNum(baseRate, "req/s")), Goal: AtLeast, Target: 500,
			Note: cfg + fmt.Sprintf("; offered %.0f deliveries/s in the window%s", offered, errNote)},
		Result{Section: sec, Name: "event-to-first-attempt p99, idle queue", Value: ms(whPct(lat, 99)), Unit: "ms",
			Baseline: fmt.Sprintf("API round trip p99: %.1f ms", ms(whPct(rtt, 99))), Goal: Below, Target: 1000,
			Note: fmt.Sprintf("%d events one at a time (%s pause after each arrival), one subscription; from the event's timestamp (the key's creation, "+
				"just before its transaction commits with the delivery's job) to the first attempt's arrival at the receiver; p50 %.1f ms, p90 %.1f ms, max %.1f ms; "+
				"from the start of the POST /api/v1/keys that makes the event instead (with the API call and its audit commit): p50 %.1f ms, p99 %.1f ms",
				*latEvents, *latGap, ms(whPct(lat, 50)), ms(whPct(lat, 90)), ms(whPct(lat, 100)), ms(whPct(fromStart, 50)), ms(whPct(fromStart, 99)))},
		Result{Section: sec, Name: "event-to-first-attempt p50, idle queue", Value: ms(whPct(lat, 50)), Unit: "ms",
			Baseline: fmt.Sprintf("API round trip p50: %.1f ms", ms(whPct(rtt, 50))), Goal: Info},
		Result{Section: sec, Name: "delivery lag p99 under sustained load", Value: ms(whPct(lags, 99)), Unit: "ms",
			Baseline: fmt.Sprintf("p50 %.0f ms", ms(whPct(lags, 50))), Goal: Info,
			Note: "from the event's request start to its delivery's arrival, for deliveries arriving in the window; a lag that stays flat means delivery keeps up"},
		Result{Section: sec, Name: "backlog drained after the window", Value: ms(drain), Unit: "ms", Goal: Info,
			Baseline: fmt.Sprintf("%d deliveries acknowledged in the run", offeredTotal),
			Note: fmt.Sprintf("%d distinct deliveries arrived for %d acknowledged events x %d subscriptions (more arrive when requests cut at the end of the run had committed); %d duplicate arrivals",
				len(arrivals), offeredTotal/int64(*fanout), *fanout, rcv.dups.Load())},
		Result{Section: sec, Name: "deliveries with a bad signature", Value: float64(rcv.bad.Load()), Unit: "errors", Goal: Exactly, Target: 0},
		Result{Section: sec, Name: "throughput run: CPU share, server", Value: sh.server, Unit: "%", Goal: Info,
			Baseline: fmt.Sprintf("postgres %.0f%%, benchtool %.0f%%, machine %.0f%%", sh.postgres, sh.loadgen, sh.machine)},
	)
}

// whBaseline posts signed requests straight to the receiver with the
// service's own sender and returns the rate.
func whBaseline(ctx context.Context, rcv *whReceiver, conc int, d time.Duration) (float64, error) {
	secret := webhooks.NewSecret()
	rcv.setSecret("/base", secret)
	snd := webhooksend.New(webhooksend.Config{Policy: webhooks.Policy{AllowPrivate: true}, Timeout: 10 * time.Second, MaxIdleConnsPerHost: conc})
	data, _ := json.Marshal(graph.APIKeyEventData{KeyID: graph.NewID(), Name: "base", KeyPrefix: "ctc_live_Ab12Cd", Environment: graph.Production, Scopes: []string{"webhooks"}, CreatedAt: time.Now()})
	bctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var n atomic.Int64
	var errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for bctx.Err() == nil {
				a := webhooks.Attempt{DeliveryID: graph.NewID(), EventID: graph.NewID(), EventType: graph.EventAPIKeyCreated, OccurredAt: time.Now(),
					Data: data, URL: rcv.url("/base"), Secret: secret, Format: webhooks.FormatRaw}
				req, err := webhooks.Message(a, time.Now(), "benchtool")
				if err != nil {
					errs.Add(1)
					return
				}
				st, err := snd.Send(bctx, req)
				if err == nil && st == 204 {
					n.Add(1)
				} else if bctx.Err() == nil {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if errs.Load() > 0 && n.Load() == 0 {
		return 0, errors.New("baseline: no request succeeded")
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}

// whPct returns the p-th percentile of sorted durations.
func whPct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(sorted)))
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}
