package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
)

func TestSubmissionValidate(t *testing.T) {
	ok := func() SubmissionRequest {
		return SubmissionRequest{SubmitterEmail: " Tip@Example.COM ", EntityName: " Demo Co ", PitchSummary: strings.Repeat("p", 40),
			EntityLinkedInURL: "https://linkedin.com/company/x", EvidenceURLs: []string{"http://e.example/a"}}
	}
	tests := []struct {
		name  string
		edit  func(r *SubmissionRequest)
		field string
	}{
		{"valid", func(*SubmissionRequest) {}, ""},
		{"pitch of exactly 5000", func(r *SubmissionRequest) { r.PitchSummary = strings.Repeat("é", 5000) }, ""},
		{"name of exactly 300 runes", func(r *SubmissionRequest) { r.EntityName = strings.Repeat("ü", 300) }, ""},
		{"no email", func(r *SubmissionRequest) { r.SubmitterEmail = "" }, "submitter_email"},
		{"email without domain dot", func(r *SubmissionRequest) { r.SubmitterEmail = "a@localhost" }, "submitter_email"},
		{"email with display name", func(r *SubmissionRequest) { r.SubmitterEmail = "A <a@example.com>" }, "submitter_email"},
		{"name of one", func(r *SubmissionRequest) { r.EntityName = "D" }, "entity_name"},
		{"name of one letter and a dot", func(r *SubmissionRequest) { r.EntityName = "A." }, "entity_name"},
		{"name of punctuation only", func(r *SubmissionRequest) { r.EntityName = "--- ..." }, "entity_name"},
		{"name of two letters", func(r *SubmissionRequest) { r.EntityName = "A.B" }, ""},
		{"name of 301", func(r *SubmissionRequest) { r.EntityName = strings.Repeat("n", 301) }, "entity_name"},
		{"pitch of 39", func(r *SubmissionRequest) { r.PitchSummary = strings.Repeat("p", 39) }, "pitch_summary"},
		{"pitch of 5001", func(r *SubmissionRequest) { r.PitchSummary = strings.Repeat("p", 5001) }, "pitch_summary"},
		{"relative linkedin", func(r *SubmissionRequest) { r.EntityLinkedInURL = "/company/x" }, "entity_linkedin_url"},
		{"javascript evidence", func(r *SubmissionRequest) { r.EvidenceURLs = []string{"javascript:alert(1)"} }, "evidence_urls"},
		{"empty channel", func(r *SubmissionRequest) { r.ContactChannels = []string{" "} }, "contact_channels"},
		{"too many domains", func(r *SubmissionRequest) { r.EntityEmailDomains = make([]string, 21) }, "entity_email_domains"},
		{"long role", func(r *SubmissionRequest) { r.SubmitterRole = strings.Repeat("r", 301) }, "submitter_role"},
		// PostgreSQL text and jsonb cannot hold NUL: bad input, not an
		// internal error at insert time.
		{"NUL in email", func(r *SubmissionRequest) { r.SubmitterEmail = "a\x00b@example.com" }, "submitter_email"},
		{"NUL in name", func(r *SubmissionRequest) { r.EntityName = "Demo\x00 Co" }, "entity_name"},
		{"NUL in pitch", func(r *SubmissionRequest) { r.PitchSummary = strings.Repeat("p", 40) + "\x00" }, "pitch_summary"},
		{"NUL in affiliation", func(r *SubmissionRequest) { r.SubmitterAffiliation = "x\x00" }, "submitter_affiliation"},
		{"NUL in country", func(r *SubmissionRequest) { r.EntityCountry = "N\x00G" }, "entity_country"},
		{"NUL in linkedin", func(r *SubmissionRequest) { r.EntityLinkedInURL = "https://linkedin.com/\x00" }, "entity_linkedin_url"},
		{"NUL in a channel", func(r *SubmissionRequest) { r.ContactChannels = []string{"tel\x00"} }, "contact_channels"},
		{"NUL in a domain", func(r *SubmissionRequest) { r.EntityEmailDomains = []string{"x\x00.example"} }, "entity_email_domains"},
		{"NUL in a note value", func(r *SubmissionRequest) { r.EvidenceNotes = map[string]any{"cargo_specs": "EN\x00590"} }, "evidence_notes"},
		{"NUL in a nested note", func(r *SubmissionRequest) {
			r.EvidenceNotes = map[string]any{"a": []any{map[string]any{"b": "\x00"}}}
		}, "evidence_notes"},
		{"NUL in a note key", func(r *SubmissionRequest) { r.EvidenceNotes = map[string]any{"k\x00": 1} }, "evidence_notes"},
		{"notes of any JSON values", func(r *SubmissionRequest) {
			r.EvidenceNotes = map[string]any{"claimed_volume_mt": 270000.0, "ok": true, "n": nil, "l": []any{"x", 1.0}}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok()
			tt.edit(&r)
			err := r.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			var ge *graph.Error
			if !errors.As(err, &ge) || ge.Code != graph.CodeInvalid || ge.Field != tt.field {
				t.Errorf("Validate() = %v, want invalid naming %s", err, tt.field)
			}
		})
	}
	r := ok()
	r.Validate()
	if r.SubmitterEmail != "tip@example.com" || r.EntityName != "Demo Co" {
		t.Errorf("normalized to %q %q", r.SubmitterEmail, r.EntityName)
	}
}

func TestParseSubmissionID(t *testing.T) {
	const u = "3b1f8f2e-7d5c-4f0a-9a51-0c1e1f6b9a10"
	for _, in := range []string{u, "sub_" + u} {
		if got, err := ParseSubmissionID(in); got != u || err != nil {
			t.Errorf("ParseSubmissionID(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseSubmissionID("sub_x"); graph.ErrorCode(err) != graph.CodeInvalid {
		t.Errorf("ParseSubmissionID(sub_x) = %v", err)
	}
}
