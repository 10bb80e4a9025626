package kyc

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

func steps(st map[Step]Status) map[Step]StepResult {
	out := map[Step]StepResult{}
	for s, status := range st {
		out[s] = StepResult{Step: s, Status: status, Summary: string(s) + " summary"}
	}
	return out
}

// allPass is a run whose six steps found nothing on complete data.
func allPass() map[Step]Status {
	return map[Step]Status{
		StepClusterBlocklist: StatusPass, StepRegulatoryTradability: StatusPass, StepSanctions: StatusPass,
		StepDirectors: StatusPass, StepOwnership: StatusPass, StepAdverseMedia: StatusUnmeasured,
	}
}

func with(m map[Step]Status, s Step, st Status) map[Step]Status {
	m[s] = st
	return m
}

func TestFinalVerdict(t *testing.T) {
	tests := []struct {
		name    string
		steps   map[Step]Status
		want    Verdict
		because string // a fragment of the reasoning
	}{
		{"every step clean", allPass(), VerdictPass, "not a clearance"},
		{"tradability and directors not checked still pass", with(with(allPass(), StepRegulatoryTradability, StatusNotChecked), StepDirectors, StatusNotChecked), VerdictPass, "regulatory_tradability not_checked"},
		{"confirmed cluster fails", with(allPass(), StepClusterBlocklist, StatusFail), VerdictFail, "cluster_blocklist fail"},
		{"blocked tradability fails", with(allPass(), StepRegulatoryTradability, StatusFail), VerdictFail, "regulatory_tradability fail"},
		{"OFAC 50 percent rule fails", with(allPass(), StepOwnership, StatusFail), VerdictFail, "ownership fail"},
		{"suspected cluster reviews", with(allPass(), StepClusterBlocklist, StatusReview), VerdictReview, "cluster_blocklist review"},
		{"sanctions hit reviews", with(allPass(), StepSanctions, StatusReview), VerdictReview, "sanctions review"},
		{"degraded sanctions never pass", with(allPass(), StepSanctions, StatusDegraded), VerdictReview, "sanctions degraded"},
		{"unavailable sanctions never pass", with(allPass(), StepSanctions, StatusUnavailable), VerdictReview, "sanctions unavailable"},
		{"unavailable ownership never passes", with(allPass(), StepOwnership, StatusUnavailable), VerdictReview, "ownership unavailable"},
		{"ownership not in the graph never passes", with(allPass(), StepOwnership, StatusNotScreened), VerdictReview, "ownership not_screened"},
		{"unavailable cluster registry never passes", with(allPass(), StepClusterBlocklist, StatusUnavailable), VerdictReview, "cluster_blocklist unavailable"},
		{"a director's confirmed cluster name is a lead", with(allPass(), StepDirectors, StatusFail), VerdictReview, "directors fail"},
		{"fail outranks review", with(with(allPass(), StepSanctions, StatusReview), StepRegulatoryTradability, StatusFail), VerdictFail, "Other steps: cluster_blocklist pass"},
		{"a missing step never passes", func() map[Step]Status { m := allPass(); delete(m, StepSanctions); return m }(), VerdictReview, "sanctions step did not run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Final(steps(tt.steps))
			if got.Verdict != tt.want || !strings.Contains(got.Reasoning, tt.because) || len(got.Reasons) != 6 {
				t.Errorf("Final() = %s %q (%d reasons), want %s with %q", got.Verdict, got.Reasoning, len(got.Reasons), tt.want, tt.because)
			}
			// The final event carries the coverage statement: a GraphQL
			// subscriber gets no run object to read it from.
			if c := got.Coverage; c == nil || !c.SanctionsOnly || c.PEPScreening || len(c.SanctionsLists) != 8 ||
				!slices.Contains(c.Caveats, CaveatAdverseMedia) || !slices.Contains(c.Caveats, CaveatUBO) || !slices.Contains(c.Caveats, graph.CaveatNoPEP) {
				t.Errorf("Final().Coverage = %+v, want the run's coverage statement", c)
			}
		})
	}
}

func TestInitialVerdict(t *testing.T) {
	tests := []struct {
		name                 string
		cluster, tradability Status
		want                 Verdict
		because              string
	}{
		{"both pass: pending, not a clearance", StatusPass, StatusPass, VerdictPending, "Not a clearance"},
		{"tradability not checked: pending", StatusPass, StatusNotChecked, VerdictPending, "still running"},
		{"confirmed cluster", StatusFail, StatusPass, VerdictFail, "cluster_blocklist fail"},
		{"blocked tradability", StatusPass, StatusFail, VerdictFail, "regulatory_tradability fail"},
		{"likely or suspected cluster", StatusReview, StatusPass, VerdictReview, "cluster_blocklist review"},
		{"restricted tradability", StatusPass, StatusReview, VerdictReview, "regulatory_tradability review"},
		{"registry unavailable", StatusUnavailable, StatusPass, VerdictReview, "cluster_blocklist unavailable"},
		{"fail and review", StatusReview, StatusFail, VerdictFail, "regulatory_tradability fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Initial(StepResult{Step: StepClusterBlocklist, Status: tt.cluster}, StepResult{Step: StepRegulatoryTradability, Status: tt.tradability})
			if got.Verdict != tt.want || !strings.Contains(got.Reasoning, tt.because) {
				t.Errorf("Initial(%s, %s) = %s %q, want %s with %q", tt.cluster, tt.tradability, got.Verdict, got.Reasoning, tt.want, tt.because)
			}
		})
	}
}

// mapChecker is an in-memory cluster.Checker over normalized names.
type mapChecker struct {
	recs []cluster.Record
	err  error
}

func (m mapChecker) Check(_ context.Context, entity, country string) (cluster.CheckResult, error) {
	if m.err != nil {
		return cluster.CheckResult{}, m.err
	}
	var res cluster.CheckResult
	key := cluster.Normalize(entity)
	for _, r := range m.recs {
		if cluster.Normalize(r.EntityName) != key || (country != "" && r.Country != country) {
			continue
		}
		res.Matched = true
		res.Matches = append(res.Matches, r)
		if r.Severity.Rank() > res.HighestSeverity.Rank() {
			res.HighestSeverity = r.Severity
		}
	}
	return res, nil
}

type fixedOwnership struct {
	x   OwnershipExposure
	err error
}

func (f fixedOwnership) Exposure(context.Context, string, string) (OwnershipExposure, error) {
	return f.x, f.err
}

// screener returns a sanctions screener with every list loaded (or only the
// first when partial) holding entries.
func screener(partial bool, entries ...sanctions.Entry) *sanctions.Screener {
	s := &sanctions.Screener{}
	var states []sanctions.ListState
	for i, l := range graph.SanctionsLists {
		if partial && i > 0 {
			break
		}
		states = append(states, sanctions.ListState{ID: l.ID, Rows: 1, IngestedAt: time.Now()})
	}
	s.Replace(states, entries)
	return s
}

func TestSteps(t *testing.T) {
	m, err := regulatory.Default()
	if err != nil {
		t.Fatal(err)
	}
	reg := mapChecker{recs: []cluster.Record{
		{ID: "c1", EntityName: "Phantom Cargo Brokers", Severity: cluster.Confirmed, Country: "AE"},
		{ID: "c2", EntityName: "Rumoured Bunker Traders", Severity: cluster.Suspected, Country: "GB"},
		{ID: "c3", EntityName: "Ivan Phantom", Severity: cluster.Confirmed},
		{ID: "c4", EntityName: "Acme Fraud Oil", Severity: cluster.Confirmed, Country: "PA"},
	}}
	sdn := sanctions.Entry{List: sanctions.ListUSSDN, SourceID: "9", Kind: sanctions.Entity, Name: "SHADOW FLEET PETROLEUM LLC"}
	person := sanctions.Entry{List: sanctions.ListUN, SourceID: "P1", Kind: sanctions.Person, Name: "Boris Blacklisted"}
	full := screener(false, sdn, person)
	tests := []struct {
		name   string
		engine Engine
		step   Step
		in     Input
		want   Status
		says   string
	}{
		{"cluster: no record", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "Clean Co"}, StatusPass, "no cluster blocklist record"},
		{"cluster: confirmed", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "PHANTOM cargo brokers", Country: "AE"}, StatusFail, "confirmed"},
		{"cluster: confirmed, other jurisdiction is review", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "Phantom Cargo Brokers", Country: "NO"}, StatusReview, "same name in another jurisdiction (AE, claimed NO)"},
		{"cluster: confirmed PA record screened as AE", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "Acme Fraud Oil", Country: "AE"}, StatusReview, "another jurisdiction (PA, claimed AE)"},
		{"cluster: confirmed, no country given fails", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "Acme Fraud Oil"}, StatusFail, "confirmed scam-cluster record: Acme Fraud Oil (confirmed)"},
		{"cluster: confirmed record without country fails", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "Ivan Phantom", Country: "NO"}, StatusFail, "confirmed scam-cluster record"},
		{"cluster: suspected other country still review", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "Rumoured Bunker Traders", Country: "NO"}, StatusReview, "not a confirmed fraud"},
		{"cluster: suspected is a lead", Engine{Clusters: reg}, StepClusterBlocklist, Input{CompanyName: "Rumoured Bunker Traders"}, StatusReview, "not a confirmed fraud"},
		{"cluster: registry down", Engine{Clusters: mapChecker{err: graph.Unavailable("cluster registry", errors.New("down"))}}, StepClusterBlocklist, Input{CompanyName: "Clean Co"}, StatusUnavailable, "cluster registry is unavailable"},
		{"cluster: none configured", Engine{}, StepClusterBlocklist, Input{CompanyName: "Clean Co"}, StatusUnavailable, "not configured"},
		{"tradability: allowed", Engine{Matrix: m}, StepRegulatoryTradability, Input{CompanyName: "X", Country: "NO", Product: "crude"}, StatusPass, "allowed"},
		{"tradability: blocked", Engine{Matrix: m}, StepRegulatoryTradability, Input{CompanyName: "X", Country: "KP", Product: "lng"}, StatusFail, "blocked"},
		{"tradability: restricted", Engine{Matrix: m}, StepRegulatoryTradability, Input{CompanyName: "X", Country: "VE", Product: "crude"}, StatusReview, "restricted"},
		{"tradability: no product", Engine{Matrix: m}, StepRegulatoryTradability, Input{CompanyName: "X", Country: "NO"}, StatusNotChecked, "product not given"},
		{"sanctions: hit", Engine{Sanctions: full}, StepSanctions, Input{CompanyName: "Shadow Fleet Petroleum LLC"}, StatusReview, "us_sdn 9"},
		{"sanctions: clean on all lists", Engine{Sanctions: full}, StepSanctions, Input{CompanyName: "Nordic Fjord Energy"}, StatusPass, "on the 8 lists"},
		{"sanctions: partial lists", Engine{Sanctions: screener(true)}, StepSanctions, Input{CompanyName: "Nordic Fjord Energy"}, StatusDegraded, "not screened"},
		{"sanctions: nothing loaded", Engine{Sanctions: &sanctions.Screener{}}, StepSanctions, Input{CompanyName: "Nordic Fjord Energy"}, StatusUnavailable, "unavailable"},
		{"directors: none given", Engine{Clusters: reg, Sanctions: full}, StepDirectors, Input{CompanyName: "X"}, StatusNotChecked, "no directors"},
		{"directors: clean", Engine{Clusters: reg, Sanctions: full}, StepDirectors, Input{CompanyName: "X", Directors: []string{"Kari Nordmann"}}, StatusPass, "1 director(s)"},
		{"directors: sanctioned person", Engine{Clusters: reg, Sanctions: full}, StepDirectors, Input{CompanyName: "X", Directors: []string{"Kari Nordmann", "Boris Blacklisted"}}, StatusReview, "un P1"},
		{"directors: confirmed cluster name is review", Engine{Clusters: reg, Sanctions: full}, StepDirectors, Input{CompanyName: "X", Directors: []string{"Ivan Phantom"}}, StatusReview, "confirmed"},
		{"ownership: not wired", Engine{}, StepOwnership, Input{CompanyName: "X"}, StatusUnavailable, "not wired"},
		{"ownership: lookup fails", Engine{Ownership: fixedOwnership{err: graph.Unavailable("ownership graph", errors.New("x"))}}, StepOwnership, Input{CompanyName: "X"}, StatusUnavailable, "ownership graph is unavailable"},
		{"ownership: not in graph", Engine{Ownership: fixedOwnership{}}, StepOwnership, Input{CompanyName: "X"}, StatusNotScreened, "holds no entity"},
		{"ownership: clean", Engine{Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50Clear}}}, StepOwnership, Input{CompanyName: "X"}, StatusPass, "coverage is partial"},
		{"ownership: below 50", Engine{Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50BelowThreshold, AggregateBlockedShare: 0.3,
			BlockedOwners: []ExposedOwner{{Name: "Bad Holder", EffectiveShare: 0.3}}}}}, StepOwnership, Input{CompanyName: "X"}, StatusReview, "30.0%"},
		{"ownership: OFAC 50", Engine{Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50Blocked, AggregateBlockedShare: 0.55,
			BlockedOwners: []ExposedOwner{{Name: "Bad Holder", EffectiveShare: 0.55}}}}}, StepOwnership, Input{CompanyName: "X"}, StatusFail, "OFAC 50 percent rule"},
		{"ownership: company itself listed", Engine{Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50Blocked}}}, StepOwnership, Input{CompanyName: "X"}, StatusFail, "the company itself is listed"},
		{"ownership: possibly blocked", Engine{Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50PossiblyBlocked, Evidence: []string{"X is possibly blocked"}}}}, StepOwnership, Input{CompanyName: "X"}, StatusReview, "possibly blocked under the OFAC 50 percent rule"},
		{"ownership: not assessed", Engine{Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50NotAssessed, Evidence: []string{"not every node could be screened"}}}}, StepOwnership, Input{CompanyName: "X"}, StatusDegraded, "not every node could be screened"},
		{"ownership: unknown rule state never passes", Engine{Ownership: fixedOwnership{x: OwnershipExposure{Found: true}}}, StepOwnership, Input{CompanyName: "X"}, StatusDegraded, "could not be assessed"},
		{"adverse media", Engine{}, StepAdverseMedia, Input{CompanyName: "X"}, StatusUnmeasured, "unmeasured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{Engine: tt.engine}
			got := s.runStep(context.Background(), "run", tt.step, tt.in)
			if got.Status != tt.want || !strings.Contains(got.Summary, tt.says) || got.Seq != tt.step.Seq() || !json.Valid(got.Evidence) {
				t.Errorf("%s = %s %q (seq %d), want %s with %q", tt.step, got.Status, got.Summary, got.Seq, tt.want, tt.says)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		in    Input
		field string
		code  graph.Code
	}{
		{"ok", Input{CompanyName: " Acme Oil ", Country: "Norway", Product: "diesel", Directors: []string{" Jane "}}, "", ""},
		{"no name", Input{}, "company_name", graph.CodeInvalid},
		{"name of symbols", Input{CompanyName: "&&"}, "company_name", graph.CodeInvalid},
		{"name too long", Input{CompanyName: strings.Repeat("a", 301)}, "company_name", graph.CodeInvalid},
		{"unknown country", Input{CompanyName: "Acme", Country: "Narnia"}, "country", graph.CodeInvalid},
		{"unknown product", Input{CompanyName: "Acme", Product: "coal"}, "product", graph.CodeInvalidParam},
		{"bad director", Input{CompanyName: "Acme", Directors: []string{"ok name", ""}}, "directors[1]", graph.CodeInvalid},
		{"one CJK letter and a dot", Input{CompanyName: "東."}, "company_name", graph.CodeInvalid},
		{"one accented letter", Input{CompanyName: "É -"}, "company_name", graph.CodeInvalid},
		{"director one CJK letter", Input{CompanyName: "Acme", Directors: []string{"Jo", "東."}}, "directors[1]", graph.CodeInvalid},
		{"two CJK letters ok", Input{CompanyName: "東京", Directors: []string{"李明"}}, "", ""},
		{"too many directors", Input{CompanyName: "Acme", Directors: make([]string, 51)}, "directors", graph.CodeInvalid},
		{"NUL in name", Input{CompanyName: "Acme\x00Oil"}, "company_name", graph.CodeInvalid},
		{"invalid UTF-8 director", Input{CompanyName: "Acme", Directors: []string{"Jo\xffe"}}, "directors[0]", graph.CodeInvalid},
		{"NUL in metadata", Input{CompanyName: "Acme", Metadata: json.RawMessage(`{"a":"\u0000"}`)}, "metadata", graph.CodeInvalid},
		{"invalid UTF-8 metadata", Input{CompanyName: "Acme", Metadata: json.RawMessage("{\"a\":\"\xff\"}")}, "metadata", graph.CodeInvalid},
		{"lone high surrogate in metadata", Input{CompanyName: "Acme", Metadata: json.RawMessage(`{"a":"\ud800"}`)}, "metadata", graph.CodeInvalid},
		{"lone low surrogate in metadata", Input{CompanyName: "Acme", Metadata: json.RawMessage(`{"\udc00":1}`)}, "metadata", graph.CodeInvalid},
		{"reversed surrogates in metadata", Input{CompanyName: "Acme", Metadata: json.RawMessage(`{"a":"\udc00\ud800"}`)}, "metadata", graph.CodeInvalid},
		{"paired surrogates in metadata ok", Input{CompanyName: "Acme", Metadata: json.RawMessage(`{"a":"\ud83d\ude00 \u00e9\n"}`)}, "", ""},
		{"escaped backslash before u0000 ok", Input{CompanyName: "Acme", Metadata: json.RawMessage(`{"a":"\\u0000 \\ud800"}`)}, "", ""},
		{"metadata array", Input{CompanyName: "Acme", Metadata: json.RawMessage(`[1]`)}, "metadata", graph.CodeInvalid},
		{"metadata too big", Input{CompanyName: "Acme", Metadata: json.RawMessage(`{"a":"` + strings.Repeat("x", MaxMetadataSize) + `"}`)}, "metadata", graph.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Validate()
			if tt.field == "" {
				if err != nil || (tt.name == "ok" && (got.CompanyName != "Acme Oil" || got.Country != "NO" || got.Directors[0] != "Jane" || string(got.Metadata) != "{}")) {
					t.Errorf("Validate() = %+v, %v", got, err)
				}
				return
			}
			e := graph.AsError(err)
			if e == nil || e.Field != tt.field || e.Code != tt.code {
				t.Errorf("Validate() error = %v, want %s naming %s", err, tt.code, tt.field)
			}
		})
	}
}

// memStore is an in-memory Store for the pipeline's own tests.
type memStore struct {
	mu           sync.Mutex
	runs         map[string]*Run
	events       []graph.Event
	failComplete int // CompleteRun fails this many times first
}

func (m *memStore) CreateRun(_ context.Context, run *Run, done []StepResult) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	run.EntityID = "e-" + run.ID
	c := *run
	c.Steps = append([]StepResult(nil), done...)
	m.runs[run.ID] = &c
	return nil
}
func (m *memStore) QueueRescreen(context.Context, string, string, string, time.Time) (Run, error) {
	return Run{}, errors.New("not used")
}
func (m *memStore) WorkRun(_ context.Context, id string) (Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[id]
	if !ok {
		return Run{}, graph.Errorf(graph.CodeNotFound, "no run")
	}
	c := *r
	c.Steps = append([]StepResult(nil), r.Steps...)
	return c, nil
}
func (m *memStore) append(steps []StepResult) []StepResult {
	var out []StepResult
	for _, s := range steps {
		r := m.runs[s.RunID]
		found := false
		for _, have := range r.Steps {
			if have.Seq == s.Seq {
				out, found = append(out, have), true
			}
		}
		if !found {
			r.Steps = append(r.Steps, s)
			out = append(out, s)
		}
	}
	return out
}
func (m *memStore) AppendSteps(_ context.Context, steps []StepResult) ([]StepResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.append(steps), nil
}
func (m *memStore) CompleteRun(_ context.Context, steps []StepResult, ve VerdictEvidence, evs []graph.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failComplete > 0 {
		m.failComplete--
		return errors.New("database went away")
	}
	r := m.runs[steps[0].RunID]
	if r.Status == RunCompleted {
		return nil
	}
	m.append(steps)
	r.Status, r.Verdict, r.VerdictReasoning = RunCompleted, ve.Verdict, ve.Reasoning
	m.events = append(m.events, evs...)
	return nil
}
func (m *memStore) Run(_ context.Context, _, id string) (Run, error) {
	return m.WorkRun(context.Background(), id)
}
func (m *memStore) Dossier(context.Context, string, string) (Dossier, error) { return Dossier{}, nil }

// A run whose job fails midway is resumed by the retry without running or
// emitting a logged step again, and completes once with its events.
func TestExecuteResumesAfterFailure(t *testing.T) {
	m, _ := regulatory.Default()
	sdn := sanctions.Entry{List: sanctions.ListUSSDN, SourceID: "9", Kind: sanctions.Entity, Name: "SHADOW FLEET PETROLEUM LLC"}
	store := &memStore{runs: map[string]*Run{}, failComplete: 1}
	svc := &Service{Engine: Engine{Clusters: mapChecker{}, Matrix: m, Sanctions: screener(false, sdn),
		Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50Clear}}}, Store: store}
	ctx := context.Background()
	run, err := svc.Screen(ctx, "member", Input{CompanyName: "Shadow Fleet Petroleum LLC", Country: "NO", Product: "crude"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Verdict != VerdictPending || run.Checks.ClusterBlocklist.Status != StatusPass || run.Checks.RegulatoryTradability.Status != StatusPass {
		t.Fatalf("Screen() = %s %+v", run.Verdict, run.Checks)
	}
	if err := svc.Execute(ctx, run.ID); err == nil {
		t.Fatal("Execute() with a failing store = nil, want the error (the job retries)")
	}
	// Steps 3 and 4 were logged before the ownership step (a lookup is
	// configured, so it may be slow); the retry keeps them.
	before, _ := store.WorkRun(ctx, run.ID)
	if len(before.Steps) != 4 {
		t.Fatalf("after the failed completion the log holds %d steps, want 4", len(before.Steps))
	}
	if err := svc.Execute(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Execute(ctx, run.ID); err != nil { // a duplicate job
		t.Fatal(err)
	}
	got, _ := store.WorkRun(ctx, run.ID)
	var seqs []int
	for _, s := range got.Steps {
		seqs = append(seqs, s.Seq)
	}
	if len(seqs) != 7 || seqs[6] != 7 || got.Verdict != VerdictReview || !strings.Contains(got.VerdictReasoning, "potential sanctions match") {
		t.Errorf("run = steps %v, verdict %s %q; want 7 steps and review on the sanctions hit", seqs, got.Verdict, got.VerdictReasoning)
	}
	if !got.Steps[2].StartedAt.Equal(before.Steps[2].StartedAt) || !got.Steps[3].StartedAt.Equal(before.Steps[3].StartedAt) {
		t.Error("the retry ran a logged step again")
	}
	if len(store.events) != 1 || store.events[0].Type != graph.EventKYCMatchDetected {
		t.Errorf("events = %+v, want one kyc.match_detected", store.events)
	}
}

// Every kind of hit sends kyc.match_detected saying which kind, and a
// re-screen's kyc.rescreen_completed says match whenever a step reported a
// hit, degraded when a lookup could not run, else no_match.
func TestEvents(t *testing.T) {
	reg := mapChecker{recs: []cluster.Record{
		{ID: "c1", Slug: "acme-fraud-oil", EntityName: "Acme Fraud Oil", Severity: cluster.Confirmed, Country: "PA"},
		{ID: "c2", Slug: "ivan-phantom", EntityName: "Ivan Phantom", Severity: cluster.Confirmed},
	}}
	sdn := sanctions.Entry{List: sanctions.ListUSSDN, SourceID: "9", Kind: sanctions.Entity, Name: "SHADOW FLEET PETROLEUM LLC"}
	full := screener(false, sdn)
	clear := fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50Clear}}
	tests := []struct {
		name      string
		engine    Engine
		in        Input
		wantKinds []string // match_kind/subject/list_entry_id of each kyc.match_detected
		status    string
		verdict   Verdict
	}{
		{"clean", Engine{Clusters: reg, Sanctions: full, Ownership: clear}, Input{CompanyName: "Nordic Fjord Energy"},
			nil, "no_match", VerdictPass},
		{"sanctions hit", Engine{Clusters: reg, Sanctions: full, Ownership: clear}, Input{CompanyName: "Shadow Fleet Petroleum LLC"},
			[]string{"sanctions/company/9"}, "match", VerdictReview},
		{"confirmed cluster match of the company", Engine{Clusters: reg, Sanctions: full, Ownership: clear}, Input{CompanyName: "Acme Fraud Oil", Country: "PA"},
			[]string{"cluster/company/acme-fraud-oil"}, "match", VerdictFail},
		{"cluster match in another jurisdiction", Engine{Clusters: reg, Sanctions: full, Ownership: clear}, Input{CompanyName: "Acme Fraud Oil", Country: "AE"},
			[]string{"cluster/company/acme-fraud-oil"}, "match", VerdictReview},
		{"cluster match of a director", Engine{Clusters: reg, Sanctions: full, Ownership: clear}, Input{CompanyName: "Nordic Fjord Energy", Directors: []string{"Ivan Phantom"}},
			[]string{"cluster/director/ivan-phantom"}, "match", VerdictReview},
		{"OFAC 50 blocked owner", Engine{Clusters: reg, Sanctions: full, Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50Blocked, AggregateBlockedShare: 0.6,
			BlockedOwners: []ExposedOwner{{EntityID: "o1", Name: "Bad Holder", Lists: []string{"us_sdn"}, Confirmed: true, EffectiveShare: 0.6}}}}},
			Input{CompanyName: "Nordic Fjord Energy"}, []string{"ownership/owner/o1"}, "match", VerdictFail},
		{"company itself blocked", Engine{Clusters: reg, Sanctions: full, Ownership: fixedOwnership{x: OwnershipExposure{Found: true, EntityID: "e1", OFAC50Rule: OFAC50Blocked}}},
			Input{CompanyName: "Nordic Fjord Energy"}, []string{"ownership/company/e1"}, "match", VerdictFail},
		{"possibly blocked", Engine{Clusters: reg, Sanctions: full, Ownership: fixedOwnership{x: OwnershipExposure{Found: true, EntityID: "e1", OFAC50Rule: OFAC50PossiblyBlocked}}},
			Input{CompanyName: "Nordic Fjord Energy"}, []string{"ownership/company/e1"}, "match", VerdictReview},
		{"listed owner below 50", Engine{Clusters: reg, Sanctions: full, Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50BelowThreshold,
			BlockedOwners: []ExposedOwner{{EntityID: "o2", Name: "Small Holder", Lists: []string{"un"}, EffectiveShare: 0.1}}}}},
			Input{CompanyName: "Nordic Fjord Energy"}, []string{"ownership/owner/o2"}, "match", VerdictReview},
		{"ownership unavailable", Engine{Clusters: reg, Sanctions: full, Ownership: fixedOwnership{err: graph.Unavailable("ownership graph", errors.New("x"))}},
			Input{CompanyName: "Nordic Fjord Energy"}, nil, "degraded", VerdictReview},
		{"registry unavailable", Engine{Clusters: mapChecker{err: graph.Unavailable("cluster registry", errors.New("down"))}, Sanctions: full, Ownership: clear},
			Input{CompanyName: "Nordic Fjord Energy"}, nil, "degraded", VerdictReview},
		{"sanctions partial", Engine{Clusters: reg, Sanctions: screener(true), Ownership: clear}, Input{CompanyName: "Nordic Fjord Energy"},
			nil, "degraded", VerdictReview},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{Engine: tt.engine}
			done := map[Step]StepResult{}
			for _, st := range []Step{StepClusterBlocklist, StepRegulatoryTradability, StepSanctions, StepDirectors, StepOwnership, StepAdverseMedia} {
				done[st] = s.runStep(context.Background(), "run", st, tt.in)
			}
			run := Run{ID: "run", MemberID: "m", EntityID: "d", Kind: KindRescreen, Input: tt.in}
			var kinds []string
			var completed *webhooks.KYCRescreenCompletedData
			for _, ev := range s.events(run, done, time.Now()) {
				switch d := ev.Data.(type) {
				case webhooks.KYCMatchDetectedData:
					kinds = append(kinds, d.MatchKind+"/"+d.Subject+"/"+d.ListEntryID)
				case webhooks.KYCRescreenCompletedData:
					completed = &d
				}
			}
			if !reflect.DeepEqual(kinds, tt.wantKinds) {
				t.Errorf("match_detected = %v, want %v", kinds, tt.wantKinds)
			}
			if completed == nil || completed.Status != tt.status || completed.Verdict != string(tt.verdict) || completed.HitCount != len(tt.wantKinds) {
				t.Errorf("rescreen_completed = %+v, want status %s verdict %s hits %d", completed, tt.status, tt.verdict, len(tt.wantKinds))
			}
		})
	}
}

// A run whose job gave up is closed by Abandon: the steps it logged are
// kept, every other one is unavailable, the verdict is review (never pass)
// and the run completes once, with its events.
func TestAbandon(t *testing.T) {
	m, _ := regulatory.Default()
	store := &memStore{runs: map[string]*Run{}, failComplete: 1}
	svc := &Service{Engine: Engine{Clusters: mapChecker{}, Matrix: m, Sanctions: screener(false),
		Ownership: fixedOwnership{x: OwnershipExposure{Found: true, OFAC50Rule: OFAC50Clear}}}, Store: store}
	ctx := context.Background()
	run, err := svc.Screen(ctx, "member", Input{CompanyName: "Clean Harbour Shipping AS", Country: "NO", Product: "crude"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Execute(ctx, run.ID); err == nil { // logs steps 3 and 4, then fails
		t.Fatal("Execute() with a failing store = nil")
	}
	if err := svc.Abandon(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := store.WorkRun(ctx, run.ID)
	if got.Status != RunCompleted || got.Verdict != VerdictReview || len(got.Steps) != 7 {
		t.Fatalf("abandoned run = %s, verdict %s, %d steps; want completed, review, 7", got.Status, got.Verdict, len(got.Steps))
	}
	for _, s := range got.Steps {
		switch {
		case s.Seq <= 4 && s.Summary == AbandonedSummary:
			t.Errorf("step %s was logged before and is now %q", s.Step, s.Summary)
		case s.Seq == 5 || s.Seq == 6:
			if s.Status != StatusUnavailable || s.Summary != AbandonedSummary {
				t.Errorf("step %s = %s %q, want unavailable, abandoned", s.Step, s.Status, s.Summary)
			}
		}
	}
	if err := svc.Abandon(ctx, run.ID); err != nil { // a completed run is left alone
		t.Fatal(err)
	}
	if again, _ := store.WorkRun(ctx, run.ID); len(again.Steps) != 7 || again.VerdictReasoning != got.VerdictReasoning {
		t.Errorf("a second Abandon changed the run: %d steps", len(again.Steps))
	}
}

// An abandoned re-screen whose job logged no step completes with review
// and one kyc.rescreen_completed, degraded (its lookups never ran), never
// no_match or pass.
func TestAbandonRescreen(t *testing.T) {
	m, _ := regulatory.Default()
	store := &memStore{runs: map[string]*Run{}}
	svc := &Service{Engine: Engine{Clusters: mapChecker{}, Matrix: m, Sanctions: screener(false)}, Store: store}
	run := &Run{ID: "r1", MemberID: "member", Kind: KindRescreen, Status: RunQueued, EntityID: "e1",
		Input: Input{CompanyName: "Clean Harbour Shipping AS", Country: "NO", Product: "crude"}}
	store.runs[run.ID] = run
	if err := svc.Abandon(context.Background(), run.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := store.WorkRun(context.Background(), run.ID)
	if got.Status != RunCompleted || got.Verdict != VerdictReview || len(got.Steps) != 7 {
		t.Fatalf("abandoned re-screen = %s, verdict %s, %d steps; want completed, review, 7", got.Status, got.Verdict, len(got.Steps))
	}
	if len(store.events) != 1 || store.events[0].Type != graph.EventKYCRescreenCompleted {
		t.Fatalf("events = %+v, want one kyc.rescreen_completed", store.events)
	}
	d := store.events[0].Data.(webhooks.KYCRescreenCompletedData)
	if d.Status != "degraded" || d.Verdict != string(VerdictReview) || d.HitCount != 0 {
		t.Errorf("rescreen_completed = %+v, want degraded, review, 0 hits", d)
	}
}
