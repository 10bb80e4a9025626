package relational

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/tradecompliance/compliance/graph/webhooks"
)

// WebhookWorkerConfig configures the delivery workers `compliance serve`
// runs on the River queue "webhooks".
type WebhookWorkerConfig struct {
	Deliverer   *webhooks.Deliverer
	Schedule    webhooks.Schedule // webhooks.DefaultSchedule when empty
	Workers     int               // concurrent attempts per instance; 100 when zero
	SendTimeout time.Duration     // the sender's per-attempt timeout; 10 s when zero
	StopTimeout time.Duration     // how long Stop waits for attempts in flight; 20 s when zero
	Logger      *slog.Logger
	Metrics     *WebhookMetrics  // nil: no metrics
	Rand        func() float64   // the schedule's jitter; nil: math/rand
	Now         func() time.Time // nil: time.Now
	// Jobs are further job sets the same River client works (KYC
	// re-screens, UBO builds...), each on its own queue.
	Jobs []JobSet
}

// JobSet is a group of River workers on one queue that `compliance serve`
// runs besides webhook deliveries. Job sets are made in this package (the
// River types stay here): each surface adds a constructor returning one.
type JobSet struct {
	Queue      string
	MaxWorkers int                          // per instance; 10 when zero
	Add        func(w *river.Workers) error // registers the set's workers
	Periodic   []*river.PeriodicJob         // scheduled jobs (run by the leader only)
	// Idle registers the set's workers and periodic jobs without working
	// its queue on this instance (KYC_WORKERS=0): whichever instance River
	// elects leader must know every job kind, or its rescuer discards a
	// stuck job of an unknown kind and its periodic jobs are never queued.
	Idle bool
}

// WebhookWorkers is the running delivery client.
type WebhookWorkers struct {
	client  *river.Client[pgx.Tx]
	log     *slog.Logger
	cancel  context.CancelFunc
	done    chan struct{} // closed when the start loop has ended
	mu      sync.Mutex
	started bool
}

// StartWebhookWorkers starts working the delivery queue in the background.
// It returns at once: while Postgres is unreachable or River's migrations
// are not applied it retries every two seconds (readiness says why).
func (db *DB) StartWebhookWorkers(ctx context.Context, cfg WebhookWorkerConfig) (*WebhookWorkers, error) {
	if cfg.Deliverer == nil {
		return nil, errors.New("webhook workers need a Deliverer")
	}
	if len(cfg.Schedule.Delays) == 0 {
		cfg.Schedule = webhooks.DefaultSchedule
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 100
	}
	if cfg.SendTimeout <= 0 {
		cfg.SendTimeout = 10 * time.Second
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = 20 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = db.log
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &deliveryWorker{db: db, cfg: cfg}); err != nil {
		return nil, err
	}
	queues := map[string]river.QueueConfig{QueueWebhooks: {MaxWorkers: cfg.Workers}}
	seen := map[string]bool{QueueWebhooks: true}
	var periodic []*river.PeriodicJob
	for _, js := range cfg.Jobs {
		if js.Queue == "" || js.Add == nil {
			return nil, errors.New("a job set needs a queue and workers")
		}
		if seen[js.Queue] {
			return nil, fmt.Errorf("job queue %q configured twice", js.Queue)
		}
		seen[js.Queue] = true
		if err := js.Add(workers); err != nil {
			return nil, err
		}
		periodic = append(periodic, js.Periodic...)
		if js.Idle {
			continue
		}
		n := js.MaxWorkers
		if n <= 0 {
			n = 10
		}
		queues[js.Queue] = river.QueueConfig{MaxWorkers: n}
	}
	jobTimeout := cfg.jobTimeout()
	client, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{
		Queues:            queues,
		PeriodicJobs:      periodic,
		Workers:           workers,
		FetchCooldown:     fetchCooldown,
		FetchPollInterval: fetchPollInterval,
		JobTimeout:        jobTimeout,
		// A job still "running" this long after its attempt began belongs
		// to an instance that died (SIGKILL, power loss): River's leader
		// puts it back in the queue, and the delivery is attempted again
		// with the same webhook-id.
		RescueStuckJobsAfter: jobTimeout + 5*time.Second,
		SoftStopTimeout:      cfg.StopTimeout,
		Logger:               quietLogger(cfg.Logger),
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &WebhookWorkers{client: client, log: cfg.Logger, cancel: cancel, done: make(chan struct{})}
	go w.startLoop(ctx, db)
	return w, nil
}

func (w *WebhookWorkers) startLoop(ctx context.Context, db *DB) {
	defer close(w.done)
	logged := false
	for {
		err := func() error {
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			pending, err := db.pendingRiver(pctx)
			if err != nil {
				return err
			}
			if len(pending) > 0 {
				return fmt.Errorf("job queue migrations pending (run `compliance migrate`): %v", pending)
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := w.client.Start(ctx); err != nil {
				return err
			}
			w.started = true
			return nil
		}()
		if err == nil {
			w.log.Info("webhook delivery workers started", "queue", QueueWebhooks)
			return
		}
		if ctx.Err() != nil {
			return
		}
		if !logged {
			w.log.Warn("webhook delivery workers not started yet; retrying every 2s", "err", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// Stop stops fetching and waits for the attempts in flight to finish (up
// to the StopTimeout, then cancels them) or for ctx to end.
func (w *WebhookWorkers) Stop(ctx context.Context) error {
	w.cancel()
	<-w.done
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if !started {
		return nil
	}
	return w.client.Stop(ctx)
}

// deliveryWorker works one delivery job: one attempt.
type deliveryWorker struct {
	river.WorkerDefaults[deliveryArgs]
	db  *DB
	cfg WebhookWorkerConfig
}

func (w *deliveryWorker) Timeout(*river.Job[deliveryArgs]) time.Duration {
	return w.cfg.jobTimeout()
}

// jobTimeout bounds one job: the attempt and the two short writes around
// it (the outcome's write is not cut by it).
func (c WebhookWorkerConfig) jobTimeout() time.Duration { return c.SendTimeout + 5*time.Second }

// NextRetry is River's own retry of a job that failed (the database was
// unreachable) or was rescued after a crash: soon, doubling to 5 minutes.
// The delivery's own schedule is applied by snoozing (see Work).
func (w *deliveryWorker) NextRetry(job *river.Job[deliveryArgs]) time.Time {
	shift := min(max(job.Attempt-1, 0), 9)
	return time.Now().Add(min(time.Second<<shift, 5*time.Minute))
}

// pool is where the worker writes a delivery's state: the sessions that
// commit asynchronously (synchronous_commit=off), saving two WAL flushes
// per delivery. It is safe because River marks the job completed or
// snoozed afterwards in a synchronous commit, and Postgres makes WAL
// durable in order: when the job's new state is durable, so is every
// delivery write committed before it. A crash can lose only writes whose
// job is still "running", and such a job is rescued and attempted again
// (at least once, the same webhook-id).
func (w *deliveryWorker) pool() *pgxpool.Pool {
	if w.db.counters != nil {
		return w.db.counters
	}
	return w.db.Pool
}

// claimed is a delivery the worker has just moved to delivering.
type claimed struct {
	webhooks.Attempt
	subscriptionID string
	attemptCount   int
	queuedAt       time.Time
}

// Work makes one attempt of the job's delivery, records its outcome, and
// snoozes the job until the next attempt when one is due.
func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	c, err := w.claim(ctx, job.Args)
	if err != nil || c == nil {
		return err // nil: stale generation, done, or dead-lettered
	}
	m := w.cfg.Metrics
	if c.attemptCount == 1 {
		m.firstAttempt(w.cfg.Now().Sub(c.queuedAt))
	}
	res := w.cfg.Deliverer.Deliver(ctx, c.Attempt)
	m.attempt(res)
	// The outcome is written even when the job's context ended meanwhile.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	log := w.cfg.Logger.With("delivery_id", c.DeliveryID, "event", c.EventType, "attempt", c.attemptCount)
	var code *int
	if res.StatusCode != 0 {
		code = &res.StatusCode
	}
	switch res.Outcome {
	case webhooks.OutcomeDelivered:
		log.Debug("webhook delivered", "status", res.StatusCode, "duration_ms", res.Duration.Milliseconds())
		m.final(webhooks.StatusDelivered)
		return w.finish(rctx, job.Args, webhooks.StatusDelivered, code, "")
	case webhooks.OutcomeGone:
		log.Info("webhook receiver answered 410 Gone; subscription disabled", "subscription_id", c.subscriptionID)
		m.final(webhooks.StatusDLQ)
		return pgx.BeginFunc(rctx, w.pool(), func(tx pgx.Tx) error {
			if err := finishTx(rctx, tx, job.Args, webhooks.StatusDLQ, code, res.Reason); err != nil {
				return err
			}
			if _, err := tx.Exec(rctx, `UPDATE webhook_subscriptions SET disabled_at = now(), disabled_reason = $2
				WHERE id = $1 AND disabled_at IS NULL`, c.subscriptionID, webhooks.DisabledReasonGone); err != nil {
				return err
			}
			return deadLetterQueued(rctx, tx, c.subscriptionID, "the subscription is disabled: "+webhooks.DisabledReasonGone)
		})
	}
	delay, more := w.cfg.Schedule.Next(c.attemptCount, w.cfg.Rand)
	if !more {
		log.Info("webhook dead-lettered after its last attempt", "reason", res.Reason)
		m.final(webhooks.StatusDLQ)
		return w.finish(rctx, job.Args, webhooks.StatusDLQ, code, res.Reason+fmt.Sprintf(" (attempt %d of %d: dead-lettered)", c.attemptCount, w.cfg.Schedule.MaxAttempts()))
	}
	log.Debug("webhook attempt failed; retry scheduled", "reason", res.Reason, "retry_in", delay.String())
	tag, err := w.pool().Exec(rctx, `UPDATE webhook_deliveries SET status = 'failed', response_code = $3, last_error = $4,
			next_attempt_at = now() + $5::interval, updated_at = now()
		WHERE id = $1 AND generation = $2 AND status = 'delivering'`, job.Args.DeliveryID, job.Args.Generation, code, res.Reason, delay)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return nil // dead-lettered meanwhile (its subscription was deleted)
	}
	return river.JobSnooze(delay)
}

// claim moves the job's delivery to delivering, counting the attempt, and
// returns what the attempt needs. It returns nil when there is nothing to
// do: a stale job (the delivery was replayed since), a delivery already
// delivered or dead-lettered, or one whose subscription no longer takes
// deliveries (it is dead-lettered here). A delivery found in delivering is
// one whose previous attempt died with its instance: it is attempted again.
func (w *deliveryWorker) claim(ctx context.Context, a deliveryArgs) (*claimed, error) {
	var c claimed
	var status, format string
	var data []byte
	err := w.pool().QueryRow(ctx, `
		WITH cur AS (
			SELECT d.id, s.deleted_at IS NULL AND s.disabled_at IS NULL AS active, s.deleted_at IS NOT NULL AS deleted
			FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
			WHERE d.id = $1 AND d.generation = $2 AND d.status IN ('pending', 'failed', 'delivering')
			FOR UPDATE OF d
		)
		UPDATE webhook_deliveries d SET
			status = CASE WHEN cur.active THEN 'delivering' ELSE 'dlq' END,
			attempt_count = d.attempt_count + CASE WHEN cur.active THEN 1 ELSE 0 END,
			last_attempt_at = CASE WHEN cur.active THEN now() ELSE d.last_attempt_at END,
			last_error = CASE WHEN cur.active THEN d.last_error
				WHEN cur.deleted THEN 'the subscription was deleted' ELSE 'the subscription is disabled' END,
			next_attempt_at = NULL,
			updated_at = now()
		FROM cur, webhook_subscriptions s, webhook_events e
		WHERE d.id = cur.id AND s.id = d.subscription_id AND e.id = d.event_id
		RETURNING d.status, d.attempt_count, d.queued_at, d.subscription_id, s.url, s.secret, s.delivery_format,
			e.id, e.type, e.occurred_at, e.payload`, a.DeliveryID, a.Generation).Scan(
		&status, &c.attemptCount, &c.queuedAt, &c.subscriptionID, &c.URL, &c.Secret, &format,
		&c.EventID, &c.EventType, &c.OccurredAt, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim delivery %s: %w", a.DeliveryID, err)
	}
	if status != string(webhooks.StatusDelivering) {
		w.cfg.Metrics.final(webhooks.StatusDLQ)
		return nil, nil
	}
	c.DeliveryID = a.DeliveryID
	c.Format = webhooks.Format(format)
	c.Data = json.RawMessage(data)
	return &c, nil
}

func (w *deliveryWorker) finish(ctx context.Context, a deliveryArgs, st webhooks.Status, code *int, reason string) error {
	return finishTx(ctx, w.pool(), a, st, code, reason)
}

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// finishTx records a delivery's final state, delivered or dlq, through tx
// (a transaction or the pool).
func finishTx(ctx context.Context, tx execer, a deliveryArgs, st webhooks.Status, code *int, reason string) error {
	var lastErr *string
	if reason != "" {
		lastErr = &reason
	}
	_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = $3, response_code = $4, last_error = $5,
			delivered_at = CASE WHEN $3 = 'delivered' THEN now() END, next_attempt_at = NULL, updated_at = now()
		WHERE id = $1 AND generation = $2 AND status = 'delivering'`, a.DeliveryID, a.Generation, string(st), code, lastErr)
	if err != nil {
		return fmt.Errorf("record delivery %s: %w", a.DeliveryID, err)
	}
	return nil
}
