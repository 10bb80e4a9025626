package webhooks

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// Status is a delivery's state:
//
//	pending ──> delivering ──> delivered
//	   ^             │
//	   │             └──> failed ──> delivering ... (retries on the schedule)
//	   │             │                    │
//	   │             └──────> dlq <───────┘ (last attempt failed, 410 Gone,
//	   │                       │             or the subscription was deleted)
//	   └──── replay ───────────┘
type Status string

// The delivery states, as the spec names them.
const (
	StatusPending    Status = "pending"    // queued, no attempt running
	StatusDelivering Status = "delivering" // an attempt is in flight
	StatusDelivered  Status = "delivered"  // a 2xx answer was received
	StatusFailed     Status = "failed"     // the last attempt failed; another is scheduled
	StatusDLQ        Status = "dlq"        // dead-lettered: no attempt is scheduled; replayable
)

// Statuses are the delivery states in their lifecycle order.
var Statuses = []Status{StatusPending, StatusDelivering, StatusDelivered, StatusFailed, StatusDLQ}

// ParseStatus returns the status named s. It fails with invalid naming field.
func ParseStatus(field, s string) (Status, error) {
	st := Status(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Statuses, st) {
		return st, nil
	}
	return "", graph.Invalid(field, "%s must be one of pending, delivering, delivered, failed, dlq", field)
}

// Delivery is one event's delivery to one subscription: the row of the
// delivery log. Its id is the webhook-id header of every attempt.
type Delivery struct {
	ID             string
	EventID        string
	EventType      string
	SubscriptionID string // uuid, without the prefix
	MemberID       string
	Status         Status
	AttemptCount   int
	ResponseCode   *int   // of the last attempt that got an HTTP answer
	LastError      string // why the last attempt failed, "" when it did not
	CreatedAt      time.Time
	UpdatedAt      time.Time
	QueuedAt       time.Time // when it was (re-)queued: creation or the last replay
	LastAttemptAt  *time.Time
	NextAttemptAt  *time.Time // when status is failed (or pending)
	DeliveredAt    *time.Time
	Payload        json.RawMessage // the event's data
	OccurredAt     time.Time       // when the event happened
}

// DeliveryFilter selects delivery log rows.
type DeliveryFilter struct {
	Status         Status // "" for any
	SubscriptionID string // uuid, "" for any
	Limit          int    // 1..200
}

// ListRequest is the delivery-log query as a transport received it.
type ListRequest struct {
	Status string // "" for any
	Sub    string // "" for any; with or without "wh_"
	Limit  *int   // nil for the default (50)
}

// Filter validates a listing request: status one of the five, sub a
// subscription id, limit 1 to 200 (default 50). It fails with invalid
// naming the field.
func (r ListRequest) Filter() (DeliveryFilter, error) {
	f := DeliveryFilter{Limit: DefaultListLimit}
	if r.Status != "" {
		st, err := ParseStatus("status", r.Status)
		if err != nil {
			return f, err
		}
		f.Status = st
	}
	if r.Sub != "" {
		id, err := ParseSubscriptionID("sub", r.Sub)
		if err != nil {
			return f, graph.Invalid("sub", "sub must be a subscription id (a uuid, with or without %s)", IDPrefix)
		}
		f.SubscriptionID = id
	}
	if r.Limit != nil {
		if *r.Limit < 1 || *r.Limit > MaxListLimit {
			return f, graph.Invalid("limit", "limit must be an integer from 1 to %d", MaxListLimit)
		}
		f.Limit = *r.Limit
	}
	return f, nil
}
