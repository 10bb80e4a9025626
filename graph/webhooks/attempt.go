package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Request is one HTTP POST of a delivery attempt.
type Request struct {
	URL    string
	Header map[string]string
	Body   []byte
}

// Sender posts a request and returns the HTTP status of the answer. It
// follows no redirect, connects only to addresses the policy allows, and
// returns a *SendError when no answer came.
type Sender interface {
	Send(ctx context.Context, r Request) (status int, err error)
}

// SendError is why an attempt got no HTTP answer, in words safe to show
// the subscriber (no resolved address of a refused target is named).
type SendError struct {
	Kind    string // timeout, blocked, dns, connect, tls, network
	Message string
	Err     error // logged, never shown
}

func (e *SendError) Error() string { return e.Message }
func (e *SendError) Unwrap() error { return e.Err }

// Outcome is what an attempt's result does to its delivery.
type Outcome string

// Attempt outcomes.
const (
	OutcomeDelivered Outcome = "delivered" // 2xx: the delivery is done
	OutcomeRetry     Outcome = "retry"     // 3xx (redirects are not followed), 4xx but 410, 429, 5xx, timeout, network error
	OutcomeGone      Outcome = "gone"      // 410: dead-letter it and disable the subscription
)

// Result is the outcome of one attempt.
type Result struct {
	Outcome    Outcome
	StatusCode int           // the HTTP status, 0 when no answer came
	Reason     string        // why it failed, safe to show; "" when delivered
	Class      string        // the metrics label: 2xx, 3xx, 4xx, 410, 429, 5xx or the SendError kind
	Duration   time.Duration // of the HTTP exchange
}

// Classify maps an attempt's HTTP status (or its error) to its outcome.
func Classify(status int, err error) Result {
	if err != nil {
		var se *SendError
		if errors.As(err, &se) {
			return Result{Outcome: OutcomeRetry, Reason: se.Message, Class: se.Kind}
		}
		return Result{Outcome: OutcomeRetry, Reason: "network error", Class: "network"}
	}
	switch {
	case status >= 200 && status < 300:
		return Result{Outcome: OutcomeDelivered, StatusCode: status, Class: "2xx"}
	case status == 410:
		return Result{Outcome: OutcomeGone, StatusCode: status, Reason: "HTTP 410 Gone: the subscription is disabled", Class: "410"}
	case status == 429:
		return Result{Outcome: OutcomeRetry, StatusCode: status, Reason: "HTTP 429", Class: "429"}
	case status >= 300 && status < 400:
		return Result{Outcome: OutcomeRetry, StatusCode: status, Reason: "HTTP " + strconv.Itoa(status) + ": redirects are not followed", Class: "3xx"}
	case status >= 400 && status < 500:
		return Result{Outcome: OutcomeRetry, StatusCode: status, Reason: "HTTP " + strconv.Itoa(status), Class: "4xx"}
	default:
		return Result{Outcome: OutcomeRetry, StatusCode: status, Reason: "HTTP " + strconv.Itoa(status), Class: "5xx"}
	}
}

// Attempt is what one delivery attempt needs.
type Attempt struct {
	DeliveryID string // the webhook-id, the same on every attempt
	EventID    string
	EventType  string
	OccurredAt time.Time
	Data       json.RawMessage
	URL        string
	Secret     string
	Format     Format
}

// Deliverer makes delivery attempts: it renders the body, signs it with a
// fresh timestamp, sends it, and classifies the answer.
type Deliverer struct {
	Sender    Sender
	Now       func() time.Time // nil: time.Now
	UserAgent string
}

// Message returns the signed request of an attempt made at now.
func Message(a Attempt, now time.Time, userAgent string) (Request, error) {
	body, err := Render(a.Format, a.EventID, a.EventType, a.OccurredAt, a.Data)
	if err != nil {
		return Request{}, fmt.Errorf("render delivery %s: %w", a.DeliveryID, err)
	}
	sig, err := Sign(a.Secret, a.DeliveryID, now, body)
	if err != nil {
		return Request{}, fmt.Errorf("sign delivery %s: %w", a.DeliveryID, err)
	}
	if userAgent == "" {
		userAgent = "compliance-webhooks"
	}
	return Request{URL: a.URL, Body: body, Header: map[string]string{
		"Content-Type":  "application/json",
		"User-Agent":    userAgent,
		HeaderID:        a.DeliveryID,
		HeaderTimestamp: strconv.FormatInt(now.Unix(), 10),
		HeaderSignature: sig,
	}}, nil
}

// Deliver makes one attempt and returns its result. A body that cannot be
// rendered or signed is a retryable internal failure (it is logged by the
// caller through Result.Reason).
func (d *Deliverer) Deliver(ctx context.Context, a Attempt) Result {
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	req, err := Message(a, now(), d.UserAgent)
	if err != nil {
		return Result{Outcome: OutcomeRetry, Reason: "internal error preparing the delivery", Class: "internal"}
	}
	start := time.Now()
	status, err := d.Sender.Send(ctx, req)
	r := Classify(status, err)
	r.Duration = time.Since(start)
	return r
}
