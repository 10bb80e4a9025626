package rest

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tradecompliance/compliance/graph"
)

// Access says who may call a route.
type Access int

const (
	// Keyless routes need no key; a key sent anyway is ignored.
	Keyless Access = iota
	// Optional routes take a key when sent (it must then be valid) and
	// leave the rest to the handler: /graphql, whose resolvers check scopes.
	Optional
	// ProductionKey routes need a production key holding the route's scope.
	ProductionKey
	// SandboxOK routes take a sandbox key too (read-only regulatory and
	// cluster check routes), or a production key holding the scope.
	SandboxOK
)

func (a Access) String() string {
	return [...]string{"keyless", "key optional", "production key", "sandbox or production key"}[a]
}

// Route is one row of the route table: the pattern, who may call it, the
// scope it needs, and the per-key rolling limit it carries.
type Route struct {
	Pattern string // as http.ServeMux takes it: "GET /api/v1/keys"
	Access  Access
	Scope   string       // "" for none
	Limit   *graph.Limit // per key (or per address for keyless routes); nil for none; from graph.RouteLimits
	Note    string
	handler func(http.ResponseWriter, *http.Request) error
}

// routes returns the route table. It is the one place a route's access and
// scope are declared (its limit comes from graph.RouteLimits, which GraphQL
// shares); `compliance routes` prints it for the README.
func (s *server) routes() []Route {
	rs := []Route{
		{Pattern: "GET /healthz", Access: Keyless, Note: "process alive", handler: s.healthz},
		{Pattern: "GET /readyz", Access: Keyless, Note: "Postgres and Neo4j reachable, migrations current", handler: s.readyz},
		{Pattern: "GET /metrics", Access: Keyless, Note: "Prometheus", handler: s.metricsHandler},
		{Pattern: "/graphql", Access: Optional, Note: "GraphQL over POST and websocket; each field checks its own scope", handler: s.graphql},
		{Pattern: "GET /graphiql/", Access: Keyless, Note: "GraphQL IDE", handler: s.ide},

		{Pattern: "POST /api/v1/keys/sandbox", Access: Keyless, Note: "3 per address per hour, 5 per email per day", handler: s.createSandboxKey},
		{Pattern: "GET /api/v1/keys", Access: ProductionKey, Note: "the caller's member's keys", handler: s.listKeys},
		{Pattern: "POST /api/v1/keys", Access: ProductionKey, handler: s.createKey},
		{Pattern: "DELETE /api/v1/keys", Access: ProductionKey, handler: s.revokeKey},
		{Pattern: "GET /api/v1/audit", Access: ProductionKey, Scope: "audit", Note: "format=summary: 60 per 60 s", handler: s.auditExport},

		{Pattern: "GET /api/v1/regulatory/countries", Access: SandboxOK, Scope: "regulatory", Note: "cacheable 1 h, ETag", handler: s.regulatoryCountries},
		{Pattern: "GET /api/v1/regulatory/countries/{slug}", Access: SandboxOK, Scope: "regulatory", handler: s.regulatoryCountry},
		{Pattern: "GET /api/v1/regulatory/check", Access: SandboxOK, Scope: "regulatory", handler: s.regulatoryCheck},
		{Pattern: "GET /api/v1/regulatory/products", Access: SandboxOK, Scope: "regulatory", handler: s.regulatoryProducts},

		{Pattern: "GET /api/v1/sanctions/lists", Access: ProductionKey, Note: "each list's snapshot and freshness (extension)", handler: s.sanctionsLists},
		{Pattern: "POST /api/v1/sanctions/search", Access: ProductionKey, Scope: "kyc", Note: "screen one name against the 8 lists (extension)", handler: s.sanctionsSearch},

		// KYC screening (runs, dossiers, live progress).
		{Pattern: "POST /api/v1/kyc/screen", Access: ProductionKey, Scope: "kyc", Note: "7-step run; synchronous verdict fail, review or pending", handler: s.kycScreen},
		{Pattern: "POST /api/v1/kyc/rescreen", Access: ProductionKey, Scope: "kyc", Note: "202 queued; 403 another member's dossier", handler: s.kycRescreen},
		{Pattern: "GET /api/v1/kyc/runs/{id}", Access: ProductionKey, Scope: "kyc", Note: "extension: the run with every step; 404 for another member's", handler: s.kycRun},
		{Pattern: "GET /api/v1/kyc/runs/{id}/events", Access: ProductionKey, Scope: "kyc", Note: "extension: Server-Sent Events of pipeline:{id}, replay then live, ends after the verdict", handler: s.kycRunEvents},
		{Pattern: "GET /api/v1/kyc/dossiers/{entity_id}", Access: ProductionKey, Scope: "kyc", Note: "extension: the dossier and its latest runs", handler: s.kycDossier},
		// Scam-cluster feed (clusters surface).
		{Pattern: "GET /api/v1/clusters", Access: ProductionKey, Scope: "cluster", Note: "filters severity, country, since echoed back", handler: s.listClusters},
		{Pattern: "GET /api/v1/clusters/check", Access: SandboxOK, Scope: "cluster", Note: "exact match on normalized names and aliases, never substring", handler: s.checkCluster},
		{Pattern: "POST /api/v1/clusters/submit", Access: ProductionKey, Scope: "cluster", Note: "also 50 per 24 h per submitter email", handler: s.submitCluster},
		{Pattern: "GET /api/v1/clusters/{slug}/{item}", Access: ProductionKey, Scope: "cluster", Note: "`{slug}/graph`: the cluster graph (404 for no linked network); `submissions/{request_id}`: a submission (403 unless the caller's member made it)", handler: s.clusterItem},

		{Pattern: "GET /api/v1/webhooks", Access: ProductionKey, Scope: "webhooks", Note: "the caller's subscriptions and valid_events", handler: s.listWebhooks},
		{Pattern: "POST /api/v1/webhooks", Access: ProductionKey, Scope: "webhooks", Note: "secret shown once; at most 50 subscriptions per member", handler: s.createWebhook},
		{Pattern: "DELETE /api/v1/webhooks/{id}", Access: ProductionKey, Scope: "webhooks", Note: "soft delete; id with or without wh_", handler: s.deleteWebhook},
		{Pattern: "POST /api/v1/webhooks/{id}/test", Access: ProductionKey, Scope: "webhooks", Note: "extension: queue a signed webhook.test delivery", handler: s.testWebhook},
		{Pattern: "GET /api/v1/webhooks/events", Access: ProductionKey, Scope: "webhooks", Note: "the caller's delivery log; limit 1..200, default 50", handler: s.webhookEvents},
		{Pattern: "POST /api/v1/webhooks/events/{id}/replay", Access: ProductionKey, Scope: "webhooks", Note: "dlq rows only (409 otherwise)", handler: s.replayWebhookEvent},

		// UBO screening surface.
		{Pattern: "POST /api/v1/ubo/screen", Access: ProductionKey, Scope: "ubo", Note: "200 cached graph (90 days, per member) or 202 queued; max_hops 1..6, default 3", handler: s.uboScreen},
		{Pattern: "GET /api/v1/ubo/graph/{id}", Access: ProductionKey, Scope: "ubo", Note: "the caller's graph, queued or ready", handler: s.uboGraph},
	}
	for i := range rs {
		rs[i].Limit = graph.RouteLimit(rs[i].Pattern)
	}
	return rs
}

// PrintRoutes writes the route table as a Markdown table.
func PrintRoutes(w io.Writer) {
	s := &server{}
	fmt.Fprintln(w, "| Route | Access | Scope | Limit per key | Note |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range s.routes() {
		limit := ""
		if r.Limit != nil {
			limit = r.Limit.String()
		}
		scope := r.Scope
		if scope == "" {
			scope = "-"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", r.Pattern, r.Access, scope, limit, strings.TrimSpace(r.Note))
	}
}
