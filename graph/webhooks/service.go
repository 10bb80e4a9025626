package webhooks

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tradecompliance/compliance/graph"
)

// Store keeps subscriptions, events and deliveries. Every method is scoped
// to a member: another member's rows are not_found.
type Store interface {
	// CreateSubscription stores s unless its member already has max active
	// subscriptions (then conflict).
	CreateSubscription(ctx context.Context, s Subscription, max int) error
	// ListSubscriptions returns the member's subscriptions that are not
	// deleted, newest first.
	ListSubscriptions(ctx context.Context, memberID string) ([]Subscription, error)
	// DeleteSubscription soft-deletes one: future deliveries stop, queued
	// ones are dead-lettered, events and dead letters stay. not_found for
	// an unknown, deleted or other member's subscription.
	DeleteSubscription(ctx context.Context, memberID, id string) (Subscription, error)
	// ListDeliveries returns the member's delivery log, newest first.
	ListDeliveries(ctx context.Context, memberID string, f DeliveryFilter) ([]Delivery, error)
	// ReplayDelivery re-queues a dlq delivery with its attempt count reset
	// and returns when it was queued: not_found for an unknown or other
	// member's delivery, conflict when it is not in dlq or its
	// subscription no longer takes deliveries.
	ReplayDelivery(ctx context.Context, memberID, id string) (time.Time, error)
	// SendTest records ev and queues its delivery to the one subscription
	// subID, whatever events it lists: not_found for an unknown, deleted or
	// other member's subscription, conflict for a disabled one.
	SendTest(ctx context.Context, memberID, subID string, ev graph.Event) (Delivery, error)
}

// Service is the webhook surface both transports call.
type Service struct {
	Store    Store
	Resolver Resolver // resolves a new subscription's host; nil skips the check
	Policy   Policy
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// CreateRequest asks for a subscription. Field names are the REST ones.
type CreateRequest struct {
	URL         string
	Events      []string
	Format      string // delivery_format
	Description string
}

// Create validates and stores a subscription with a fresh secret. The
// returned Subscription carries the secret: show it once, here.
func (s *Service) Create(ctx context.Context, memberID string, req CreateRequest) (Subscription, error) {
	events, err := validateEvents("events", req.Events)
	if err != nil {
		return Subscription{}, err
	}
	format, err := ParseFormat("delivery_format", req.Format)
	if err != nil {
		return Subscription{}, err
	}
	desc := strings.TrimSpace(req.Description)
	if utf8.RuneCountInString(desc) > MaxDescription {
		return Subscription{}, graph.Invalid("description", "description must be at most %d characters", MaxDescription)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u, err := s.Policy.CheckURL(rctx, s.Resolver, req.URL)
	if err != nil {
		return Subscription{}, err
	}
	sub := Subscription{
		ID:          graph.NewID(),
		MemberID:    memberID,
		URL:         u.String(),
		Events:      events,
		Format:      format,
		Description: desc,
		Secret:      NewSecret(),
		CreatedAt:   s.now().Truncate(time.Microsecond),
	}
	if err := s.Store.CreateSubscription(ctx, sub, MaxSubscriptions); err != nil {
		return Subscription{}, err
	}
	return sub, nil
}

// List returns the member's subscriptions (not deleted), newest first.
func (s *Service) List(ctx context.Context, memberID string) ([]Subscription, error) {
	return s.Store.ListSubscriptions(ctx, memberID)
}

// Delete soft-deletes the member's subscription id (with or without "wh_").
func (s *Service) Delete(ctx context.Context, memberID, id string) (Subscription, error) {
	uid, err := ParseSubscriptionID("id", id)
	if err != nil {
		return Subscription{}, err
	}
	return s.Store.DeleteSubscription(ctx, memberID, uid)
}

// Deliveries returns the member's delivery log under the request's filter.
func (s *Service) Deliveries(ctx context.Context, memberID string, req ListRequest) ([]Delivery, error) {
	f, err := req.Filter()
	if err != nil {
		return nil, err
	}
	return s.Store.ListDeliveries(ctx, memberID, f)
}

// Replay re-queues the member's dead-lettered delivery id.
func (s *Service) Replay(ctx context.Context, memberID, id string) (time.Time, error) {
	uid, err := graph.ParseID("id", "", strings.TrimSpace(id))
	if err != nil {
		return time.Time{}, err
	}
	return s.Store.ReplayDelivery(ctx, memberID, uid)
}

// Test queues a signed webhook.test delivery to the member's subscription id.
func (s *Service) Test(ctx context.Context, memberID, id string) (Delivery, error) {
	uid, err := ParseSubscriptionID("id", id)
	if err != nil {
		return Delivery{}, err
	}
	now := s.now()
	ev := graph.Event{
		ID: graph.NewID(), Type: graph.EventWebhookTest, MemberID: memberID, OccurredAt: now,
		Data: WebhookTestData{SubscriptionID: IDPrefix + uid, Message: TestMessage, RequestedAt: now},
	}
	return s.Store.SendTest(ctx, memberID, uid, ev)
}
