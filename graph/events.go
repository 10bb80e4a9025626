package graph

import (
	"slices"
	"time"
)

// Event is something that happened to a member's objects. Events are
// recorded in the same transaction as the change that causes them and are
// delivered to the member's webhook subscriptions for that event type (and
// to no other member's). graph/webhooks documents every type and its
// payload.
type Event struct {
	ID         string    // uuid
	Type       string    // a name from the catalog, such as "api_key.created"
	MemberID   string    // the member whose subscriptions receive it
	OccurredAt time.Time // UTC
	Data       any       // the payload, JSON-encodable; its shape is fixed per Type
}

// Event names. The first seven are the spec's; the others are emitted by
// surfaces the spec's catalog leaves unnamed ("the catalog is longer than
// the names above"). graph/webhooks holds the catalog with every payload.
const (
	EventKYCRescreenCompleted         = "kyc.rescreen_completed"
	EventKYCMatchDetected             = "kyc.match_detected"
	EventClusterEntityAdded           = "cluster.entity_added"
	EventClusterEntitySeverityChanged = "cluster.entity_severity_changed"
	EventWatchlistMatchDetected       = "watchlist.match_detected"
	EventAdverseMediaMatchDetected    = "adverse_media.match_detected"
	EventReportReady                  = "report.ready"

	EventAPIKeyCreated = "api_key.created"
	EventAPIKeyRevoked = "api_key.revoked"
	EventWebhookTest   = "webhook.test"
)

// APIKeyEventData is the payload of api_key.created and api_key.revoked: the
// key's record, never the key itself (it is not stored).
type APIKeyEventData struct {
	KeyID       string      `json:"key_id"`
	Name        string      `json:"name"`
	KeyPrefix   string      `json:"key_prefix"`
	Environment Environment `json:"environment"`
	Scopes      []string    `json:"scopes"`
	CreatedAt   time.Time   `json:"created_at"`
	ExpiresAt   *time.Time  `json:"expires_at"`
	RevokedAt   *time.Time  `json:"revoked_at"`
}

func apiKeyData(k APIKey) APIKeyEventData {
	scopes := slices.Clone(k.Scopes)
	if scopes == nil {
		scopes = []string{}
	}
	return APIKeyEventData{
		KeyID: k.ID, Name: k.Name, KeyPrefix: k.KeyPrefix, Environment: k.Environment,
		Scopes: scopes, CreatedAt: k.CreatedAt.UTC().Truncate(time.Microsecond), ExpiresAt: utcPtr(k.ExpiresAt),
	}
}

// APIKeyCreatedEvent is the api_key.created event of a key just issued.
func APIKeyCreatedEvent(k APIKey) Event {
	d := apiKeyData(k)
	return Event{ID: NewID(), Type: EventAPIKeyCreated, MemberID: k.MemberID, OccurredAt: d.CreatedAt, Data: d}
}

// APIKeyRevokedEvent is the api_key.revoked event of a key revoked at at.
func APIKeyRevokedEvent(k APIKey, at time.Time) Event {
	d := apiKeyData(k)
	at = at.UTC().Truncate(time.Microsecond)
	d.RevokedAt = &at
	return Event{ID: NewID(), Type: EventAPIKeyRevoked, MemberID: k.MemberID, OccurredAt: at, Data: d}
}
