package main

import (
	"context"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A crash (SIGKILL) loses no audit row of a request whose response was
// sent: every response a client received has its row after the crash.
func TestE2ECrashLosesNoAuditRowOfASentResponse(t *testing.T) {
	env := testEnv(t)
	in := start(t, env)
	k := in.key("acme")

	var mu sync.Mutex
	var received []string // request ids of responses that arrived whole
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequest("GET", in.base+"/api/v1/keys", nil)
				req.Header.Set("Authorization", "Bearer "+k.Key)
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					received = append(received, resp.Header.Get("X-Request-Id"))
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	in.cmd.Process.Signal(syscall.SIGKILL) // mid-flight
	in.cmd.Wait()
	in.stopped = true
	cancel()
	wg.Wait()

	if len(received) < 50 {
		t.Fatalf("only %d responses before the crash; the test needs load", len(received))
	}
	db := openDB(t, env)
	missing := 0
	for _, id := range received {
		var n int
		if err := db.QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE request_id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			missing++
			if missing <= 5 {
				t.Errorf("request %s: %d audit rows, want 1", id, n)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d sent responses have no audit row after SIGKILL", missing, len(received))
	}
	// The chain is intact after the crash.
	runCLI(t, env, "audit", "verify")
}
