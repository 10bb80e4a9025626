package relational

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
)

// batcher runs concurrent calls together: a call joins the pending list,
// and up to inFlight goroutines each take up to max pending calls at a time
// and run them as one round trip (run). A call that finds a batch already
// in flight waits for the next one, so under load the batches grow and the
// database sees one statement for many requests; an idle call is run at
// once, alone. Every call is still answered from the database as it is
// after the call began, so batching changes the cost, not the answer.
type batcher[Req, Res any] struct {
	max      int
	inFlight int
	// run answers every request of the batch, in order, or fails them all.
	run func(ctx context.Context, reqs []Req) ([]Res, error)

	mu      sync.Mutex
	pending []*batchCall[Req, Res]
	running int
	// idle is closed when running falls back to 0; a new one is made when
	// it rises from 0. (Not a WaitGroup: calls may keep arriving while
	// wait waits, at shutdown, which a WaitGroup forbids with a panic.)
	idle chan struct{}
}

type batchCall[Req, Res any] struct {
	ctx  context.Context
	req  Req
	res  Res
	err  error
	done chan struct{}
}

// do runs req in the next batch and returns its answer. It returns ctx's
// error when ctx ends first; the request is then not run, unless its batch
// was already taken.
func (b *batcher[Req, Res]) do(ctx context.Context, req Req) (Res, error) {
	if err := ctx.Err(); err != nil {
		var zero Res
		return zero, err
	}
	c := &batchCall[Req, Res]{ctx: ctx, req: req, done: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, c)
	if b.running < b.inFlight {
		if b.running == 0 {
			b.idle = make(chan struct{})
		}
		b.running++
		go b.drain()
	}
	b.mu.Unlock()
	select {
	case <-c.done:
		return c.res, c.err
	case <-ctx.Done():
		var zero Res
		return zero, ctx.Err()
	}
}

// wait returns once every call handed to the batcher so far is answered.
// Calls may go on arriving meanwhile; they are answered as usual.
func (b *batcher[Req, Res]) wait() {
	b.mu.Lock()
	idle := b.idle
	running := b.running
	b.mu.Unlock()
	if running > 0 {
		<-idle
	}
}

// drain runs batches until nothing is pending.
func (b *batcher[Req, Res]) drain() {
	for {
		b.mu.Lock()
		n := min(len(b.pending), b.max)
		if n == 0 {
			b.running--
			if b.running == 0 {
				close(b.idle)
			}
			b.mu.Unlock()
			return
		}
		calls := make([]*batchCall[Req, Res], 0, n)
		for _, c := range b.pending[:n] {
			if err := c.ctx.Err(); err != nil {
				c.err = err // its caller has gone: do not charge it
				close(c.done)
				continue
			}
			calls = append(calls, c)
		}
		m := copy(b.pending, b.pending[n:])
		clear(b.pending[m:]) // hold no answered call
		b.pending = b.pending[:m]
		b.mu.Unlock()
		if len(calls) == 0 {
			continue
		}

		reqs := make([]Req, len(calls))
		for i, c := range calls {
			reqs[i] = c.req
		}
		res, err := b.runSafe(reqs)
		for i, c := range calls {
			if err != nil {
				c.err = err
			} else {
				c.res = res[i]
			}
			close(c.done)
		}
	}
}

// runSafe runs a batch on this goroutine, where no handler's recover would
// see a panic: a panic fails the batch's calls instead of the process, and
// so does an answer of the wrong length.
func (b *batcher[Req, Res]) runSafe(reqs []Req) (res []Res, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("batch of %d panicked: %v\n%s", len(reqs), p, debug.Stack())
		}
	}()
	res, err = b.run(context.Background(), reqs)
	if err == nil && len(res) != len(reqs) {
		return nil, fmt.Errorf("batch of %d answered %d", len(reqs), len(res))
	}
	return res, err
}
