package resolvers

import (
	"context"
	"sync"
	"time"
)

// batcher is a per-request dataloader: keys asked for within wait of the
// first one (gqlgen resolves the fields of list items concurrently) are
// fetched together in one call, and answers are cached for the request.
type batcher[K comparable, V any] struct {
	fetch func(ctx context.Context, keys []K) (map[K]V, error)
	wait  time.Duration
	max   int // a batch is fetched at once when it reaches max keys

	mu      sync.Mutex
	pending *batch[K, V]
	cache   map[K]*batch[K, V]
}

type batch[K comparable, V any] struct {
	keys  []K
	done  chan struct{}
	vals  map[K]V
	err   error
	fired bool
}

func newBatcher[K comparable, V any](wait time.Duration, max int, fetch func(context.Context, []K) (map[K]V, error)) *batcher[K, V] {
	return &batcher[K, V]{fetch: fetch, wait: wait, max: max, cache: map[K]*batch[K, V]{}}
}

// Load returns the value of k and whether it exists, fetching it with the
// other keys of its batch. It fails with the batch's error.
func (b *batcher[K, V]) Load(ctx context.Context, k K) (V, bool, error) {
	b.mu.Lock()
	bt, ok := b.cache[k]
	if !ok {
		if b.pending == nil {
			bt = &batch[K, V]{done: make(chan struct{})}
			b.pending = bt
			time.AfterFunc(b.wait, func() { b.fire(context.WithoutCancel(ctx), bt) })
		}
		bt = b.pending
		bt.keys = append(bt.keys, k)
		b.cache[k] = bt
		if len(bt.keys) >= b.max {
			b.pending = nil
			go b.fire(context.WithoutCancel(ctx), bt)
		}
	}
	b.mu.Unlock()
	select {
	case <-bt.done:
	case <-ctx.Done():
		var zero V
		return zero, false, ctx.Err()
	}
	v, found := bt.vals[k]
	return v, found, bt.err
}

func (b *batcher[K, V]) fire(ctx context.Context, bt *batch[K, V]) {
	b.mu.Lock()
	if bt.fired {
		b.mu.Unlock()
		return
	}
	bt.fired = true
	if b.pending == bt {
		b.pending = nil
	}
	keys := bt.keys
	b.mu.Unlock()
	bt.vals, bt.err = b.fetch(ctx, keys)
	close(bt.done)
}
