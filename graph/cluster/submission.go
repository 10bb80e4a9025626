package cluster

import (
	"context"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tradecompliance/compliance/graph"
)

// Submission limits and constants of the contribution flow.
const (
	SubmissionIDPrefix = "sub_"
	ReviewETAHours     = 72
	MinPitchLen        = 40
	MaxPitchLen        = 5000
	// EmailLimit submissions per EmailWindow per submitter email.
	EmailLimit  = 50
	EmailWindow = 24 * time.Hour
	// MaxListItems bounds each array field; MaxFieldLen each string.
	MaxListItems = 20
	MaxFieldLen  = 300
	MaxURLLen    = 2048
	// SubmissionVersion is the version string of submission answers.
	SubmissionVersion = "v1-beta"
)

// LicensingAcknowledgment is returned with every accepted submission.
const LicensingAcknowledgment = "Submissions are licensed exclusively to the service. The submitter is never named publicly; " +
	"an accepted case enters the blocklist attributed to the service's investigator."

// NextSteps are returned with every accepted submission.
var NextSteps = []string{
	"An operator triages the submission within a 72-hour target.",
	"Poll GET /api/v1/clusters/submissions/{request_id} for triage_status: pending, accepted, rejected or duplicate.",
	"On accepted or duplicate, linked_blocklist_id names the blocklist record.",
}

// Triage statuses.
const (
	StatusPending   = "pending"
	StatusAccepted  = "accepted"
	StatusRejected  = "rejected"
	StatusDuplicate = "duplicate"
)

// SubmissionRequest is the body of a submission.
type SubmissionRequest struct {
	SubmitterEmail       string         `json:"submitter_email"`
	EntityName           string         `json:"entity_name"`
	PitchSummary         string         `json:"pitch_summary"`
	SubmitterRole        string         `json:"submitter_role"`
	SubmitterAffiliation string         `json:"submitter_affiliation"`
	EntityCountry        string         `json:"entity_country"`
	EntityLinkedInURL    string         `json:"entity_linkedin_url"`
	EntityEmailDomains   []string       `json:"entity_email_domains"`
	ContactChannels      []string       `json:"contact_channels"`
	EvidenceURLs         []string       `json:"evidence_urls"`
	EvidenceNotes        map[string]any `json:"evidence_notes"`
}

// Validate normalizes r in place (trimmed strings, lower-cased email) and
// checks it. It fails with graph.Invalid naming the first bad field.
func (r *SubmissionRequest) Validate() error {
	r.SubmitterEmail = strings.ToLower(strings.TrimSpace(r.SubmitterEmail))
	r.EntityName = strings.TrimSpace(r.EntityName)
	r.PitchSummary = strings.TrimSpace(r.PitchSummary)
	if f := r.nulField(); f != "" {
		return graph.Invalid(f, "%s must not contain NUL characters", f)
	}
	if r.SubmitterEmail == "" {
		return graph.Invalid("submitter_email", "submitter_email is required")
	}
	if a, err := mail.ParseAddress(r.SubmitterEmail); err != nil || a.Address != r.SubmitterEmail || a.Name != "" ||
		!strings.Contains(r.SubmitterEmail[strings.LastIndexByte(r.SubmitterEmail, '@')+1:], ".") || len(r.SubmitterEmail) > 254 {
		return graph.Invalid("submitter_email", "submitter_email must be an email address such as name@example.com")
	}
	if n := utf8.RuneCountInString(r.EntityName); n < MinNameLen || n > MaxNameLen {
		return graph.Invalid("entity_name", "entity_name is required, %d to %d characters", MinNameLen, MaxNameLen)
	}
	if utf8.RuneCountInString(Normalize(r.EntityName)) < MinCheckChars {
		// A name the registry could not key (its name_key check) would
		// only fail at triage.
		return graph.Invalid("entity_name", "entity_name must have at least %d letters or digits", MinCheckChars)
	}
	if n := utf8.RuneCountInString(r.PitchSummary); n < MinPitchLen || n > MaxPitchLen {
		return graph.Invalid("pitch_summary", "pitch_summary is required, %d to %d characters", MinPitchLen, MaxPitchLen)
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"submitter_role", &r.SubmitterRole}, {"submitter_affiliation", &r.SubmitterAffiliation}, {"entity_country", &r.EntityCountry}} {
		*f.v = strings.TrimSpace(*f.v)
		if utf8.RuneCountInString(*f.v) > MaxFieldLen {
			return graph.Invalid(f.name, "%s must be at most %d characters", f.name, MaxFieldLen)
		}
	}
	r.EntityLinkedInURL = strings.TrimSpace(r.EntityLinkedInURL)
	if r.EntityLinkedInURL != "" && !validURI(r.EntityLinkedInURL) {
		return graph.Invalid("entity_linkedin_url", "entity_linkedin_url must be an absolute http or https URI")
	}
	for _, f := range []struct {
		name string
		v    []string
		uri  bool
	}{{"entity_email_domains", r.EntityEmailDomains, false}, {"contact_channels", r.ContactChannels, false}, {"evidence_urls", r.EvidenceURLs, true}} {
		if len(f.v) > MaxListItems {
			return graph.Invalid(f.name, "%s has at most %d items", f.name, MaxListItems)
		}
		for i, s := range f.v {
			s = strings.TrimSpace(s)
			f.v[i] = s
			switch {
			case s == "" || utf8.RuneCountInString(s) > MaxURLLen || (!f.uri && utf8.RuneCountInString(s) > MaxFieldLen):
				return graph.Invalid(f.name, "%s items must be non-empty strings of at most %d characters", f.name, MaxFieldLen)
			case f.uri && !validURI(s):
				return graph.Invalid(f.name, "%s items must be absolute http or https URIs", f.name)
			}
		}
	}
	return nil
}

// nulField returns the first field holding a NUL character (U+0000),
// which PostgreSQL's text and jsonb cannot store, "" for none.
func (r *SubmissionRequest) nulField() string {
	for _, f := range []struct {
		name string
		v    string
	}{{"submitter_email", r.SubmitterEmail}, {"entity_name", r.EntityName}, {"pitch_summary", r.PitchSummary},
		{"submitter_role", r.SubmitterRole}, {"submitter_affiliation", r.SubmitterAffiliation},
		{"entity_country", r.EntityCountry}, {"entity_linkedin_url", r.EntityLinkedInURL}} {
		if strings.ContainsRune(f.v, 0) {
			return f.name
		}
	}
	for _, f := range []struct {
		name string
		v    []string
	}{{"entity_email_domains", r.EntityEmailDomains}, {"contact_channels", r.ContactChannels}, {"evidence_urls", r.EvidenceURLs}} {
		for _, s := range f.v {
			if strings.ContainsRune(s, 0) {
				return f.name
			}
		}
	}
	if hasNUL(r.EvidenceNotes) {
		return "evidence_notes"
	}
	return ""
}

// hasNUL reports whether a decoded JSON value holds a NUL character in any
// string or object key.
func hasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, 0)
	case map[string]any:
		for k, x := range v {
			if strings.ContainsRune(k, 0) || hasNUL(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasNUL(x) {
				return true
			}
		}
	}
	return false
}

func validURI(s string) bool {
	if len(s) > MaxURLLen {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Submission is a stored submission. SubmitterEmail is kept for the daily
// limit and is never shown.
type Submission struct {
	ID                string
	MemberID          string
	KeyID             string
	EntityName        string
	Status            string
	SubmittedAt       time.Time
	TriagedAt         *time.Time
	TriagedBy         *string
	TriageNote        *string
	LinkedBlocklistID *string
}

// PublicID returns the request id, sub_ and the uuid.
func (s Submission) PublicID() string { return SubmissionIDPrefix + s.ID }

// Triage is an operator's decision on a pending submission.
type Triage struct {
	Status string // accepted, rejected or duplicate
	Link   string // duplicate: the record it duplicates (uuid); "" to find it by exact normalized name
	Note   string
	By     string // the service's investigator, never the submitter
}

// SubmissionStore stores submissions (relational implements it).
type SubmissionStore interface {
	// CreateSubmission stores s (pending) with the request's details,
	// unless the submitter email already has EmailLimit submissions in
	// the last EmailWindow: then it fails with rate_limited. The count and
	// the insert are one transaction. It fails with unavailable when the
	// submission storage is absent.
	CreateSubmission(ctx context.Context, s Submission, req SubmissionRequest) error
	// Submission returns the submission with id (a uuid), or not_found.
	Submission(ctx context.Context, id string) (Submission, error)
	// ListSubmissions returns submissions with status ("" for all),
	// oldest first.
	ListSubmissions(ctx context.Context, status string) ([]Submission, error)
	// TriageSubmission moves a pending submission to t.Status (conflict
	// when it is not pending). Accepted yields a confirmed investigator
	// record for the submitted name and country, attributed to t.By (a new
	// one, or the investigator's record with the same normalized name and
	// country raised to confirmed), with its event; imported records are
	// never changed, and no import changes an investigator record.
	// Accepted and duplicate set LinkedBlocklistID.
	TriageSubmission(ctx context.Context, id string, t Triage, now time.Time) (Submission, error)
}

// ParseSubmissionID returns the uuid of a request id given with or without
// sub_. It fails with graph.Invalid("request_id", ...).
func ParseSubmissionID(s string) (string, error) {
	return graph.ParseID("request_id", SubmissionIDPrefix, s)
}
