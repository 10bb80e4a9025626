package webhooks

import (
	"slices"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// IDPrefix is the prefix of a subscription's public id ("wh_" and a uuid);
// lookups accept the id with or without it.
const IDPrefix = "wh_"

// Format is how a delivery's body is shaped.
type Format string

// The delivery formats.
const (
	FormatRaw   Format = "raw"   // the signed JSON event (default)
	FormatSlack Format = "slack" // a Slack Block Kit message for an incoming-webhook URL
	FormatTeams Format = "teams" // a Microsoft Teams Adaptive Card for an incoming-webhook or Workflows URL
)

// Formats are the delivery formats, canonical names first.
var Formats = []Format{FormatRaw, FormatSlack, FormatTeams}

// formatAliases are other names accepted for the two chat formats (the
// spec names them only by kind: "a block-style message" and "an
// adaptive-card").
var formatAliases = map[string]Format{
	"slack_blocks": FormatSlack, "block_kit": FormatSlack, "blocks": FormatSlack,
	"teams_adaptive_card": FormatTeams, "adaptive_card": FormatTeams, "adaptive-card": FormatTeams, "msteams": FormatTeams,
}

// ParseFormat returns the format named s ("" is raw). It fails with invalid
// naming field for an unknown name.
func ParseFormat(field, s string) (Format, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return FormatRaw, nil
	}
	if slices.Contains(Formats, Format(s)) {
		return Format(s), nil
	}
	if f, ok := formatAliases[s]; ok {
		return f, nil
	}
	return "", &graph.Error{Code: graph.CodeInvalid, Field: field,
		Message: field + " must be raw, slack (Block Kit) or teams (Adaptive Card)"}
}

// Subscription is a member's webhook subscription.
type Subscription struct {
	ID             string // uuid, without the prefix
	MemberID       string
	URL            string
	Events         []string
	Format         Format
	Description    string
	Secret         string // "whsec_..."; shown once, at creation
	CreatedAt      time.Time
	DisabledAt     *time.Time // set when a receiver answered 410 Gone
	DisabledReason string
	DeletedAt      *time.Time // soft delete
}

// PublicID is the id the API shows: "wh_" and the uuid.
func (s Subscription) PublicID() string { return IDPrefix + s.ID }

// Active reports whether deliveries go to the subscription.
func (s Subscription) Active() bool { return s.DisabledAt == nil && s.DeletedAt == nil }

// Status is "active", "disabled" (the receiver answered 410) or "deleted".
func (s Subscription) Status() string {
	switch {
	case s.DeletedAt != nil:
		return "deleted"
	case s.DisabledAt != nil:
		return "disabled"
	}
	return "active"
}

// Wants reports whether the subscription lists event type t.
func (s Subscription) Wants(t string) bool { return slices.Contains(s.Events, t) }

// ParseSubscriptionID returns the uuid of a subscription id given with or
// without "wh_".
func ParseSubscriptionID(field, s string) (string, error) {
	return graph.ParseID(field, IDPrefix, strings.TrimSpace(s))
}

// Limits of a subscription request.
const (
	MaxEvents          = 50
	MaxDescription     = 500
	MaxSubscriptions   = 50 // active subscriptions per member
	DefaultListLimit   = 50
	MaxListLimit       = 200
	TestMessage        = "This is a test delivery from the compliance service."
	DisabledReasonGone = "the receiver answered 410 Gone"
)

// validateEvents checks every name is in the catalog and returns them
// without duplicates, in the order given.
func validateEvents(field string, events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, graph.Invalid(field, "%s must list at least one event; valid events are %s", field, strings.Join(ValidEvents(), ", "))
	}
	if len(events) > MaxEvents {
		return nil, graph.Invalid(field, "%s lists at most %d events", field, MaxEvents)
	}
	out := make([]string, 0, len(events))
	for _, e := range events {
		e = strings.TrimSpace(e)
		if _, ok := Lookup(e); !ok {
			return nil, &graph.Error{Code: graph.CodeInvalid, Field: field,
				Message: "unknown event " + quote(e) + "; valid events are " + strings.Join(ValidEvents(), ", "),
				Details: map[string]any{"valid_events": ValidEvents()}}
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return `"` + s + `"`
}
