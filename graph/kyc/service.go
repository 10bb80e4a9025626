package kyc

import (
	"context"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

// Store persists runs, their event logs and dossiers (relational
// implements it).
type Store interface {
	// CreateRun upserts the run's dossier (setting run.EntityID), stores
	// the run and the steps already finished, and enqueues the job that
	// runs the rest, in one transaction.
	CreateRun(ctx context.Context, run *Run, done []StepResult) error
	// QueueRescreen stores a queued run of kind over the dossier's input
	// and enqueues its job, in one transaction. It fails with forbidden
	// when the dossier is another member's and not_found when there is
	// none.
	QueueRescreen(ctx context.Context, memberID, entityID, kind string, at time.Time) (Run, error)
	// WorkRun returns a run with its input and logged steps whoever owns
	// it, marking a queued run running. It fails with not_found.
	WorkRun(ctx context.Context, runID string) (Run, error)
	// AppendSteps records finished steps in their run's log and notifies
	// subscribers, in one transaction, skipping any seq the log already
	// holds; it returns the steps as logged.
	AppendSteps(ctx context.Context, steps []StepResult) ([]StepResult, error)
	// CompleteRun records steps (the last of them the verdict), the run's
	// final verdict, the dossier's screening time and events, in one
	// transaction. A run already completed is left as it is.
	CompleteRun(ctx context.Context, steps []StepResult, ve VerdictEvidence, events []graph.Event) error
	// Run returns the member's run with its logged steps; not_found when
	// there is none or it is another member's.
	Run(ctx context.Context, memberID, runID string) (Run, error)
	// Dossier returns the member's dossier with its latest runs;
	// not_found when there is none or it is another member's.
	Dossier(ctx context.Context, memberID, entityID string) (Dossier, error)
}

// Progress follows a run's event log.
type Progress interface {
	// Follow returns the run's events from seq 1 on: those already logged,
	// then live ones, each exactly once and in order; the channel closes
	// after the final event or when ctx ends.
	Follow(ctx context.Context, runID string) (<-chan StepResult, error)
}

// Engine runs the steps.
type Engine struct {
	Clusters  cluster.Checker    // nil: the cluster step is unavailable
	Matrix    *regulatory.Matrix // nil: tradability is unavailable
	Sanctions SanctionsScreener  // nil: sanctions steps are unavailable
	Ownership OwnershipLookup    // nil: the ownership step is unavailable
}

// Service is the screening surface both transports and the job worker call.
type Service struct {
	Engine
	Store    Store
	Progress Progress
	Now      func() time.Time
	// StepDelay pauses before each background step. It exists for tests
	// and benchmarks that watch live progress; zero in service.
	StepDelay time.Duration
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// runStep runs one of the six screening steps, timing it.
func (s *Service) runStep(ctx context.Context, runID string, step Step, in Input) StepResult {
	started := s.now()
	var o outcome
	switch step {
	case StepClusterBlocklist:
		o = s.clusterStep(ctx, in)
	case StepRegulatoryTradability:
		o = s.tradabilityStep(in)
	case StepSanctions:
		o = s.sanctionsStep(in)
	case StepDirectors:
		o = s.directorsStep(ctx, in)
	case StepOwnership:
		o = s.ownershipStep(ctx, in)
	case StepAdverseMedia:
		o = adverseMediaStep()
	}
	return StepResult{
		RunID: runID, Seq: step.Seq(), Step: step, Status: o.status, Summary: o.summary,
		StartedAt: started, FinishedAt: s.now(), Evidence: marshal(o.evidence),
	}
}

// Screen validates in, runs the two synchronous checks, and stores the run,
// its dossier and the first two events with the job that completes the
// run. The run it returns carries the synchronous verdict: fail, review or
// pending. It fails with invalid naming the field before anything is
// written.
func (s *Service) Screen(ctx context.Context, memberID string, in Input) (Run, error) {
	in, err := in.Validate()
	if err != nil {
		return Run{}, err
	}
	run := Run{ID: graph.NewID(), MemberID: memberID, Kind: KindScreen, Status: RunRunning, Input: in, CreatedAt: s.now().Truncate(time.Microsecond)}
	cl := s.runStep(ctx, run.ID, StepClusterBlocklist, in)
	tr := s.runStep(ctx, run.ID, StepRegulatoryTradability, in)
	ve := Initial(cl, tr)
	run.Verdict, run.InitialVerdict, run.VerdictReasoning = ve.Verdict, ve.Verdict, ve.Reasoning
	run.Steps = []StepResult{cl, tr}
	if err := s.Store.CreateRun(ctx, &run, run.Steps); err != nil {
		return Run{}, err
	}
	run.Fill()
	return run, nil
}

// Rescreen queues a re-screen of the member's dossier. It fails with
// invalid naming entity_id for a malformed id, forbidden for another
// member's dossier, not_found for an unknown one.
func (s *Service) Rescreen(ctx context.Context, memberID, entityID string) (Run, error) {
	id, err := graph.ParseID("entity_id", "", entityID)
	if err != nil {
		return Run{}, err
	}
	run, err := s.Store.QueueRescreen(ctx, memberID, id, KindRescreen, s.now())
	if err != nil {
		return Run{}, err
	}
	run.Fill()
	return run, nil
}

// unfinished returns the run to work on with its logged steps by step, or a
// nil run when it is already completed. It fails when the store does.
func (s *Service) unfinished(ctx context.Context, runID string) (*Run, map[Step]StepResult, error) {
	run, err := s.Store.WorkRun(ctx, runID)
	if err != nil || run.Status == RunCompleted {
		return nil, nil, err
	}
	done := map[Step]StepResult{}
	for _, st := range run.Steps {
		done[st.Step] = st
	}
	return &run, done, nil
}

// AbandonedSummary is the summary of a step a run's job gave up on.
const AbandonedSummary = "unavailable: this step could not run; the run's job failed on every attempt and was given up, so the run was closed without it. Not a clearance."

// Abandon completes a run whose job has failed its last attempt: every step
// not yet logged is logged unavailable (AbandonedSummary), so the verdict
// is at best review, and the run's events and completion reach its
// subscribers instead of leaving them waiting on a run that will never
// finish. A completed run is left as it is. It fails when the store does.
func (s *Service) Abandon(ctx context.Context, runID string) error {
	run, done, err := s.unfinished(ctx, runID)
	if err != nil || run == nil {
		return err
	}
	now := s.now()
	var pending []StepResult
	for _, step := range Steps[:6] {
		if _, ok := done[step]; ok {
			continue
		}
		r := StepResult{RunID: run.ID, Seq: step.Seq(), Step: step, Status: StatusUnavailable, Summary: AbandonedSummary, StartedAt: now, FinishedAt: now}
		pending = append(pending, r)
		done[step] = r
	}
	return s.complete(ctx, *run, done, pending, now)
}

// Execute runs the steps of a run that its log does not hold yet, then its
// verdict, and completes it with its events. It is idempotent: a step
// already logged is not run or emitted again, and a completed run is left
// alone. It fails when the store does, so the job is retried.
func (s *Service) Execute(ctx context.Context, runID string) error {
	run, done, err := s.unfinished(ctx, runID)
	if err != nil || run == nil {
		return err
	}
	// Finished steps are logged in batches: a batch is flushed (one
	// commit, its events emitted together) before a step that may be slow,
	// and the last one commits with the run's completion. So a run's
	// background part costs one or two commits, and no event waits behind
	// a slow step.
	var pending []StepResult
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		logged, err := s.Store.AppendSteps(ctx, pending)
		if err != nil {
			return err
		}
		for _, l := range logged {
			done[l.Step] = l
		}
		pending = nil
		return nil
	}
	for _, step := range Steps[:6] {
		if _, ok := done[step]; ok {
			continue
		}
		if s.StepDelay > 0 || (step == StepOwnership && s.Ownership != nil) {
			if err := flush(); err != nil {
				return err
			}
		}
		if s.StepDelay > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(s.StepDelay):
			}
		}
		r := s.runStep(ctx, run.ID, step, run.Input)
		pending = append(pending, r)
		done[step] = r
	}
	return s.complete(ctx, *run, done, pending, s.now())
}

// complete logs the pending steps with the verdict that done (every step
// but the verdict) gives, completes the run and records its events, in one
// commit.
func (s *Service) complete(ctx context.Context, run Run, done map[Step]StepResult, pending []StepResult, now time.Time) error {
	ve := Final(done)
	pending = append(pending, StepResult{
		RunID: run.ID, Seq: StepVerdict.Seq(), Step: StepVerdict, Status: verdictStatus(ve.Verdict), Summary: ve.Reasoning,
		StartedAt: now, FinishedAt: now, Evidence: marshal(ve), Final: true,
	})
	return s.Store.CompleteRun(ctx, pending, ve, s.events(run, done, now))
}

func verdictStatus(v Verdict) Status {
	switch v {
	case VerdictFail:
		return StatusFail
	case VerdictPass:
		return StatusPass
	}
	return StatusReview
}

// maxMatchEvents bounds the kyc.match_detected events of one run.
const maxMatchEvents = 20

// events returns the webhook events of a completed run: one
// kyc.match_detected per hit (at most maxMatchEvents): a sanctions hit of
// the company or a director, a cluster-registry match of the company or a
// director, and a listed owner or blocked/possibly blocked result of the
// ownership step; and for a re-screen kyc.rescreen_completed, whose status
// is match when any step reported a hit, degraded when a lookup could not
// run (a degraded or unavailable step), else no_match.
func (s *Service) events(run Run, done map[Step]StepResult, at time.Time) []graph.Event {
	var evs []graph.Event
	hits := 0
	lists := []string{}
	emit := func(d webhooks.KYCMatchDetectedData) {
		hits++
		if len(evs) >= maxMatchEvents {
			return
		}
		d.ScreeningRunID, d.DetectedAt = run.ID, at
		evs = append(evs, graph.Event{ID: graph.NewID(), Type: graph.EventKYCMatchDetected, MemberID: run.MemberID, OccurredAt: at, Data: d})
	}
	sanctionsHits := func(ev SanctionsEvidence, subject string) {
		if len(ev.ListsScreened) > len(lists) {
			lists = ev.ListsScreened
		}
		for _, h := range ev.Hits {
			emit(webhooks.KYCMatchDetectedData{MatchKind: webhooks.MatchSanctions, Subject: subject, EntityName: ev.Name,
				ListID: h.List, ListEntryID: h.SourceID, MatchedName: h.MatchedName, Score: h.Score})
		}
	}
	clusterHits := func(ev ClusterEvidence, subject string) {
		for _, m := range ev.Matches {
			emit(webhooks.KYCMatchDetectedData{MatchKind: webhooks.MatchCluster, Subject: subject, EntityName: ev.Name,
				ListID: webhooks.ClusterRegistryList, ListEntryID: m.Slug, MatchedName: m.EntityName, Score: 1, Severity: m.Severity})
		}
	}
	var cl ClusterEvidence
	if unmarshal(done[StepClusterBlocklist].Evidence, &cl) {
		clusterHits(cl, webhooks.SubjectCompany)
	}
	var company SanctionsEvidence
	if unmarshal(done[StepSanctions].Evidence, &company) {
		sanctionsHits(company, webhooks.SubjectCompany)
	}
	var dirs []DirectorEvidence
	if unmarshal(done[StepDirectors].Evidence, &dirs) {
		for _, d := range dirs {
			clusterHits(d.Cluster, webhooks.SubjectDirector)
			sanctionsHits(d.Sanctions, webhooks.SubjectDirector)
		}
	}
	var own OwnershipExposure
	if unmarshal(done[StepOwnership].Evidence, &own) && own.Found {
		for _, o := range own.BlockedOwners {
			emit(webhooks.KYCMatchDetectedData{MatchKind: webhooks.MatchOwnership, Subject: webhooks.SubjectOwner, EntityName: run.Input.CompanyName,
				ListID: strings.Join(o.Lists, ","), ListEntryID: o.EntityID, MatchedName: o.Name, Score: o.EffectiveShare, OFAC50Rule: own.OFAC50Rule})
		}
		if len(own.BlockedOwners) == 0 && (own.OFAC50Rule == OFAC50Blocked || own.OFAC50Rule == OFAC50PossiblyBlocked) {
			emit(webhooks.KYCMatchDetectedData{MatchKind: webhooks.MatchOwnership, Subject: webhooks.SubjectCompany, EntityName: run.Input.CompanyName,
				ListEntryID: own.EntityID, MatchedName: run.Input.CompanyName, Score: 1, OFAC50Rule: own.OFAC50Rule})
		}
	}
	if run.Kind == KindRescreen || run.Kind == KindScheduled {
		status := "no_match"
		switch {
		case hits > 0:
			status = "match"
		case company.Degraded || lookupFailed(done):
			status = "degraded"
		}
		evs = append(evs, graph.Event{ID: graph.NewID(), Type: graph.EventKYCRescreenCompleted, MemberID: run.MemberID, OccurredAt: at,
			Data: webhooks.KYCRescreenCompletedData{ScreeningRunID: run.ID, EntityID: run.EntityID, EntityName: run.Input.CompanyName,
				Status: status, Verdict: string(Final(done).Verdict), HitCount: hits, ListsScreened: lists, CompletedAt: at}})
	}
	return evs
}

// lookupFailed reports whether a lookup step could not run: a degraded or
// unavailable cluster, sanctions, directors or ownership step, or a
// sanctions step missing from the log.
func lookupFailed(done map[Step]StepResult) bool {
	if _, ok := done[StepSanctions]; !ok {
		return true
	}
	for _, st := range []Step{StepClusterBlocklist, StepSanctions, StepDirectors, StepOwnership} {
		if r, ok := done[st]; ok && (r.Status == StatusDegraded || r.Status == StatusUnavailable) {
			return true
		}
	}
	return false
}

// GetRun returns the member's run. It fails with invalid naming id for a
// malformed id and not_found for an unknown run or another member's.
func (s *Service) GetRun(ctx context.Context, memberID, id string) (Run, error) {
	id, err := graph.ParseID("id", "", id)
	if err != nil {
		return Run{}, err
	}
	run, err := s.Store.Run(ctx, memberID, id)
	if err != nil {
		return Run{}, err
	}
	run.Fill()
	return run, nil
}

// GetDossier returns the member's dossier. It fails with invalid naming
// entity_id for a malformed id and not_found for an unknown dossier or
// another member's.
func (s *Service) GetDossier(ctx context.Context, memberID, entityID string) (Dossier, error) {
	id, err := graph.ParseID("entity_id", "", entityID)
	if err != nil {
		return Dossier{}, err
	}
	d, err := s.Store.Dossier(ctx, memberID, id)
	if err != nil {
		return Dossier{}, err
	}
	if d.LastScreenedAt != nil {
		next := d.LastScreenedAt.Add(RescreenEvery)
		d.NextRescreenAt = &next
	}
	if d.Runs == nil {
		d.Runs = []RunSummary{}
	}
	d.Coverage = Coverage()
	return d, nil
}

// Follow returns the member's run's events: those logged, then live ones,
// ending after the verdict. It fails like GetRun, and with unavailable when
// no progress feed is configured.
func (s *Service) Follow(ctx context.Context, memberID, id string) (<-chan StepResult, error) {
	run, err := s.GetRun(ctx, memberID, id)
	if err != nil {
		return nil, err
	}
	if s.Progress == nil {
		return nil, graph.Errorf(graph.CodeUnavailable, "live progress is not configured on this server")
	}
	return s.Progress.Follow(ctx, run.ID)
}
