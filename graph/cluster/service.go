package cluster

import (
	"context"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// Scope is the API scope of every cluster route and field.
const Scope = "cluster"

// Service is the cluster surface shared by REST and GraphQL: the list, the
// check, the network graph and the contribution flow.
type Service struct {
	Store       Store
	Checker     Checker
	Networks    *Networks
	Submissions SubmissionStore
	Now         func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// ListRequest is the list's query as given.
type ListRequest struct {
	Severity string
	Country  string
	Since    string
}

// Filters are the list's filters as applied, echoed back: nil for a filter
// not given.
type Filters struct {
	Severity *string    `json:"severity"`
	Country  *string    `json:"country"`
	Since    *time.Time `json:"since"`
}

// List is the answer of the list.
type List struct {
	Count    int
	Clusters []Record
	Filters  Filters
}

// List returns the records the filters select, newest first. It fails
// with invalid naming severity, country or since for a bad filter.
func (s *Service) List(ctx context.Context, req ListRequest) (List, error) {
	var f Filter
	var out List
	if v := strings.TrimSpace(req.Severity); v != "" {
		f.Severity = Severity(strings.ToLower(v))
		if !f.Severity.Valid() {
			return List{}, graph.Invalid("severity", "severity must be confirmed, likely or suspected")
		}
		sv := string(f.Severity)
		out.Filters.Severity = &sv
	}
	if v := strings.TrimSpace(req.Country); v != "" {
		iso, err := ParseCountry("country", v)
		if err != nil {
			return List{}, err
		}
		f.Country = iso
		out.Filters.Country = &iso
	}
	if v := strings.TrimSpace(req.Since); v != "" {
		t, err := ParseSince(v)
		if err != nil {
			return List{}, err
		}
		f.Since = t
		out.Filters.Since = &t
	}
	recs, err := s.Store.ListRecords(ctx, f)
	if err != nil {
		return List{}, graph.Unavailable("cluster registry", err)
	}
	out.Clusters, out.Count = recs, len(recs)
	return out, nil
}

// Check answers the exact-match check. See Checker.
func (s *Service) Check(ctx context.Context, entity, country string) (CheckResult, error) {
	return s.Checker.Check(ctx, entity, country)
}

// Network returns the cluster graph of slug. See Networks.Network.
func (s *Service) Network(ctx context.Context, slug string) (Network, error) {
	if s.Networks == nil {
		return Network{}, graph.Errorf(graph.CodeUnavailable, "the cluster graph is not configured")
	}
	return s.Networks.Network(ctx, slug)
}

// Receipt is the answer to an accepted submission.
type Receipt struct {
	RequestID               string    `json:"request_id"`
	Status                  string    `json:"status"`
	ReviewETAHours          int       `json:"review_eta_hours"`
	LicensingAcknowledgment string    `json:"licensing_acknowledgment"`
	NextSteps               []string  `json:"next_steps"`
	Version                 string    `json:"version"`
	SubmittedAt             time.Time `json:"submitted_at"`
}

// Submit validates req and stores it as a pending submission of the
// caller. It fails with invalid naming the field, rate_limited when the
// submitter email has used its daily limit, and unavailable when the
// storage is absent.
func (s *Service) Submit(ctx context.Context, c *graph.Caller, req SubmissionRequest) (Receipt, error) {
	if err := req.Validate(); err != nil {
		return Receipt{}, err
	}
	if s.Submissions == nil {
		return Receipt{}, graph.Errorf(graph.CodeUnavailable, "cluster submission storage is not present in this environment")
	}
	sub := Submission{ID: graph.NewID(), MemberID: c.Member.ID, KeyID: c.Key.ID, EntityName: req.EntityName,
		Status: StatusPending, SubmittedAt: s.now().Truncate(time.Microsecond)}
	if err := s.Submissions.CreateSubmission(ctx, sub, req); err != nil {
		return Receipt{}, err
	}
	return Receipt{
		RequestID: sub.PublicID(), Status: StatusPending, ReviewETAHours: ReviewETAHours,
		LicensingAcknowledgment: LicensingAcknowledgment, NextSteps: NextSteps, Version: SubmissionVersion,
		SubmittedAt: sub.SubmittedAt,
	}, nil
}

// Submission returns the submission with request id (with or without
// sub_) when the caller's member submitted it: any key of that member may
// read it. It fails with invalid for a malformed id, not_found for an
// unknown one, and forbidden for another member's.
func (s *Service) Submission(ctx context.Context, c *graph.Caller, requestID string) (Submission, error) {
	id, err := ParseSubmissionID(requestID)
	if err != nil {
		return Submission{}, err
	}
	if s.Submissions == nil {
		return Submission{}, graph.Errorf(graph.CodeUnavailable, "cluster submission storage is not present in this environment")
	}
	sub, err := s.Submissions.Submission(ctx, id)
	if err != nil {
		return Submission{}, err
	}
	if sub.MemberID != c.Member.ID {
		return Submission{}, graph.Errorf(graph.CodeForbidden, "this submission was not made by this key's member")
	}
	return sub, nil
}
