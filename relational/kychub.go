package relational

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradecompliance/compliance/graph/kyc"
)

var _ kyc.Progress = (*ProgressHub)(nil)

// ProgressHub fans run events out to this instance's subscribers. It holds
// ONE listening connection on ProgressChannel, whoever the subscribers
// are: on a notification for a run some local subscriber follows, it reads
// that event once and offers it to each of them without ever blocking
// (a subscriber whose buffer is full is told to re-read the log instead).
type ProgressHub struct {
	db  *DB
	log *slog.Logger

	mu        sync.Mutex
	subs      map[string]map[*follower]struct{}
	overflows atomic.Int64
	listening atomic.Bool

	// PollEvery is each follower's fallback re-read of the log, in case a
	// notification was missed while the listening connection was down;
	// 10 s (with jitter) when zero.
	PollEvery time.Duration
	// Buffer is each follower's live buffer; 64 when zero.
	Buffer int
}

type follower struct {
	live chan kyc.StepResult
	kick chan struct{} // cap 1: re-read the log
}

// NewProgressHub returns a hub over db; Run starts its listener.
func (db *DB) NewProgressHub(log *slog.Logger) *ProgressHub {
	if log == nil {
		log = db.log
	}
	return &ProgressHub{db: db, log: log, subs: map[string]map[*follower]struct{}{}}
}

// Run listens until ctx ends, reconnecting every second while Postgres is
// unreachable; after every (re)connection each follower re-reads the log,
// so nothing notified meanwhile is lost.
func (h *ProgressHub) Run(ctx context.Context) {
	logged := false
	for ctx.Err() == nil {
		err := h.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		if !logged {
			h.log.Warn("progress listener down; retrying every second", "err", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (h *ProgressHub) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, h.db.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+ProgressChannel); err != nil {
		return err
	}
	h.listening.Store(true)
	defer h.listening.Store(false)
	h.kickAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		runID, seqText, ok := strings.Cut(n.Payload, ":")
		seq, err := strconv.Atoi(seqText)
		if !ok || err != nil {
			continue
		}
		h.deliver(ctx, runID, seq)
	}
}

// deliver reads the event once and offers it to the run's followers.
func (h *ProgressHub) deliver(ctx context.Context, runID string, seq int) {
	h.mu.Lock()
	n := len(h.subs[runID])
	h.mu.Unlock()
	if n == 0 {
		return
	}
	var ev *kyc.StepResult
	s, err := scanStep(h.db.Pool.QueryRow(ctx, `SELECT `+stepColumns+` FROM kyc_run_events WHERE run_id = $1 AND seq = $2`, runID, seq))
	if err == nil {
		s.JSON, _ = json.Marshal(s) // once for every local subscriber
		ev = &s
	} else if ctx.Err() == nil {
		h.log.Warn("progress: an event could not be read; its followers re-read the log", "run_id", runID, "seq", seq, "err", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for f := range h.subs[runID] {
		if ev == nil {
			f.poke()
			continue
		}
		select {
		case f.live <- *ev:
		default:
			h.overflows.Add(1)
			f.poke() // its buffer is full: it re-reads the log when it catches up
		}
	}
}

func (f *follower) poke() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

func (h *ProgressHub) kickAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, fs := range h.subs {
		for f := range fs {
			f.poke()
		}
	}
}

func (h *ProgressHub) add(runID string) *follower {
	buf := h.Buffer
	if buf <= 0 {
		buf = 64
	}
	f := &follower{live: make(chan kyc.StepResult, buf), kick: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[runID] == nil {
		h.subs[runID] = map[*follower]struct{}{}
	}
	h.subs[runID][f] = struct{}{}
	return f
}

func (h *ProgressHub) remove(runID string, f *follower) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs[runID], f)
	if len(h.subs[runID]) == 0 {
		delete(h.subs, runID)
	}
}

// Listening reports whether the hub's listening connection is up.
func (h *ProgressHub) Listening() bool { return h.listening.Load() }

// Overflows returns how many live events were not offered to a follower
// because its buffer was full (it re-read them from the log instead).
func (h *ProgressHub) Overflows() int64 { return h.overflows.Load() }

// Followers returns how many subscribers this instance holds.
func (h *ProgressHub) Followers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, fs := range h.subs {
		n += len(fs)
	}
	return n
}

// Follow returns the run's events from seq 1: it registers with the hub
// first, then reads the log, then passes on live events above the last one
// delivered (a gap or an overflow makes it re-read the log), so each event
// arrives once and in order. The channel closes after the final event, once
// the log of a run completed without one (a stale scheduled run the schedule
// closed) is passed on (at once, or at the next poll), or when ctx ends. It
// fails when the log cannot be read.
func (h *ProgressHub) Follow(ctx context.Context, runID string) (<-chan kyc.StepResult, error) {
	f := h.add(runID)
	closed, err := h.runCompleted(ctx, runID)
	if err != nil {
		h.remove(runID, f)
		return nil, err
	}
	first, err := h.db.RunSteps(ctx, runID, 0)
	if err != nil {
		h.remove(runID, f)
		return nil, err
	}
	out := make(chan kyc.StepResult) // unbuffered: a reader that stops holds up only its own follower
	go func() {
		defer close(out)
		defer h.remove(runID, f)
		last := 0
		// emit passes on events in order; it returns false when the
		// stream is over (final event sent, or ctx ended).
		emit := func(evs []kyc.StepResult) bool {
			for _, ev := range evs {
				if ev.Seq <= last {
					continue
				}
				if ev.Seq != last+1 {
					return h.catchUp(ctx, runID, &last, out)
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return false
				}
				last = ev.Seq
				if ev.Final {
					return false
				}
			}
			return true
		}
		if !emit(first) || closed {
			return
		}
		poll := h.PollEvery
		if poll <= 0 {
			poll = 10 * time.Second
		}
		t := time.NewTimer(poll + rand.N(poll/2+1))
		defer t.Stop()
		for {
			var more bool
			select {
			case <-ctx.Done():
				return
			case ev := <-f.live:
				more = emit([]kyc.StepResult{ev})
			case <-f.kick:
				more = h.catchUp(ctx, runID, &last, out)
			case <-t.C:
				closed, err := h.runCompleted(ctx, runID)
				more = h.catchUp(ctx, runID, &last, out)
				if err == nil && closed {
					more = false // completed without a verdict event: nothing more will come
				}
				t.Reset(poll)
			}
			if !more {
				return
			}
		}
	}()
	return out, nil
}

// runCompleted reports whether the run is completed. Read before the log, a
// completed run's log is final: a run completed by its job holds its
// verdict event (written in the completion's transaction), and a run the
// schedule closed as stale (QueueDueRescreens) holds none and never will,
// so its followers end once they have passed on what the log holds instead
// of waiting for a final event forever.
func (h *ProgressHub) runCompleted(ctx context.Context, runID string) (bool, error) {
	var completed bool
	err := h.db.Pool.QueryRow(ctx, `SELECT status = 'completed' FROM kyc_runs WHERE id = $1`, runID).Scan(&completed)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return completed, err
}

// catchUp re-reads the log after *last and passes the events on; it
// returns false when the stream is over.
func (h *ProgressHub) catchUp(ctx context.Context, runID string, last *int, out chan<- kyc.StepResult) bool {
	evs, err := h.db.RunSteps(ctx, runID, *last)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			h.log.Warn("progress: re-read of the run log failed; retrying at the next poll", "run_id", runID, "err", err)
		}
		return ctx.Err() == nil
	}
	for _, ev := range evs {
		if ev.Seq != *last+1 {
			return true // the log has no gaps; a later read completes it
		}
		select {
		case out <- ev:
		case <-ctx.Done():
			return false
		}
		*last = ev.Seq
		if ev.Final {
			return false
		}
	}
	return true
}
