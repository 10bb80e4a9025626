package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// memStore keeps subscriptions in memory.
type memStore struct {
	subs []Subscription
	f    DeliveryFilter
}

func (m *memStore) CreateSubscription(_ context.Context, s Subscription, max int) error {
	m.subs = append(m.subs, s)
	return nil
}
func (m *memStore) ListSubscriptions(context.Context, string) ([]Subscription, error) {
	return m.subs, nil
}
func (m *memStore) DeleteSubscription(_ context.Context, _, id string) (Subscription, error) {
	return Subscription{ID: id}, nil
}
func (m *memStore) ListDeliveries(_ context.Context, _ string, f DeliveryFilter) ([]Delivery, error) {
	m.f = f
	return nil, nil
}
func (m *memStore) ReplayDelivery(context.Context, string, string) (time.Time, error) {
	return time.Time{}, nil
}
func (m *memStore) SendTest(_ context.Context, _, subID string, ev graph.Event) (Delivery, error) {
	return Delivery{SubscriptionID: subID, EventType: ev.Type}, nil
}

func TestCreateValidation(t *testing.T) {
	ok := CreateRequest{URL: "https://hooks.example.com/x", Events: []string{"api_key.created"}}
	tests := []struct {
		name  string
		mod   func(r *CreateRequest)
		field string // "" ok
	}{
		{"ok", func(r *CreateRequest) {}, ""},
		{"slack", func(r *CreateRequest) { r.Format = "slack" }, ""},
		{"teams alias", func(r *CreateRequest) { r.Format = "adaptive_card" }, ""},
		{"no events", func(r *CreateRequest) { r.Events = nil }, "events"},
		{"unknown event", func(r *CreateRequest) { r.Events = []string{"api_key.created", "nope"} }, "events"},
		{"bad format", func(r *CreateRequest) { r.Format = "xml" }, "delivery_format"},
		{"long description", func(r *CreateRequest) { r.Description = string(make([]rune, 501)) }, "description"},
		{"no url", func(r *CreateRequest) { r.URL = "" }, "url"},
		{"http url", func(r *CreateRequest) { r.URL = "http://hooks.example.com/x" }, "url"},
		{"loopback url", func(r *CreateRequest) { r.URL = "https://127.0.0.1/x" }, "url"},
		{"resolves private", func(r *CreateRequest) { r.URL = "https://private.example/x" }, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &memStore{}
			svc := &Service{Store: st, Resolver: fakeResolver{"hooks.example.com": {"93.184.215.14"}, "private.example": {"10.0.0.1"}}}
			req := ok
			req.Events = append([]string(nil), ok.Events...)
			tt.mod(&req)
			sub, err := svc.Create(context.Background(), "m1", req)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Create = %v", err)
				}
				if sub.Secret == "" || sub.ID == "" || sub.MemberID != "m1" || len(st.subs) != 1 {
					t.Errorf("Create = %+v", sub)
				}
				return
			}
			if e := graph.AsError(err); err == nil || e.Code != graph.CodeInvalid || e.Field != tt.field {
				t.Errorf("Create(%s) error = %v, want invalid naming %s", tt.name, err, tt.field)
			}
			if len(st.subs) != 0 {
				t.Errorf("an invalid request was stored")
			}
		})
	}
	// Duplicate events collapse; the format alias is stored canonical.
	svc := &Service{Store: &memStore{}, Resolver: fakeResolver{"hooks.example.com": {"93.184.215.14"}}}
	sub, err := svc.Create(context.Background(), "m1", CreateRequest{URL: "https://hooks.example.com/x",
		Events: []string{"webhook.test", "webhook.test", "report.ready"}, Format: "Block_Kit"})
	if err != nil || len(sub.Events) != 2 || sub.Format != FormatSlack {
		t.Errorf("Create = %+v, %v", sub, err)
	}
}

func TestListRequestFilter(t *testing.T) {
	n := func(i int) *int { return &i }
	tests := []struct {
		name  string
		req   ListRequest
		want  DeliveryFilter
		field string
	}{
		{"defaults", ListRequest{}, DeliveryFilter{Limit: 50}, ""},
		{"limit 1", ListRequest{Limit: n(1)}, DeliveryFilter{Limit: 1}, ""},
		{"limit 200", ListRequest{Limit: n(200)}, DeliveryFilter{Limit: 200}, ""},
		{"limit 0", ListRequest{Limit: n(0)}, DeliveryFilter{}, "limit"},
		{"limit 201", ListRequest{Limit: n(201)}, DeliveryFilter{}, "limit"},
		{"status dlq", ListRequest{Status: "dlq"}, DeliveryFilter{Status: StatusDLQ, Limit: 50}, ""},
		{"status bad", ListRequest{Status: "lost"}, DeliveryFilter{}, "status"},
		{"sub with prefix", ListRequest{Sub: "wh_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}, DeliveryFilter{SubscriptionID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Limit: 50}, ""},
		{"sub without prefix", ListRequest{Sub: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}, DeliveryFilter{SubscriptionID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Limit: 50}, ""},
		{"sub bad", ListRequest{Sub: "wh_nope"}, DeliveryFilter{}, "sub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.req.Filter()
			if tt.field != "" {
				if e := graph.AsError(err); err == nil || e.Field != tt.field || e.Code != graph.CodeInvalid {
					t.Errorf("Filter(%+v) error = %v, want invalid naming %s", tt.req, err, tt.field)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Filter(%+v) = %+v, %v; want %+v", tt.req, got, err, tt.want)
			}
		})
	}
}

func TestIDsAcceptPrefix(t *testing.T) {
	svc := &Service{Store: &memStore{}}
	const id = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	for _, in := range []string{id, "wh_" + id} {
		sub, err := svc.Delete(context.Background(), "m", in)
		if err != nil || sub.ID != id || sub.PublicID() != "wh_"+id {
			t.Errorf("Delete(%q) = %+v, %v", in, sub, err)
		}
		d, err := svc.Test(context.Background(), "m", in)
		if err != nil || d.SubscriptionID != id || d.EventType != graph.EventWebhookTest {
			t.Errorf("Test(%q) = %+v, %v", in, d, err)
		}
	}
	for _, bad := range []string{"", "wh_", "sub_" + id, "12345"} {
		if _, err := svc.Delete(context.Background(), "m", bad); graph.ErrorCode(err) != graph.CodeInvalid {
			t.Errorf("Delete(%q) = %v, want invalid", bad, err)
		}
	}
	if _, err := svc.Replay(context.Background(), "m", "nope"); graph.ErrorCode(err) != graph.CodeInvalid {
		t.Errorf("Replay(nope) = %v, want invalid", err)
	}
}
