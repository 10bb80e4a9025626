package resolvers

import (
	"context"
	"reflect"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// watchStatus sends the current status at once, then every change seen by
// polling at the given interval, until ctx ends. A receiver that does not
// keep up misses intermediate states, never the latest one.
func watchStatus(ctx context.Context, h *graph.Health, every time.Duration) <-chan *graph.Status {
	ch := make(chan *graph.Status, 1)
	go func() {
		defer close(ch)
		var last *graph.Status
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			st := h.Status(ctx)
			if ctx.Err() != nil {
				return
			}
			if last == nil || !reflect.DeepEqual(last.Checks, st.Checks) {
				last = &st
				select {
				case ch <- &st:
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}
