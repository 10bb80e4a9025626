package relational

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBatcher(t *testing.T) {
	t.Run("concurrent calls share round trips and each gets its own answer", func(t *testing.T) {
		var trips, largest atomic.Int32
		b := &batcher[int, int]{max: 16, inFlight: 2, run: func(_ context.Context, reqs []int) ([]int, error) {
			trips.Add(1)
			if n := int32(len(reqs)); n > largest.Load() {
				largest.Store(n)
			}
			time.Sleep(2 * time.Millisecond) // a round trip, during which calls queue
			out := make([]int, len(reqs))
			for i, r := range reqs {
				out[i] = r * r
			}
			return out, nil
		}}
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Go(func() {
				got, err := b.do(context.Background(), i)
				if err != nil || got != i*i {
					t.Errorf("do(%d) = %d, %v; want %d", i, got, err, i*i)
				}
			})
		}
		wg.Wait()
		b.wait()
		if n := trips.Load(); n >= 200 {
			t.Errorf("200 concurrent calls took %d round trips, want fewer", n)
		}
		if n := largest.Load(); n > 16 {
			t.Errorf("largest batch = %d, want at most max (16)", n)
		}
	})

	t.Run("a failed round trip fails every call of its batch", func(t *testing.T) {
		boom := errors.New("boom")
		b := &batcher[int, int]{max: 8, inFlight: 1, run: func(context.Context, []int) ([]int, error) { return nil, boom }}
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				if _, err := b.do(context.Background(), i); !errors.Is(err, boom) {
					t.Errorf("do(%d) error = %v, want boom", i, err)
				}
			})
		}
		wg.Wait()
	})

	t.Run("a caller whose context ends stops waiting; the others are answered", func(t *testing.T) {
		release := make(chan struct{})
		b := &batcher[int, int]{max: 8, inFlight: 1, run: func(_ context.Context, reqs []int) ([]int, error) {
			<-release
			return reqs, nil
		}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := b.do(ctx, 1); done <- err }()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("do with a cancelled context = %v, want context.Canceled", err)
		}
		close(release)
		if got, err := b.do(context.Background(), 7); got != 7 || err != nil {
			t.Errorf("do(7) after a cancelled call = %d, %v; want 7", got, err)
		}
		b.wait()
	})

	t.Run("an idle batcher runs a call at once and holds no goroutine", func(t *testing.T) {
		b := &batcher[int, int]{max: 8, inFlight: 2, run: func(_ context.Context, reqs []int) ([]int, error) { return reqs, nil }}
		for i := range 3 {
			if got, err := b.do(context.Background(), i); got != i || err != nil {
				t.Fatalf("do(%d) = %d, %v", i, got, err)
			}
		}
		b.wait() // returns only when no goroutine is running
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.running != 0 || len(b.pending) != 0 {
			t.Errorf("idle batcher: running %d, pending %d; want 0, 0", b.running, len(b.pending))
		}
	})
}

// TestBatcherWaitWhileCalled calls wait (as DB.Close and AuditLog.Close do
// at shutdown) while calls keep arriving, as they do from requests that
// outlast the shutdown timeout, websocket subscriptions or background
// workers: wait must neither panic nor leave a call unanswered.
func TestBatcherWaitWhileCalled(t *testing.T) {
	b := &batcher[int, int]{max: 4, inFlight: 2, run: func(_ context.Context, reqs []int) ([]int, error) { return reqs, nil }}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if got, err := b.do(context.Background(), i); got != i || err != nil {
					t.Errorf("do(%d) = %d, %v", i, got, err)
					return
				}
			}
		})
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		b.wait()
	}
	close(stop)
	wg.Wait()
	b.wait()
}

// TestBatcherRunPanics: a panic in run (a bug in a batch function) runs on
// the batcher's goroutine, where no handler's recover sees it; it must fail
// the calls of its batch, not end the process, and the batcher goes on.
func TestBatcherRunPanics(t *testing.T) {
	b := &batcher[int, int]{max: 8, inFlight: 1, run: func(_ context.Context, reqs []int) ([]int, error) {
		if reqs[0] < 0 {
			panic("bad batch")
		}
		return reqs, nil
	}}
	if _, err := b.do(context.Background(), -1); err == nil {
		t.Errorf("do(-1) with a panicking run: no error")
	}
	if got, err := b.do(context.Background(), 3); got != 3 || err != nil {
		t.Errorf("do(3) after a panicking batch = %d, %v; want 3", got, err)
	}
	b.wait()
}

// TestBatcherShortAnswer: a run that answers fewer requests than it was
// given fails the batch instead of indexing past its answers.
func TestBatcherShortAnswer(t *testing.T) {
	b := &batcher[int, int]{max: 8, inFlight: 1, run: func(_ context.Context, reqs []int) ([]int, error) { return nil, nil }}
	if _, err := b.do(context.Background(), 1); err == nil {
		t.Errorf("do with a run answering nothing: no error")
	}
	b.wait()
}

// TestBatcherSkipsCallsWhoseContextEnded: a call whose caller has gone
// (its context ended before its batch was taken) is not run: a quota or a
// rolling limit is not charged for a request that got no answer, as the
// single statement per request was not sent with an ended context.
func TestBatcherSkipsCallsWhoseContextEnded(t *testing.T) {
	release := make(chan struct{})
	var ran sync.Map
	b := &batcher[int, int]{max: 8, inFlight: 1, run: func(_ context.Context, reqs []int) ([]int, error) {
		for _, r := range reqs {
			ran.Store(r, true)
		}
		if reqs[0] == 1 {
			<-release
		}
		return reqs, nil
	}}
	first := make(chan error, 1)
	go func() { _, err := b.do(context.Background(), 1); first <- err }()
	for { // wait for call 1 to be in flight
		if _, ok := ran.Load(1); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() { _, err := b.do(ctx, 2); second <- err }() // pending behind call 1
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Errorf("do(2) = %v, want context.Canceled", err)
	}
	if _, err := b.do(ctx, 3); !errors.Is(err, context.Canceled) { // already ended
		t.Errorf("do(3) with an ended context = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("do(1) = %v", err)
	}
	b.wait()
	for _, r := range []int{2, 3} {
		if _, ok := ran.Load(r); ok {
			t.Errorf("call %d, whose context ended before its batch was taken, was run", r)
		}
	}
}
