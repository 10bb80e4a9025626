// Package webhooks is the webhook engine's domain: the event catalog and
// its payloads, subscriptions and their validation, the SSRF address
// policy, Standard Webhooks signing, the retry schedule, the delivery state
// machine, and the rendering of an event as a raw JSON body, a Slack Block
// Kit message or a Microsoft Teams Adaptive Card.
//
// It performs no I/O of its own: the store (relational), the HTTP sender
// (rest/webhooksend) and the name resolver are interfaces declared here.
package webhooks

import (
	"slices"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// EventType is one entry of the event catalog.
type EventType struct {
	Name        string `json:"name"`
	Title       string `json:"title"`       // a short human title, used by the chat formats
	Description string `json:"description"` // when it is emitted
	// Live is true when a built surface emits the event today; the others
	// are the spec's events whose surfaces are not built yet: their payload
	// is the contract those surfaces will honour.
	Live bool `json:"live"`
	// Example is an example payload (the "data" member of a delivery).
	Example any `json:"example"`
}

var exampleTime = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// catalog is every event a subscription may name, in the order the API
// lists them: the spec's seven, then the service's own.
var catalog = []EventType{
	{
		Name: graph.EventKYCRescreenCompleted, Title: "KYC re-screen completed", Live: true,
		Description: "A re-screen queued by POST /api/v1/kyc/rescreen (or the 90-day schedule) finishes. status is match, no_match or degraded (not a clean screen).",
		Example: KYCRescreenCompletedData{
			ScreeningRunID: "3b1f8f2e-7d5c-4f0a-9a51-0c1e1f6b9a10", EntityID: "0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a",
			EntityName: "Example Trading FZE", Status: "no_match", Verdict: "review", HitCount: 0, ListsScreened: graph.ServiceCoverage().SanctionsLists, CompletedAt: exampleTime,
		},
	},
	{
		Name: graph.EventKYCMatchDetected, Title: "KYC match detected", Live: true,
		Description: "A re-screen (or screening) finds a hit: match_kind sanctions (company or director), cluster (a cluster-registry record matching the company or a director) or ownership (a listed owner, or the company blocked or possibly blocked under the OFAC 50 percent rule). A hit is a lead for review, not a finding of fact.",
		Example: KYCMatchDetectedData{
			ScreeningRunID: "3b1f8f2e-7d5c-4f0a-9a51-0c1e1f6b9a10", MatchKind: MatchSanctions, Subject: SubjectCompany, EntityName: "Example Trading FZE",
			ListID: "us_sdn", ListEntryID: "36102", MatchedName: "EXAMPLE TRADING FZE", Score: 0.97, DetectedAt: exampleTime,
		},
	},
	{
		Name: graph.EventClusterEntityAdded, Title: "Entity added to a scam cluster", Live: true,
		Description: "An entity is added to the cluster registry (`compliance clusters import`, or an accepted submission). Sent to every member whose subscription lists it.",
		Example: ClusterEntityData{
			ClusterID: "9e0c2b1a-5d4f-4e3a-8b2c-1d0e9f8a7b6c", EntityID: "4c2d9e7f-1a3b-4c5d-8e9f-0a1b2c3d4e5f",
			EntityName: "Gulf Petro Brokers Ltd", Severity: "confirmed", At: exampleTime,
		},
	},
	{
		Name: graph.EventClusterEntitySeverityChanged, Title: "Cluster severity changed", Live: true,
		Description: "An entity's cluster severity changes (an import, or an accepted submission raising a record to confirmed). Sent to every member whose subscription lists it.",
		Example: ClusterEntityData{
			ClusterID: "9e0c2b1a-5d4f-4e3a-8b2c-1d0e9f8a7b6c", EntityID: "4c2d9e7f-1a3b-4c5d-8e9f-0a1b2c3d4e5f",
			EntityName: "Gulf Petro Brokers Ltd", PreviousSeverity: "suspected", Severity: "confirmed", At: exampleTime,
		},
	},
	{
		Name: graph.EventWatchlistMatchDetected, Title: "Watchlist match detected",
		Description: "A watchlist entry matches a cluster-registry change (sanctions-delta and adverse-media matches are not live).",
		Example: WatchlistMatchData{
			WatchlistID: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d", EntryName: "Gulf Petro Brokers", ClusterID: "9e0c2b1a-5d4f-4e3a-8b2c-1d0e9f8a7b6c",
			EntityID: "4c2d9e7f-1a3b-4c5d-8e9f-0a1b2c3d4e5f", Severity: "confirmed", DetectedAt: exampleTime,
		},
	},
	{
		Name: graph.EventAdverseMediaMatchDetected, Title: "Adverse-media match detected",
		Description: "A monitored entity matches an adverse-media finding. No source has returned a finding yet: the surface is unmeasured.",
		Example: AdverseMediaMatchData{
			MonitoredEntityID: "mon_7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a", EntityName: "Example Trading FZE", FindingID: "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e",
			Source: "example-news", Headline: "Regulator fines commodity broker", URL: "https://news.example/article", Language: "en",
			PublishedAt: exampleTime.Add(-24 * time.Hour), DetectedAt: exampleTime,
		},
	},
	{
		Name: graph.EventReportReady, Title: "Report ready",
		Description: "A generated regulator report completes.",
		Example: ReportReadyData{
			ReportID: "rpt_0f1e2d3c-4b5a-4968-8776-655443322110", ScreeningRunID: "3b1f8f2e-7d5c-4f0a-9a51-0c1e1f6b9a10",
			Format: "pdf", Status: "ready", ReadyAt: exampleTime,
		},
	},
	{
		Name: graph.EventAPIKeyCreated, Title: "API key created", Live: true,
		Description: "A production key is issued for the member (REST POST /api/v1/keys, GraphQL createApiKey, or `compliance keys create`). The key itself is never sent.",
		Example: graph.APIKeyEventData{
			KeyID: "6f1d2c3b-4a59-4867-9a8b-7c6d5e4f3a2b", Name: "ci", KeyPrefix: "ctc_live_Ab12Cd", Environment: graph.Production,
			Scopes: []string{"audit", "webhooks"}, CreatedAt: exampleTime,
		},
	},
	{
		Name: graph.EventAPIKeyRevoked, Title: "API key revoked", Live: true,
		Description: "One of the member's active keys is revoked (REST DELETE /api/v1/keys, GraphQL revokeApiKey, or `compliance keys revoke`).",
		Example: graph.APIKeyEventData{
			KeyID: "6f1d2c3b-4a59-4867-9a8b-7c6d5e4f3a2b", Name: "ci", KeyPrefix: "ctc_live_Ab12Cd", Environment: graph.Production,
			Scopes: []string{"audit", "webhooks"}, CreatedAt: exampleTime.Add(-time.Hour), RevokedAt: &exampleTime,
		},
	},
	{
		Name: graph.EventWebhookTest, Title: "Webhook test", Live: true,
		Description: "POST /api/v1/webhooks/{id}/test (or GraphQL testWebhookSubscription) sends a signed test delivery to that one subscription, whatever events it lists.",
		Example:     WebhookTestData{SubscriptionID: "wh_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Message: "This is a test delivery from the compliance service.", RequestedAt: exampleTime},
	},
}

// Catalog returns every event type, in the order the API lists them.
func Catalog() []EventType { return slices.Clone(catalog) }

// ValidEvents returns the names of every event type (valid_events).
func ValidEvents() []string {
	out := make([]string, len(catalog))
	for i, e := range catalog {
		out[i] = e.Name
	}
	return out
}

// Lookup returns the catalog entry for name.
func Lookup(name string) (EventType, bool) {
	for _, e := range catalog {
		if e.Name == name {
			return e, true
		}
	}
	return EventType{}, false
}

// Payloads of the events whose surfaces are not built yet: the contract
// those surfaces will honour.

// KYCRescreenCompletedData is the payload of kyc.rescreen_completed.
type KYCRescreenCompletedData struct {
	ScreeningRunID string `json:"screening_run_id"`
	EntityID       string `json:"entity_id"` // the dossier
	EntityName     string `json:"entity_name"`
	// Status is match (any step reported a hit: a sanctions hit, a
	// cluster-registry match of the company or a director, a listed owner
	// or a blocked/possibly blocked ownership result), degraded (no hit, but
	// a lookup could not run or not every list could be screened: not a
	// clean screen) or no_match.
	Status string `json:"status"`
	// Verdict is the run's final verdict: fail, review or pass.
	Verdict string `json:"verdict"`
	// HitCount counts every hit, also those beyond the 20
	// kyc.match_detected events a run sends.
	HitCount      int       `json:"hit_count"`
	ListsScreened []string  `json:"lists_screened"`
	CompletedAt   time.Time `json:"completed_at"`
}

// KYCMatchDetectedData is the payload of kyc.match_detected: one hit of a
// screening run. MatchKind says what matched:
//   - sanctions: entity_name (the company or director) against a list
//     entry; list_id, list_entry_id, matched_name, score (0 to 1).
//   - cluster: entity_name against a cluster-registry record; list_id
//     "cluster_registry", list_entry_id the record's slug, matched_name its
//     entity name, score 1 (exact), severity the record's.
//   - ownership: a listed owner of the company (subject owner; list_id the
//     owner's lists comma-separated, list_entry_id its ownership-graph id,
//     matched_name its name, score its minimum effective share 0 to 1), or
//     the company itself blocked or possibly blocked (subject company);
//     ofac_50_rule the step's rule state.
//
// Subject is company, director or owner.
type KYCMatchDetectedData struct {
	ScreeningRunID string    `json:"screening_run_id"`
	MatchKind      string    `json:"match_kind"`
	Subject        string    `json:"subject"`
	EntityName     string    `json:"entity_name"`
	ListID         string    `json:"list_id"`
	ListEntryID    string    `json:"list_entry_id"`
	MatchedName    string    `json:"matched_name"`
	Score          float64   `json:"score"`
	Severity       string    `json:"severity,omitempty"`     // cluster matches only
	OFAC50Rule     string    `json:"ofac_50_rule,omitempty"` // ownership matches only
	DetectedAt     time.Time `json:"detected_at"`
}

// The kinds and subjects of a kyc.match_detected payload.
const (
	MatchSanctions      = "sanctions"
	MatchCluster        = "cluster"
	MatchOwnership      = "ownership"
	SubjectCompany      = "company"
	SubjectDirector     = "director"
	SubjectOwner        = "owner"
	ClusterRegistryList = "cluster_registry" // list_id of a cluster match
)

// ClusterEntityData is the payload of cluster.entity_added and
// cluster.entity_severity_changed (previous_severity only on the latter).
type ClusterEntityData struct {
	ClusterID        string    `json:"cluster_id"`
	EntityID         string    `json:"entity_id"`
	EntityName       string    `json:"entity_name"`
	PreviousSeverity string    `json:"previous_severity,omitempty"`
	Severity         string    `json:"severity"` // suspected (a reported lead, not a confirmed fraud) or confirmed
	At               time.Time `json:"at"`
}

// WatchlistMatchData is the payload of watchlist.match_detected.
type WatchlistMatchData struct {
	WatchlistID string    `json:"watchlist_id"`
	EntryName   string    `json:"entry_name"`
	ClusterID   string    `json:"cluster_id"`
	EntityID    string    `json:"entity_id"`
	Severity    string    `json:"severity"`
	DetectedAt  time.Time `json:"detected_at"`
}

// AdverseMediaMatchData is the payload of adverse_media.match_detected.
type AdverseMediaMatchData struct {
	MonitoredEntityID string    `json:"monitored_entity_id"`
	EntityName        string    `json:"entity_name"`
	FindingID         string    `json:"finding_id"`
	Source            string    `json:"source"`
	Headline          string    `json:"headline"`
	URL               string    `json:"url"`
	Language          string    `json:"language"`
	PublishedAt       time.Time `json:"published_at"`
	DetectedAt        time.Time `json:"detected_at"`
}

// ReportReadyData is the payload of report.ready.
type ReportReadyData struct {
	ReportID       string    `json:"report_id"`
	ScreeningRunID string    `json:"screening_run_id"`
	Format         string    `json:"format"`
	Status         string    `json:"status"`
	ReadyAt        time.Time `json:"ready_at"`
}

// WebhookTestData is the payload of webhook.test.
type WebhookTestData struct {
	SubscriptionID string    `json:"subscription_id"`
	Message        string    `json:"message"`
	RequestedAt    time.Time `json:"requested_at"`
}
