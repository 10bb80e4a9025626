package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// cmdStartup measures issue 2's start-up target: `compliance serve` ready
// (GET /readyz 200) within 3 s of exec on a migrated database. Baseline:
// exec-to-exit of `compliance version`, the bare cost of starting the
// process.
func cmdStartup(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("startup", flag.ContinueOnError)
	c.register(fs, false)
	runs := fs.Int("runs", 5, "start-ups to measure")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(false); err != nil {
		return err
	}

	// Baseline: the process start cost. One unmeasured run first.
	version := func() (time.Duration, error) {
		t := time.Now()
		out, err := exec.CommandContext(ctx, c.bin, "version").CombinedOutput()
		d := time.Since(t)
		if err != nil {
			return 0, fmt.Errorf("compliance version: %v: %s", err, out)
		}
		return d, nil
	}
	if _, err := version(); err != nil {
		return err
	}
	var base []time.Duration
	for range *runs {
		d, err := version()
		if err != nil {
			return err
		}
		base = append(base, d)
	}

	var ready []time.Duration
	for i := range *runs {
		s, err := startServer(ctx, "startup", c.bin, c.logDir)
		if err != nil {
			return err
		}
		ready = append(ready, s.ready)
		say("start-up %d/%d: ready after %s", i+1, *runs, s.ready.Round(time.Millisecond))
		s.stop()
	}
	med, mx := median(ready), slices.Max(ready)
	bmed := median(base)
	var all []string
	for _, d := range ready {
		all = append(all, fmt.Sprintf("%.0f", ms(d)))
	}
	baseline := fmt.Sprintf("version: %.1f ms", ms(bmed))
	return appendResults(c.out,
		Result{Section: "A1 start-up", Name: fmt.Sprintf("exec -> /readyz 200, median of %d", *runs), Value: ms(med), Unit: "ms",
			Baseline: baseline, Goal: AtMost, Target: 3000,
			Note: fmt.Sprintf("runs (ms): %s; readiness polled every 5 ms; median is %.0fx the bare process start (`compliance version`, median %.1f ms, max %.1f ms)",
				strings.Join(all, ", "), float64(med)/float64(bmed), ms(bmed), ms(slices.Max(base)))},
		Result{Section: "A1 start-up", Name: fmt.Sprintf("exec -> /readyz 200, max of %d", *runs), Value: ms(mx), Unit: "ms",
			Baseline: baseline, Goal: AtMost, Target: 3000},
	)
}

// cmdRSS measures issue 2's idle memory target: VmRSS under 100 MB after
// readiness, 200 warm-up requests and 3 s idle. Baseline: VmRSS right after
// readiness.
func cmdRSS(ctx context.Context, args []string) error {
	var c common
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	c.register(fs, true)
	warm := fs.Int("requests", 200, "warm-up requests")
	idle := fs.Duration("idle", 3*time.Second, "idle time before the reading")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(true); err != nil {
		return err
	}
	s, err := startServer(ctx, "rss", c.bin, c.logDir)
	if err != nil {
		return err
	}
	defer s.stop()
	atReady, err := vmRSS(s.pid)
	if err != nil {
		return err
	}
	// A mix of what a client does first: authenticated REST, a GraphQL
	// query, probes and metrics, over a few keep-alive connections.
	type call struct{ method, path, body string }
	mix := []call{
		{"GET", "/api/v1/keys", ""},
		{"POST", "/graphql", `{"query":"{ __typename }"}`},
		{"GET", "/healthz", ""},
		{"GET", "/metrics", ""},
	}
	client := &http.Client{Timeout: 30 * time.Second}
	bad := 0
	for i := range *warm {
		cl := mix[i%len(mix)]
		var body io.Reader
		if cl.body != "" {
			body = strings.NewReader(cl.body)
		}
		req, _ := http.NewRequestWithContext(ctx, cl.method, s.base+cl.path, body)
		req.Header.Set("Authorization", "Bearer "+c.key)
		if cl.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			bad++
		}
	}
	if bad > 0 {
		say("rss: %d of %d warm-up requests were not 200", bad, *warm)
	}
	select {
	case <-time.After(*idle):
	case <-ctx.Done():
		return ctx.Err()
	}
	idleRSS, err := vmRSS(s.pid)
	if err != nil {
		return err
	}
	hwm := vmHWM(s.pid)
	say("rss: %.1f MB at readiness, %.1f MB idle after %d requests", mb(atReady), mb(idleRSS), *warm)
	return appendResults(c.out,
		Result{Section: "A2 idle RSS", Name: fmt.Sprintf("VmRSS after %d requests + %s idle", *warm, *idle), Value: mb(idleRSS), Unit: "MB",
			Baseline: fmt.Sprintf("at readiness: %.1f MB", mb(atReady)), Goal: Below, Target: 100,
			Note: fmt.Sprintf("MB = 10^6 bytes; warm-up mix: GET /api/v1/keys, POST /graphql, /healthz, /metrics (%d not 200); peak VmHWM %.1f MB; growth over readiness %.1fx",
				bad, mb(hwm), float64(idleRSS)/float64(atReady))},
	)
}

func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			var kb int64
			fmt.Sscan(f[1], &kb)
			return kb * 1024
		}
	}
	return 0
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mb(b int64) float64 { return float64(b) / 1e6 }
