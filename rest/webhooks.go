package rest

import (
	"net/http"
	"strconv"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

// The webhook endpoints: every one needs a production key with the
// "webhooks" scope, and sees only the caller's member's rows.

// subscriptionView is a subscription as the API shows it; the secret only
// at creation.
type subscriptionView struct {
	ID             string          `json:"id"`
	URL            string          `json:"url"`
	Events         []string        `json:"events"`
	DeliveryFormat webhooks.Format `json:"delivery_format"`
	Description    string          `json:"description"`
	Status         string          `json:"status"`
	IsActive       bool            `json:"is_active"`
	CreatedAt      time.Time       `json:"created_at"`
	DisabledAt     *time.Time      `json:"disabled_at"`
	DisabledReason *string         `json:"disabled_reason"`
	// At creation only: the signing secret, under the formal description's
	// name and the prose example's.
	Secret        string `json:"secret,omitempty"`
	SecretPreview string `json:"secret_preview,omitempty"`
}

func viewSubscription(s webhooks.Subscription) subscriptionView {
	v := subscriptionView{
		ID: s.PublicID(), URL: s.URL, Events: s.Events, DeliveryFormat: s.Format, Description: s.Description,
		Status: s.Status(), IsActive: s.Active(), CreatedAt: s.CreatedAt.UTC(), DisabledAt: utc(s.DisabledAt),
	}
	if s.DisabledReason != "" {
		v.DisabledReason = &s.DisabledReason
	}
	return v
}

// deliveryView is a row of the delivery log.
type deliveryView struct {
	ID             string          `json:"id"`
	EventID        string          `json:"event_id"`
	EventType      string          `json:"event_type"`
	SubscriptionID string          `json:"subscription_id"`
	Status         webhooks.Status `json:"status"`
	AttemptCount   int             `json:"attempt_count"`
	ResponseCode   *int            `json:"response_code"`
	LastError      *string         `json:"last_error"`
	OccurredAt     time.Time       `json:"occurred_at"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
	QueuedAt       time.Time       `json:"queued_at"`
	LastAttemptAt  *time.Time      `json:"last_attempt_at"`
	NextAttemptAt  *time.Time      `json:"next_attempt_at"`
	DeliveredAt    *time.Time      `json:"delivered_at"`
}

func viewDelivery(d webhooks.Delivery) deliveryView {
	v := deliveryView{
		ID: d.ID, EventID: d.EventID, EventType: d.EventType, SubscriptionID: webhooks.IDPrefix + d.SubscriptionID,
		Status: d.Status, AttemptCount: d.AttemptCount, ResponseCode: d.ResponseCode,
		OccurredAt: d.OccurredAt.UTC(), CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), QueuedAt: d.QueuedAt.UTC(),
		LastAttemptAt: utc(d.LastAttemptAt), NextAttemptAt: utc(d.NextAttemptAt), DeliveredAt: utc(d.DeliveredAt),
	}
	if d.LastError != "" {
		v.LastError = &d.LastError
	}
	return v
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (s *server) webhookService() (*webhooks.Service, error) {
	if s.Webhooks == nil {
		return nil, graph.Errorf(graph.CodeUnavailable, "webhooks are not configured")
	}
	return s.Webhooks, nil
}

// listWebhooks answers GET /api/v1/webhooks: the caller's subscriptions and
// the event catalog.
func (s *server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.webhookService()
	if err != nil {
		return err
	}
	c := graph.CallerFrom(r.Context())
	subs, err := svc.List(r.Context(), c.Member.ID)
	if err != nil {
		return err
	}
	views := make([]subscriptionView, len(subs))
	for i, sub := range subs {
		views[i] = viewSubscription(sub)
	}
	writeData(w, http.StatusOK, map[string]any{
		"subscriptions": views,
		"valid_events":  webhooks.ValidEvents(),
		"event_catalog": webhooks.Catalog(),
	})
	return nil
}

// createWebhook answers POST /api/v1/webhooks: 201 with the subscription
// and its signing secret, shown this once.
func (s *server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.webhookService()
	if err != nil {
		return err
	}
	var body struct {
		URL            *string   `json:"url"`
		Events         *[]string `json:"events"`
		DeliveryFormat string    `json:"delivery_format"`
		Description    string    `json:"description"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.URL == nil {
		return graph.Invalid("url", "url is required")
	}
	if body.Events == nil {
		return graph.Invalid("events", "events is required: an array of event names (see valid_events of GET /api/v1/webhooks)")
	}
	c := graph.CallerFrom(r.Context())
	sub, err := svc.Create(r.Context(), c.Member.ID, webhooks.CreateRequest{
		URL: *body.URL, Events: *body.Events, Format: body.DeliveryFormat, Description: body.Description,
	})
	if err != nil {
		return err
	}
	v := viewSubscription(sub)
	v.Secret, v.SecretPreview = sub.Secret, sub.Secret
	w.Header().Set("Cache-Control", "no-store")
	writeData(w, http.StatusCreated, v)
	return nil
}

// deleteWebhook answers DELETE /api/v1/webhooks/{id}: a soft delete.
func (s *server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.webhookService()
	if err != nil {
		return err
	}
	c := graph.CallerFrom(r.Context())
	sub, err := svc.Delete(r.Context(), c.Member.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"id": sub.PublicID(), "deleted": true, "status": sub.Status()})
	return nil
}

// webhookEvents answers GET /api/v1/webhooks/events: the caller's delivery
// log, newest first.
func (s *server) webhookEvents(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.webhookService()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	req := webhooks.ListRequest{Status: q.Get("status"), Sub: q.Get("sub")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return graph.Invalid("limit", "limit must be an integer from 1 to %d", webhooks.MaxListLimit)
		}
		req.Limit = &n
	}
	c := graph.CallerFrom(r.Context())
	ds, err := svc.Deliveries(r.Context(), c.Member.ID, req)
	if err != nil {
		return err
	}
	views := make([]deliveryView, len(ds))
	for i, d := range ds {
		views[i] = viewDelivery(d)
	}
	writeData(w, http.StatusOK, map[string]any{"events": views})
	return nil
}

// replayWebhookEvent answers POST /api/v1/webhooks/events/{id}/replay:
// a dlq delivery is queued again with its attempt count reset.
func (s *server) replayWebhookEvent(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.webhookService()
	if err != nil {
		return err
	}
	c := graph.CallerFrom(r.Context())
	id := r.PathValue("id")
	at, err := svc.Replay(r.Context(), c.Member.ID, id)
	if err != nil {
		return err
	}
	id, _ = graph.ParseID("id", "", id) // valid: the replay succeeded
	writeData(w, http.StatusOK, map[string]any{"id": id, "status": webhooks.StatusPending, "attempt_count": 0, "queued_at": at})
	return nil
}

// testWebhook answers POST /api/v1/webhooks/{id}/test (an extension): a
// signed webhook.test delivery to that subscription is queued; 202 with
// its delivery-log row.
func (s *server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.webhookService()
	if err != nil {
		return err
	}
	c := graph.CallerFrom(r.Context())
	d, err := svc.Test(r.Context(), c.Member.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusAccepted, viewDelivery(d))
	return nil
}
