// Package kyc is the counterparty screening pipeline: seven steps, of which
// the cluster blocklist and regulatory tradability run synchronously and
// decide the verdict returned at once, and sanctions, directors, ownership
// exposure and adverse media complete the run in a background job. Every
// finished step is an event in the run's log (pipeline:{screening_run_id}),
// which subscribers replay and then follow live.
//
// The package does no I/O of its own: the store, the progress feed, the
// cluster registry, the sanctions screener and the ownership lookup are
// interfaces or engines passed in.
package kyc

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/country"
	"github.com/tradecompliance/compliance/graph/regulatory"
)

// Step names one step of the pipeline.
type Step string

// The seven steps, in the order they run and are numbered (seq 1 to 7).
const (
	StepClusterBlocklist      Step = "cluster_blocklist"
	StepRegulatoryTradability Step = "regulatory_tradability"
	StepSanctions             Step = "sanctions"
	StepDirectors             Step = "directors"
	StepOwnership             Step = "ownership"
	StepAdverseMedia          Step = "adverse_media"
	StepVerdict               Step = "verdict"
)

// Steps lists the steps in order; a step's seq is its index plus one.
var Steps = []Step{
	StepClusterBlocklist, StepRegulatoryTradability, StepSanctions, StepDirectors,
	StepOwnership, StepAdverseMedia, StepVerdict,
}

// Seq returns the step's sequence number in a run's event log (1 to 7), or
// 0 for an unknown step.
func (s Step) Seq() int {
	for i, st := range Steps {
		if st == s {
			return i + 1
		}
	}
	return 0
}

// Status is a step's outcome.
type Status string

// Step outcomes.
const (
	StatusPass        Status = "pass"         // checked; nothing found
	StatusFail        Status = "fail"         // a disqualifying finding
	StatusReview      Status = "review"       // a finding (or lead) a compliance officer must review
	StatusDegraded    Status = "degraded"     // ran on partial data: absence is not evidence of absence
	StatusUnavailable Status = "unavailable"  // the source could not be consulted
	StatusNotScreened Status = "not_screened" // the source holds nothing to screen against for this input
	StatusNotChecked  Status = "not_checked"  // the input lacks what the step needs (e.g. country)
	StatusUnmeasured  Status = "unmeasured"   // no source has ever returned a finding (adverse media)
	StatusPending     Status = "pending"      // not run yet (only in views of unfinished runs)
)

// Verdict is a run's conclusion.
type Verdict string

// Verdicts. Pending is returned by the synchronous screen while the
// remaining steps run: it is not a clearance. Pass is given only by a
// completed run whose every determining step ran on complete data.
const (
	VerdictFail    Verdict = "fail"
	VerdictReview  Verdict = "review"
	VerdictPending Verdict = "pending"
	VerdictPass    Verdict = "pass"
)

// Run kinds and states.
const (
	KindScreen    = "screen"    // POST /api/v1/kyc/screen
	KindRescreen  = "rescreen"  // POST /api/v1/kyc/rescreen
	KindScheduled = "scheduled" // the 90-day re-screen

	RunQueued    = "queued"
	RunRunning   = "running"
	RunCompleted = "completed"
)

// RescreenEvery is the age of a dossier's last screening after which it is
// re-screened automatically.
const RescreenEvery = 90 * 24 * time.Hour

// Caveats of a screening run besides the service-wide ones.
const (
	CaveatAdverseMedia = "Adverse media is unmeasured: no adverse-media source has returned a finding yet, so the step reports nothing either way."
	CaveatUBO          = "Beneficial-ownership coverage is partial: no functioning US domestic beneficial-ownership registry exists after March 2025."
	CaveatPending      = "A pending verdict is not a clearance: the sanctions, directors and ownership steps are still running."
)

// Coverage returns the coverage statement every run carries: the
// service-wide one plus adverse media and UBO.
func Coverage() graph.Coverage {
	c := graph.ServiceCoverage()
	c.Caveats = append(c.Caveats, CaveatAdverseMedia, CaveatUBO)
	return c
}

// Limits of the input.
const (
	MaxNameLen      = 300
	MaxDirectors    = 50
	MaxMetadataSize = 16 << 10
)

// Input is what a screening is asked about.
type Input struct {
	CompanyName string          `json:"company_name"`
	Country     string          `json:"country"` // ISO 3166-1 alpha-2 once validated, "" when not given
	Product     string          `json:"product"` // a category or keyword, "" when not given
	Directors   []string        `json:"directors"`
	Metadata    json.RawMessage `json:"metadata"` // a JSON object, {} when not given
}

// Validate returns the input with names trimmed and the country resolved to
// ISO alpha-2. It fails with invalid naming the field (directors[i] for a
// director), or invalid_param naming product for an unknown product.
func (in Input) Validate() (Input, error) {
	in.CompanyName = strings.TrimSpace(in.CompanyName)
	if in.CompanyName == "" {
		return in, graph.Invalid("company_name", "company_name is required")
	}
	if utf8.RuneCountInString(in.CompanyName) > MaxNameLen {
		return in, graph.Invalid("company_name", "company_name must be at most %d characters", MaxNameLen)
	}
	if !printable(in.CompanyName) {
		return in, graph.Invalid("company_name", "company_name must be valid UTF-8 without NUL characters")
	}
	if utf8.RuneCountInString(cluster.Normalize(in.CompanyName)) < cluster.MinCheckChars {
		return in, graph.Invalid("company_name", "company_name must have at least %d letters or digits", cluster.MinCheckChars)
	}
	if c := strings.TrimSpace(in.Country); c != "" {
		ct, ok := country.Default().Resolve(c)
		if !ok {
			return in, graph.Invalid("country", "unknown country %q: send a name, ISO 3166 code or slug", c)
		}
		in.Country = ct.ISO2
	} else {
		in.Country = ""
	}
	in.Product = strings.TrimSpace(in.Product)
	if !printable(in.Product) {
		return in, graph.Invalid("product", "product must be valid UTF-8 without NUL characters")
	}
	if in.Product != "" {
		if _, ok := regulatory.Category(in.Product); !ok {
			return in, &graph.Error{Code: graph.CodeInvalidParam, Field: "product",
				Message: fmt.Sprintf("unknown product %q; accepted: %s", in.Product, strings.Join(regulatory.AcceptedProducts(), ", ")),
				Details: map[string]any{"accepted": regulatory.AcceptedProducts()}}
		}
	}
	if len(in.Directors) > MaxDirectors {
		return in, graph.Invalid("directors", "directors holds at most %d names", MaxDirectors)
	}
	dirs := make([]string, 0, len(in.Directors))
	for i, d := range in.Directors {
		d = strings.TrimSpace(d)
		field := fmt.Sprintf("directors[%d]", i)
		switch {
		case utf8.RuneCountInString(d) > MaxNameLen:
			return in, graph.Invalid(field, "%s must be at most %d characters", field, MaxNameLen)
		case !printable(d):
			return in, graph.Invalid(field, "%s must be valid UTF-8 without NUL characters", field)
		case utf8.RuneCountInString(cluster.Normalize(d)) < cluster.MinCheckChars:
			return in, graph.Invalid(field, "%s must have at least %d letters or digits", field, cluster.MinCheckChars)
		}
		dirs = append(dirs, d)
	}
	in.Directors = dirs
	meta := strings.TrimSpace(string(in.Metadata))
	switch {
	case meta == "" || meta == "null":
		in.Metadata = json.RawMessage(`{}`)
	case len(meta) > MaxMetadataSize:
		return in, graph.Invalid("metadata", "metadata must be at most %d bytes of JSON", MaxMetadataSize)
	case meta[0] != '{' || !json.Valid([]byte(meta)):
		return in, graph.Invalid("metadata", "metadata must be a JSON object")
	case !printable(meta) || !jsonbEscapes(meta): // Postgres jsonb refuses NUL, invalid UTF-8 and unpaired surrogates
		return in, graph.Invalid("metadata", "metadata must be valid UTF-8 without NUL characters (\\u0000) or unpaired surrogate escapes (\\ud800)")
	default:
		in.Metadata = json.RawMessage(meta)
	}
	return in, nil
}

// jsonbEscapes reports whether the \u escapes of valid JSON text are ones
// Postgres jsonb stores: no \u0000, and every surrogate escape a high one
// (\ud800 to \udbff) followed at once by a low one (\udc00 to \udfff).
// A literal backslash (\\) is not an escape's start.
func jsonbEscapes(s string) bool {
	hex4 := func(i int) (int, bool) { // the code unit of the \u escape at s[i]
		if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
			return 0, false
		}
		var v int
		for _, c := range s[i+2 : i+6] {
			switch {
			case c >= '0' && c <= '9':
				v = v*16 + int(c-'0')
			case c >= 'a' && c <= 'f':
				v = v*16 + int(c-'a') + 10
			case c >= 'A' && c <= 'F':
				v = v*16 + int(c-'A') + 10
			default:
				return 0, false
			}
		}
		return v, true
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 < len(s) && s[i+1] != 'u' {
			i++ // a one-character escape, \\ among them
			continue
		}
		v, ok := hex4(i)
		switch {
		case !ok:
			return false
		case v == 0, v >= 0xdc00 && v <= 0xdfff:
			return false
		case v >= 0xd800 && v <= 0xdbff:
			lo, ok := hex4(i + 6)
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return false
			}
			i += 6
		}
		i += 5
	}
	return true
}

// printable reports whether s is valid UTF-8 without NUL, as Postgres
// text requires.
func printable(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// StepResult is one finished step: the event the run's log records and
// subscribers receive.
type StepResult struct {
	RunID      string          `json:"screening_run_id"`
	Seq        int             `json:"seq"`
	Step       Step            `json:"step"`
	Status     Status          `json:"status"`
	Summary    string          `json:"summary"`
	StartedAt  time.Time       `json:"started_at"`
	FinishedAt time.Time       `json:"finished_at"`
	EmittedAt  time.Time       `json:"emitted_at"` // when the log recorded it
	Evidence   json.RawMessage `json:"evidence"`   // the step's findings; shape per step (README)
	// Final is true on the verdict step, the run's last event.
	Final bool `json:"final"`
	// JSON is the event as JSON when the progress feed encoded it once for
	// all its subscribers; nil otherwise.
	JSON json.RawMessage `json:"-"`
}

// Check is the state of a synchronous check as the spec's checks object
// shows it.
type Check struct {
	Status  Status `json:"status"`
	Summary string `json:"summary"`
}

// Checks holds the spec's two keys.
type Checks struct {
	ClusterBlocklist      Check `json:"cluster_blocklist"`
	RegulatoryTradability Check `json:"regulatory_tradability"`
}

// Run is one screening run.
type Run struct {
	ID       string `json:"screening_run_id"`
	EntityID string `json:"entity_id"`
	MemberID string `json:"-"`
	Kind     string `json:"kind"`   // screen, rescreen or scheduled
	Status   string `json:"status"` // queued, running or completed
	// Verdict is the synchronous verdict (fail, review or pending) until
	// the run completes, then the final one (fail, review or pass).
	Verdict          Verdict `json:"verdict"`
	VerdictReasoning string  `json:"verdict_reasoning"`
	// InitialVerdict is the verdict the synchronous checks gave, "" for a
	// re-screen (which has no synchronous part).
	InitialVerdict Verdict        `json:"initial_verdict"`
	Input          Input          `json:"input"`
	Checks         Checks         `json:"checks"`
	Steps          []StepResult   `json:"steps"`
	CreatedAt      time.Time      `json:"created_at"`
	CompletedAt    *time.Time     `json:"completed_at"`
	Coverage       graph.Coverage `json:"coverage"`
}

// Fill derives the checks from the steps and sets the coverage statement.
func (r *Run) Fill() {
	r.Checks = Checks{ClusterBlocklist: Check{Status: StatusPending}, RegulatoryTradability: Check{Status: StatusPending}}
	if r.Steps == nil {
		r.Steps = []StepResult{}
	}
	for _, s := range r.Steps {
		switch s.Step {
		case StepClusterBlocklist:
			r.Checks.ClusterBlocklist = Check{Status: s.Status, Summary: s.Summary}
		case StepRegulatoryTradability:
			r.Checks.RegulatoryTradability = Check{Status: s.Status, Summary: s.Summary}
		}
	}
	r.Coverage = Coverage()
}

// RunSummary is a run as a dossier lists it.
type RunSummary struct {
	ID          string     `json:"screening_run_id"`
	Kind        string     `json:"kind"`
	Status      string     `json:"status"`
	Verdict     Verdict    `json:"verdict"`
	CreatedAt   time.Time  `json:"created_at"`
	CompletedAt *time.Time `json:"completed_at"`
}

// Dossier is a registered counterparty: what it was screened as, and its
// runs. A member screening the same company name (normalized) and country
// again reuses the dossier.
type Dossier struct {
	EntityID       string          `json:"entity_id"`
	MemberID       string          `json:"-"`
	CompanyName    string          `json:"company_name"`
	Country        string          `json:"country"`
	Product        string          `json:"product"`
	Directors      []string        `json:"directors"`
	Metadata       json.RawMessage `json:"metadata"`
	CreatedAt      time.Time       `json:"created_at"`
	LastScreenedAt *time.Time      `json:"last_screened_at"` // completion of its latest completed run
	NextRescreenAt *time.Time      `json:"next_rescreen_at"` // last_screened_at + 90 days
	Runs           []RunSummary    `json:"runs"`             // newest first, at most 20
	Coverage       graph.Coverage  `json:"coverage"`
}

// Input returns what a re-screen of the dossier asks about.
func (d Dossier) Input() Input {
	return Input{CompanyName: d.CompanyName, Country: d.Country, Product: d.Product, Directors: d.Directors, Metadata: d.Metadata}
}

// NameKey is the key under which a member's dossiers are unique: the
// normalized company name and the country.
func NameKey(in Input) string { return cluster.Normalize(in.CompanyName) + "|" + in.Country }

// ScreeningRunID returns the run's id (the GraphQL field's name).
func (r Run) ScreeningRunID() string { return r.ID }

// ScreeningRunID returns the id of the event's run (the GraphQL field's
// name).
func (s StepResult) ScreeningRunID() string { return s.RunID }

// ScreeningRunID returns the run's id (the GraphQL field's name).
func (r RunSummary) ScreeningRunID() string { return r.ID }
