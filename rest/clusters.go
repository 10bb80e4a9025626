package rest

import (
	"net/http"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
)

// The scam-cluster feed: the list, the check (sandbox keys too), the
// network graph and the contribution flow. Every answer carries the
// cluster caveats.

// ClusterView is a cluster record as the API shows it. The protected flag
// and the submitter of an accepted submission are never shown.
type ClusterView struct {
	ID         string           `json:"id"`
	Slug       string           `json:"slug"`
	EntityName string           `json:"entity_name"`
	Aliases    []string         `json:"aliases"`
	Severity   cluster.Severity `json:"severity"`
	Country    *string          `json:"country"`
	Group      *string          `json:"group"`
	AddedAt    time.Time        `json:"added_at"`
	Source     string           `json:"source"`
	// Note is set on suspected records: a lead, not a confirmed fraud.
	Note *string `json:"note,omitempty"`
}

// ViewCluster returns the API view of r.
func ViewCluster(r cluster.Record) ClusterView {
	v := ClusterView{ID: r.ID, Slug: r.Slug, EntityName: r.EntityName, Aliases: r.Aliases, Severity: r.Severity,
		AddedAt: r.AddedAt.UTC(), Source: r.Source}
	if v.Aliases == nil {
		v.Aliases = []string{}
	}
	if r.Country != "" {
		v.Country = &r.Country
	}
	if r.Group != "" {
		v.Group = &r.Group
	}
	if r.Severity == cluster.Suspected {
		n := cluster.LeadNote
		v.Note = &n
	}
	return v
}

func viewClusters(rs []cluster.Record) []ClusterView {
	out := make([]ClusterView, len(rs))
	for i, r := range rs {
		out[i] = ViewCluster(r)
	}
	return out
}

// SubmissionView is a cluster submission as the API shows it: never the
// submitter's email.
type SubmissionView struct {
	RequestID         string     `json:"request_id"`
	TriageStatus      string     `json:"triage_status"`
	EntityName        string     `json:"entity_name"`
	SubmittedAt       time.Time  `json:"submitted_at"`
	TriagedAt         *time.Time `json:"triaged_at"`
	TriagedBy         *string    `json:"triaged_by"`
	LinkedBlocklistID *string    `json:"linked_blocklist_id"`
	Version           string     `json:"version"`
}

// ViewSubmission returns the API view of s.
func ViewSubmission(s cluster.Submission) SubmissionView {
	return SubmissionView{RequestID: s.PublicID(), TriageStatus: s.Status, EntityName: s.EntityName, SubmittedAt: s.SubmittedAt.UTC(),
		TriagedAt: utc(s.TriagedAt), TriagedBy: s.TriagedBy, LinkedBlocklistID: s.LinkedBlocklistID, Version: cluster.SubmissionVersion}
}

// CheckView is the answer of the check.
type CheckView struct {
	Matched         bool          `json:"matched"`
	Matches         []ClusterView `json:"matches"`
	HighestSeverity *string       `json:"highest_severity"`
	Entity          string        `json:"entity"`
	Normalized      string        `json:"normalized"`
	Country         *string       `json:"country"`
	// LeadOnly is true when every match is suspected: leads, not
	// confirmed frauds.
	LeadOnly bool     `json:"lead_only"`
	Caveats  []string `json:"caveats"`
}

// ViewCheck returns the API view of a check of entity in country.
func ViewCheck(entity, country string, res cluster.CheckResult) CheckView {
	v := CheckView{Matched: res.Matched, Matches: viewClusters(res.Matches), Entity: entity, Normalized: cluster.Normalize(entity),
		Caveats: res.Caveats()}
	if res.HighestSeverity != "" {
		h := string(res.HighestSeverity)
		v.HighestSeverity = &h
		v.LeadOnly = res.HighestSeverity == cluster.Suspected
	}
	if iso, err := cluster.ParseCountry("country", country); err == nil && iso != "" {
		v.Country = &iso
	}
	return v
}

func (s *server) clusterService() (*cluster.Service, error) {
	if s.Clusters == nil {
		return nil, graph.Errorf(graph.CodeUnavailable, "the cluster registry is not configured")
	}
	return s.Clusters, nil
}

// listClusters answers GET /api/v1/clusters.
func (s *server) listClusters(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.clusterService()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	l, err := svc.List(r.Context(), cluster.ListRequest{Severity: q.Get("severity"), Country: q.Get("country"), Since: q.Get("since")})
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{
		"count": l.Count, "clusters": viewClusters(l.Clusters),
		"filters":  l.Filters,
		"severity": l.Filters.Severity, "country": l.Filters.Country, "since": l.Filters.Since,
		"caveats": cluster.Caveats(),
	})
	return nil
}

// checkCluster answers GET /api/v1/clusters/check.
func (s *server) checkCluster(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.clusterService()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	entity, country := q.Get("entity"), q.Get("country")
	if !q.Has("entity") {
		return graph.Invalid("entity", "entity is required")
	}
	res, err := svc.Check(r.Context(), entity, country)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, ViewCheck(entity, country, res))
	return nil
}

// clusterItem answers GET /api/v1/clusters/{slug}/graph and GET
// /api/v1/clusters/submissions/{request_id}: one mux pattern, since
// net/http.ServeMux refuses the two as overlapping (both match
// /api/v1/clusters/submissions/graph, which is a submission lookup here).
func (s *server) clusterItem(w http.ResponseWriter, r *http.Request) error {
	slug, item := r.PathValue("slug"), r.PathValue("item")
	switch {
	case slug == "submissions":
		return s.clusterSubmission(w, r, item)
	case item == "graph":
		return s.clusterGraph(w, r, slug)
	}
	return graph.Errorf(graph.CodeNotFound, "no such route: use /api/v1/clusters/{slug}/graph or /api/v1/clusters/submissions/{request_id}")
}

// clusterGraph answers GET /api/v1/clusters/{slug}/graph.
func (s *server) clusterGraph(w http.ResponseWriter, r *http.Request, slug string) error {
	svc, err := s.clusterService()
	if err != nil {
		return err
	}
	n, err := svc.Network(r.Context(), slug)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, n)
	return nil
}

// submitCluster answers POST /api/v1/clusters/submit: 201 with the
// request id, pending.
func (s *server) submitCluster(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.clusterService()
	if err != nil {
		return err
	}
	var body cluster.SubmissionRequest
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	rc, err := svc.Submit(r.Context(), graph.CallerFrom(r.Context()), body)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, rc)
	return nil
}

// clusterSubmission answers GET /api/v1/clusters/submissions/{request_id}.
func (s *server) clusterSubmission(w http.ResponseWriter, r *http.Request, requestID string) error {
	svc, err := s.clusterService()
	if err != nil {
		return err
	}
	sub, err := svc.Submission(r.Context(), graph.CallerFrom(r.Context()), requestID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, ViewSubmission(sub))
	return nil
}
