package relational

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

var _ webhooks.Store = (*DB)(nil)

// deliveryArgs is the River job of one delivery. Generation fences stale
// jobs: a replay bumps the row's generation and queues a new job, and a job
// whose generation is not the row's does nothing.
type deliveryArgs struct {
	DeliveryID string `json:"delivery_id"`
	Generation int    `json:"generation"`
}

// deliveryJobKind is the River kind of delivery jobs.
const deliveryJobKind = "webhook_delivery"

func (deliveryArgs) Kind() string { return deliveryJobKind }

// jobMaxAttempts bounds River's own retries of a delivery job, which happen
// only when the job itself fails (the database is unreachable) or is
// rescued after a crash; the delivery's schedule is applied by snoozing,
// which does not count.
const jobMaxAttempts = 1000

func (deliveryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueWebhooks, MaxAttempts: jobMaxAttempts}
}

// enqueueDeliveries inserts the River jobs of deliveries in tx.
func (db *DB) enqueueDeliveries(ctx context.Context, tx pgx.Tx, ids []string, generation int) error {
	if len(ids) == 0 {
		return nil
	}
	ins, err := db.inserter()
	if err != nil {
		return err
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: deliveryArgs{DeliveryID: id, Generation: generation}}
	}
	if _, err := ins.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue deliveries: %w", err)
	}
	return nil
}

// publishTx records events in tx with one pending delivery, and its River
// job, per active subscription of the event's member that lists its type.
// An event with no MemberID is a registry-wide event (cluster.*): it is
// recorded once per member with a subscription that lists its type (the
// first member's row keeps ev.ID, the others get fresh ids), and delivered
// to each such subscription. An event no subscription wants is not
// recorded. Either everything commits with the change that caused the
// events, or nothing does.
func (db *DB) publishTx(ctx context.Context, tx pgx.Tx, events ...graph.Event) error {
	var ids []string
	for _, ev := range events {
		payload, err := json.Marshal(ev.Data)
		if err != nil {
			return fmt.Errorf("event %s payload: %w", ev.Type, err)
		}
		if ev.MemberID == "" {
			got, err := fanOutTx(ctx, tx, ev, payload)
			if err != nil {
				return err
			}
			ids = append(ids, got...)
			continue
		}
		rows, err := tx.Query(ctx, `
			WITH subs AS (
				SELECT id FROM webhook_subscriptions
				WHERE member_id = $2 AND deleted_at IS NULL AND disabled_at IS NULL AND $3 = ANY(events)
			), ev AS (
				INSERT INTO webhook_events (id, member_id, type, payload, occurred_at)
				SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM subs)
				RETURNING id
			)
			INSERT INTO webhook_deliveries (id, event_id, subscription_id, member_id)
			SELECT gen_random_uuid(), ev.id, subs.id, $2 FROM ev CROSS JOIN subs
			RETURNING id::text`, ev.ID, ev.MemberID, ev.Type, payload, ev.OccurredAt)
		if err != nil {
			return fmt.Errorf("publish %s: %w", ev.Type, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("publish %s: %w", ev.Type, err)
		}
		ids = append(ids, got...)
	}
	return db.enqueueDeliveries(ctx, tx, ids, 0)
}

// fanOutTx records a registry-wide event once per member whose active
// subscriptions list its type, with a delivery per such subscription, and
// returns the deliveries' ids.
func fanOutTx(ctx context.Context, tx pgx.Tx, ev graph.Event, payload []byte) ([]string, error) {
	rows, err := tx.Query(ctx, `
		WITH subs AS (
			SELECT id, member_id FROM webhook_subscriptions
			WHERE deleted_at IS NULL AND disabled_at IS NULL AND $2 = ANY(events)
		), mem AS (
			SELECT member_id, row_number() OVER (ORDER BY member_id) AS n FROM (SELECT DISTINCT member_id FROM subs) m
		), ev AS (
			INSERT INTO webhook_events (id, member_id, type, payload, occurred_at)
			SELECT CASE WHEN n = 1 THEN $1::uuid ELSE gen_random_uuid() END, member_id, $2, $3, $4 FROM mem
			RETURNING id, member_id
		)
		INSERT INTO webhook_deliveries (id, event_id, subscription_id, member_id)
		SELECT gen_random_uuid(), ev.id, subs.id, subs.member_id FROM ev JOIN subs ON subs.member_id = ev.member_id
		RETURNING id::text`, ev.ID, ev.Type, payload, ev.OccurredAt)
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	return ids, nil
}

const subscriptionColumns = `id, member_id, url, events, delivery_format, description, secret, created_at,
	disabled_at, COALESCE(disabled_reason, ''), deleted_at`

func scanSubscription(row pgx.Row) (webhooks.Subscription, error) {
	var s webhooks.Subscription
	var format string
	err := row.Scan(&s.ID, &s.MemberID, &s.URL, &s.Events, &format, &s.Description, &s.Secret, &s.CreatedAt,
		&s.DisabledAt, &s.DisabledReason, &s.DeletedAt)
	s.Format = webhooks.Format(format)
	return s, err
}

// CreateSubscription stores s unless its member has max subscriptions that
// are not deleted (conflict). A per-member advisory lock makes the count
// exact under concurrent requests.
func (db *DB) CreateSubscription(ctx context.Context, s webhooks.Subscription, max int) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, webhookLockKey, s.MemberID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `
			INSERT INTO webhook_subscriptions (id, member_id, url, events, delivery_format, description, secret, created_at)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8
			WHERE (SELECT count(*) FROM webhook_subscriptions WHERE member_id = $2 AND deleted_at IS NULL) < $9`,
			s.ID, s.MemberID, s.URL, s.Events, string(s.Format), s.Description, s.Secret, s.CreatedAt, max)
		if err != nil {
			return fmt.Errorf("create subscription: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return graph.Errorf(graph.CodeConflict, "a member has at most %d webhook subscriptions; delete one first", max)
		}
		return nil
	})
}

// webhookLockKey namespaces the advisory locks of subscription creation
// (the first key of pg_advisory_xact_lock(int4, int4)).
const webhookLockKey int32 = 740231181

// ListSubscriptions returns the member's subscriptions that are not
// deleted, newest first.
func (db *DB) ListSubscriptions(ctx context.Context, memberID string) ([]webhooks.Subscription, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions
		WHERE member_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id`, memberID)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanned(scanSubscription))
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	return out, nil
}

// DeleteSubscription soft-deletes the member's subscription and
// dead-letters its queued deliveries (pending or failed; one in flight
// finishes its attempt). Events and dead letters stay.
func (db *DB) DeleteSubscription(ctx context.Context, memberID, id string) (webhooks.Subscription, error) {
	var s webhooks.Subscription
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var err error
		s, err = scanSubscription(tx.QueryRow(ctx, `UPDATE webhook_subscriptions SET deleted_at = now()
			WHERE id = $1 AND member_id = $2 AND deleted_at IS NULL
			RETURNING `+subscriptionColumns, id, memberID))
		if errors.Is(err, pgx.ErrNoRows) {
			return graph.Errorf(graph.CodeNotFound, "no such webhook subscription")
		}
		if err != nil {
			return fmt.Errorf("delete subscription: %w", err)
		}
		return deadLetterQueued(ctx, tx, id, "the subscription was deleted")
	})
	return s, err
}

// deadLetterQueued moves a subscription's pending and failed deliveries to
// dlq: no attempt of theirs will run (their jobs find them in dlq and do
// nothing).
func deadLetterQueued(ctx context.Context, tx pgx.Tx, subID, reason string) error {
	_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'dlq', last_error = $2, next_attempt_at = NULL, updated_at = now()
		WHERE subscription_id = $1 AND status IN ('pending', 'failed')`, subID, reason)
	if err != nil {
		return fmt.Errorf("dead-letter queued deliveries: %w", err)
	}
	return nil
}

const deliveryColumns = `d.id, d.event_id, e.type, d.subscription_id, d.member_id, d.status, d.attempt_count,
	d.response_code, COALESCE(d.last_error, ''), d.created_at, d.updated_at, d.queued_at, d.last_attempt_at,
	d.next_attempt_at, d.delivered_at, e.occurred_at`

func scanDelivery(row pgx.Row) (webhooks.Delivery, error) {
	var d webhooks.Delivery
	var status string
	err := row.Scan(&d.ID, &d.EventID, &d.EventType, &d.SubscriptionID, &d.MemberID, &status, &d.AttemptCount,
		&d.ResponseCode, &d.LastError, &d.CreatedAt, &d.UpdatedAt, &d.QueuedAt, &d.LastAttemptAt,
		&d.NextAttemptAt, &d.DeliveredAt, &d.OccurredAt)
	d.Status = webhooks.Status(status)
	return d, err
}

// ListDeliveries returns the member's deliveries, newest first.
func (db *DB) ListDeliveries(ctx context.Context, memberID string, f webhooks.DeliveryFilter) ([]webhooks.Delivery, error) {
	var sub *string
	if f.SubscriptionID != "" {
		sub = &f.SubscriptionID
	}
	rows, err := db.Pool.Query(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.member_id = $1 AND ($2 = '' OR d.status = $2) AND ($3::uuid IS NULL OR d.subscription_id = $3)
		ORDER BY d.created_at DESC, d.id DESC LIMIT $4`, memberID, string(f.Status), sub, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanned(scanDelivery))
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}

// ReplayDelivery re-queues a dead-lettered delivery: status pending, attempt
// count zero, a new generation and its job, in one transaction.
func (db *DB) ReplayDelivery(ctx context.Context, memberID, id string) (time.Time, error) {
	var queued time.Time
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var status string
		var deleted, disabled bool
		err := tx.QueryRow(ctx, `SELECT d.status, s.deleted_at IS NOT NULL, s.disabled_at IS NOT NULL
			FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
			WHERE d.id = $1 AND d.member_id = $2 FOR UPDATE OF d`, id, memberID).Scan(&status, &deleted, &disabled)
		if errors.Is(err, pgx.ErrNoRows) {
			return graph.Errorf(graph.CodeNotFound, "no such webhook delivery")
		}
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		switch {
		case status != string(webhooks.StatusDLQ):
			return &graph.Error{Code: graph.CodeConflict, Message: "only a delivery in dlq can be replayed; this one is " + status,
				Details: map[string]any{"status": status}}
		case deleted:
			return graph.Errorf(graph.CodeConflict, "the delivery's subscription was deleted; create a new subscription")
		case disabled:
			return graph.Errorf(graph.CodeConflict, "the delivery's subscription is disabled (its receiver answered 410 Gone); create a new subscription")
		}
		var gen int
		err = tx.QueryRow(ctx, `UPDATE webhook_deliveries SET status = 'pending', attempt_count = 0, response_code = NULL,
				last_error = NULL, delivered_at = NULL, next_attempt_at = now(), queued_at = now(), updated_at = now(),
				generation = generation + 1
			WHERE id = $1 RETURNING queued_at, generation`, id).Scan(&queued, &gen)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		return db.enqueueDeliveries(ctx, tx, []string{id}, gen)
	})
	return queued.UTC(), err
}

// SendTest records ev and queues its one delivery to subscription subID.
func (db *DB) SendTest(ctx context.Context, memberID, subID string, ev graph.Event) (webhooks.Delivery, error) {
	var d webhooks.Delivery
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var disabled bool
		err := tx.QueryRow(ctx, `SELECT disabled_at IS NOT NULL FROM webhook_subscriptions
			WHERE id = $1 AND member_id = $2 AND deleted_at IS NULL FOR SHARE`, subID, memberID).Scan(&disabled)
		if errors.Is(err, pgx.ErrNoRows) {
			return graph.Errorf(graph.CodeNotFound, "no such webhook subscription")
		}
		if err != nil {
			return fmt.Errorf("test delivery: %w", err)
		}
		if disabled {
			return graph.Errorf(graph.CodeConflict, "the subscription is disabled (its receiver answered 410 Gone); create a new subscription")
		}
		payload, err := json.Marshal(ev.Data)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_events (id, member_id, type, payload, occurred_at) VALUES ($1, $2, $3, $4, $5)`,
			ev.ID, memberID, ev.Type, payload, ev.OccurredAt); err != nil {
			return fmt.Errorf("test event: %w", err)
		}
		d, err = scanDelivery(tx.QueryRow(ctx, `WITH d AS (
				INSERT INTO webhook_deliveries (id, event_id, subscription_id, member_id) VALUES ($1, $2, $3, $4)
				RETURNING *)
			SELECT `+deliveryColumns+` FROM d JOIN webhook_events e ON e.id = d.event_id`,
			graph.NewID(), ev.ID, subID, memberID))
		if err != nil {
			return fmt.Errorf("test delivery: %w", err)
		}
		return db.enqueueDeliveries(ctx, tx, []string{d.ID}, 0)
	})
	return d, err
}
