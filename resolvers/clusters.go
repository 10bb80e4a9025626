package resolvers

import (
	"context"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/resolvers/model"
)

// submissionFieldNames maps the submission's fields, as the domain names
// them, to their input paths in submitCluster.
var submissionFieldNames = map[string]string{
	"submitter_email": "input.submitterEmail", "entity_name": "input.entityName", "pitch_summary": "input.pitchSummary",
	"submitter_role": "input.submitterRole", "submitter_affiliation": "input.submitterAffiliation",
	"entity_country": "input.entityCountry", "entity_linkedin_url": "input.entityLinkedinUrl",
	"entity_email_domains": "input.entityEmailDomains", "contact_channels": "input.contactChannels",
	"evidence_urls": "input.evidenceUrls", "evidence_notes": "input.evidenceNotes",
}

// requireCluster returns the caller and the cluster service when the caller's
// key has the cluster scope (and is a production key unless sandboxOK), as
// the REST cluster routes require, after counting the call in the limit of
// the REST route pattern (none when route is "").
func (r *Resolver) requireCluster(ctx context.Context, sandboxOK bool, route string) (*graph.Caller, *cluster.Service, error) {
	c, err := graph.RequireScope(ctx, cluster.Scope)
	if err != nil {
		return nil, nil, err
	}
	if !sandboxOK && c.Key.Environment != graph.Production {
		return nil, nil, graph.Errorf(graph.CodeForbidden, "sandbox keys reach only /api/v1/regulatory/* and /api/v1/clusters/check")
	}
	if r.Clusters == nil {
		return nil, nil, graph.Errorf(graph.CodeUnavailable, "the cluster registry is not configured")
	}
	if route != "" {
		if err := r.limitRoute(ctx, c, route); err != nil {
			return nil, nil, err
		}
	}
	return c, r.Clusters, nil
}

func clusterRecordModel(rec cluster.Record) model.ClusterRecord {
	m := model.ClusterRecord{ID: rec.ID, Slug: rec.Slug, EntityName: rec.EntityName, Aliases: nonNil(rec.Aliases),
		Severity: string(rec.Severity), Country: optional(rec.Country), Group: optional(rec.Group), AddedAt: rec.AddedAt.UTC(), Source: rec.Source}
	if rec.Severity == cluster.Suspected {
		m.Note = optional(cluster.LeadNote)
	}
	return m
}

func clusterRecordModels(rs []cluster.Record) []model.ClusterRecord {
	out := make([]model.ClusterRecord, len(rs))
	for i, r := range rs {
		out[i] = clusterRecordModel(r)
	}
	return out
}

func clusterNetworkModel(n cluster.Network) *model.ClusterNetwork {
	out := &model.ClusterNetwork{Slug: n.Slug, Kind: n.Kind, Caption: n.Caption, Source: n.Source, Truncated: n.Truncated, Caveats: n.Caveats,
		Nodes: make([]model.ClusterNode, len(n.Nodes)), Edges: make([]model.ClusterEdge, len(n.Edges))}
	for i, nd := range n.Nodes {
		out.Nodes[i] = model.ClusterNode{ID: nd.ID, Kind: nd.Kind, Slug: nd.Slug, Label: nd.Label,
			Severity: optional(string(nd.Severity)), Country: optional(nd.Country)}
	}
	for i, e := range n.Edges {
		out.Edges[i] = model.ClusterEdge{Kind: e.Kind, Relation: e.Relation, From: e.From, To: e.To, Via: optional(e.Via)}
	}
	sn := n.SanctionsNetwork
	out.SanctionsNetwork = &model.ClusterSanctionsNetwork{Members: make([]model.ClusterSanctionsMember, len(sn.Members)),
		Coverage: sn.Coverage, Degraded: sn.Degraded, StaleHours: sn.StaleHours, ScreenedEntities: sn.Screened,
		WithheldEntities: sn.Withheld, Note: sn.Note}
	for i, m := range sn.Members {
		out.SanctionsNetwork.Members[i] = model.ClusterSanctionsMember{EntityID: m.EntityID, List: m.List, SourceID: m.SourceID,
			Name: m.Name, Quoted: m.Quoted, ListedEntryID: m.ListedEntryID, ClusterEntity: m.ClusterEntity}
	}
	return out
}

func clusterSubmissionModel(s cluster.Submission) *model.ClusterSubmission {
	return &model.ClusterSubmission{RequestID: s.PublicID(), TriageStatus: s.Status, EntityName: s.EntityName,
		SubmittedAt: s.SubmittedAt.UTC(), TriagedAt: s.TriagedAt, TriagedBy: s.TriagedBy, LinkedBlocklistID: s.LinkedBlocklistID,
		Version: cluster.SubmissionVersion}
}
