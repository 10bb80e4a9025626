package relational

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/kyc"
)

var _ kyc.Store = (*DB)(nil)

// QueueKYC is the River queue screening runs and the re-screen schedule
// run on.
const QueueKYC = "kyc"

// ProgressChannel is the Postgres NOTIFY channel of run events; each
// payload is "run_id:seq".
const ProgressChannel = "pipeline"

// KYCRunAttempts is how many times a run's job tries its steps. River
// waits attempt^4 seconds between tries, so the last one starts about
// 4 h 15 min after the first. The job has one attempt more, at once after
// the last try: it only abandons the run (see KYCJobConfig.Abandon), so a
// run is closed whatever ended its tries, a panic or a dead instance
// included (River discards a job whose last attempt panics or is rescued
// without running any code of ours).
const KYCRunAttempts = 10

// kycRunArgs is the River job that runs a screening run's remaining steps.
type kycRunArgs struct {
	RunID string `json:"run_id"`
}

func (kycRunArgs) Kind() string { return "kyc_run" }

func (kycRunArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueKYC, MaxAttempts: KYCRunAttempts + 1}
}

// kycDueArgs is the periodic job that queues the 90-day re-screens.
type kycDueArgs struct{}

func (kycDueArgs) Kind() string { return "kyc_rescreen_due" }

func (kycDueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueKYC, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// KYCJobConfig configures the screening jobs of `compliance serve`.
type KYCJobConfig struct {
	// Execute runs a run's remaining steps (kyc.Service.Execute).
	Execute func(ctx context.Context, runID string) error
	// Abandon closes a run whose job failed its last attempt, its missing
	// steps unavailable (kyc.Service.Abandon), so that its subscribers see
	// it complete; nil leaves such a run running.
	Abandon func(ctx context.Context, runID string) error
	Workers int // concurrent runs per instance; 10 when zero
	// Idle: this instance works no runs and no schedule (KYC_WORKERS=0),
	// but registers the job kinds, so that as River's leader it still
	// queues the 90-day re-screens and rescues stuck runs for the others.
	Idle     bool
	DueEvery time.Duration // how often dossiers due for re-screen are queued; 1 h when zero
	// Timeout bounds one attempt of a run's job; 1 min when zero. A job
	// whose instance died is rescued by River's leader once this has
	// passed since its attempt began (its rescuer looks every 30 s).
	Timeout time.Duration
	Now     func() time.Time // nil: time.Now
}

// KYCJobs returns the job set that runs screening runs and, on the
// leader, queues the 90-day re-screens every cfg.DueEvery.
func (db *DB) KYCJobs(cfg KYCJobConfig) JobSet {
	if cfg.DueEvery <= 0 {
		cfg.DueEvery = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	return JobSet{
		Queue:      QueueKYC,
		MaxWorkers: cfg.Workers,
		Idle:       cfg.Idle,
		Add: func(w *river.Workers) error {
			if err := river.AddWorkerSafely(w, &kycRunWorker{exec: cfg.Execute, abandon: cfg.Abandon, timeout: cfg.Timeout}); err != nil {
				return err
			}
			return river.AddWorkerSafely(w, &kycDueWorker{db: db, now: cfg.Now})
		},
		Periodic: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(cfg.DueEvery),
			func() (river.JobArgs, *river.InsertOpts) {
				// Unique per interval, not per the default minute: a shorter
				// interval would otherwise be held to one check a minute.
				return kycDueArgs{}, &river.InsertOpts{Queue: QueueKYC, UniqueOpts: river.UniqueOpts{ByPeriod: cfg.DueEvery}}
			},
			&river.PeriodicJobOpts{RunOnStart: true})},
	}
}

type kycRunWorker struct {
	river.WorkerDefaults[kycRunArgs]
	exec    func(ctx context.Context, runID string) error
	abandon func(ctx context.Context, runID string) error
	timeout time.Duration
}

func (w *kycRunWorker) Timeout(*river.Job[kycRunArgs]) time.Duration { return w.timeout }

// NextRetry follows a failed last try of the steps at once with the
// attempt that abandons the run; River's default otherwise.
func (w *kycRunWorker) NextRetry(job *river.Job[kycRunArgs]) time.Time {
	if w.abandon != nil && job.Attempt == job.MaxAttempts-1 {
		return time.Now().Add(time.Second)
	}
	return time.Time{}
}

// Work runs the run's remaining steps. The job's last attempt only abandons
// the run instead (its missing steps unavailable, verdict at best review):
// every try before it failed, whether it returned an error, panicked, timed
// out or died with its instance, so that no run stays running for ever.
func (w *kycRunWorker) Work(ctx context.Context, job *river.Job[kycRunArgs]) error {
	if w.abandon != nil && job.Attempt >= job.MaxAttempts {
		// Not on the attempt's context: a shutdown ending it would have
		// River discard the job with the run still running.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		err := w.abandon(actx, job.Args.RunID)
		if graph.ErrorCode(err) == graph.CodeNotFound {
			return river.JobCancel(err)
		}
		if err != nil {
			return fmt.Errorf("abandon run: %w", err)
		}
		return nil
	}
	err := w.exec(ctx, job.Args.RunID)
	if graph.ErrorCode(err) == graph.CodeNotFound {
		return river.JobCancel(err)
	}
	return err
}

type kycDueWorker struct {
	river.WorkerDefaults[kycDueArgs]
	db  *DB
	now func() time.Time
}

func (w *kycDueWorker) Work(ctx context.Context, job *river.Job[kycDueArgs]) error {
	_, err := w.db.QueueDueRescreens(ctx, w.now())
	return err
}

// dueBatch bounds the re-screens one transaction of QueueDueRescreens
// queues.
const dueBatch = 1000

// StaleScheduledRun is how long an unfinished scheduled re-screen may
// block the next one: QueueDueRescreens completes an older one with verdict
// review and staleReasoning (its lookups are unavailable: it never
// finished), so a run whose job died or keeps failing does not stop the
// 90-day schedule. Its job, if it ever runs, finds it completed and does
// nothing.
const StaleScheduledRun = 24 * time.Hour

const staleReasoning = "unavailable: the scheduled re-screen did not complete within 24 h; closed so that the next one can be queued. Not a clearance."

// QueueDueRescreens queues a scheduled re-screen, with its job, for every
// dossier due (last screened more than 90 days before now, or never
// screened and created more than 90 days before now) that has no
// unfinished scheduled re-screen, in transactions of at most 1,000, and
// returns how many it queued. It first completes the unfinished scheduled
// re-screens older than StaleScheduledRun (see there). It fails with the
// database's error.
func (db *DB) QueueDueRescreens(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for {
		n := 0
		err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `
				UPDATE kyc_runs SET status = 'completed', verdict = 'review', verdict_reasoning = $3, completed_at = $1
				WHERE kind = 'scheduled' AND status <> 'completed' AND created_at < $1::timestamptz - $2::interval`,
				now.UTC(), StaleScheduledRun, staleReasoning); err != nil {
				return fmt.Errorf("close stale re-screens: %w", err)
			}
			rows, err := tx.Query(ctx, `
				INSERT INTO kyc_runs (id, member_id, entity_id, kind, status, input, verdict, verdict_reasoning, created_at)
				SELECT gen_random_uuid(), d.member_id, d.entity_id, 'scheduled', 'queued',
					jsonb_build_object('company_name', d.company_name, 'country', d.country, 'product', d.product,
						'directors', to_jsonb(d.directors), 'metadata', d.metadata),
					'pending', $2, $1
				FROM kyc_dossiers d
				WHERE (d.last_screened_at < $1::timestamptz - $3::interval
						OR (d.last_screened_at IS NULL AND d.created_at < $1::timestamptz - $3::interval))
					AND NOT EXISTS (SELECT 1 FROM kyc_runs r WHERE r.entity_id = d.entity_id AND r.kind = 'scheduled' AND r.status <> 'completed')
				ORDER BY coalesce(d.last_screened_at, d.created_at)
				LIMIT $4
				ON CONFLICT (entity_id) WHERE kind = 'scheduled' AND status <> 'completed' DO NOTHING
				RETURNING id::text`, now.UTC(), queuedReasoning, kyc.RescreenEvery, dueBatch)
			if err != nil {
				return fmt.Errorf("queue due re-screens: %w", err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return fmt.Errorf("queue due re-screens: %w", err)
			}
			n = len(ids)
			return db.enqueueRuns(ctx, tx, ids...)
		})
		total += n
		if err != nil || n < dueBatch {
			return total, err
		}
	}
}

const queuedReasoning = "pending: the re-screen is queued; no step has run yet. Not a clearance."

// enqueueRuns inserts the River jobs of runs in tx.
func (db *DB) enqueueRuns(ctx context.Context, tx pgx.Tx, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	ins, err := db.inserter()
	if err != nil {
		return err
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: kycRunArgs{RunID: id}}
	}
	if _, err := ins.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue runs: %w", err)
	}
	return nil
}

// CreateRun upserts the run's dossier, stores the run and its first steps,
// and enqueues its job, in one transaction.
func (db *DB) CreateRun(ctx context.Context, run *kyc.Run, done []kyc.StepResult) error {
	in := run.Input
	input, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `
			WITH d AS (
				INSERT INTO kyc_dossiers (entity_id, member_id, name_key, company_name, country, product, directors, metadata, created_at)
				VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8)
				ON CONFLICT (member_id, name_key) DO UPDATE SET company_name = EXCLUDED.company_name,
					product = EXCLUDED.product, directors = EXCLUDED.directors, metadata = EXCLUDED.metadata
				RETURNING entity_id
			), r AS (
				INSERT INTO kyc_runs (id, member_id, entity_id, kind, status, input, initial_verdict, verdict, verdict_reasoning, created_at)
				SELECT $9, $1, d.entity_id, $10, $11, $12, $13, $14, $15, $8 FROM d
				RETURNING entity_id
			)
			SELECT entity_id::text FROM r`,
			run.MemberID, kyc.NameKey(in), in.CompanyName, in.Country, in.Product, in.Directors, in.Metadata, run.CreatedAt,
			run.ID, run.Kind, run.Status, input, string(run.InitialVerdict), string(run.Verdict), run.VerdictReasoning).Scan(&run.EntityID)
		if err != nil {
			return fmt.Errorf("insert run: %w", err)
		}
		logged, err := appendSteps(ctx, tx, done)
		if err != nil {
			return err
		}
		copy(done, logged)
		return db.enqueueRuns(ctx, tx, run.ID)
	})
}

// QueueRescreen stores a queued run over the dossier's input and enqueues
// its job.
func (db *DB) QueueRescreen(ctx context.Context, memberID, entityID, kind string, at time.Time) (kyc.Run, error) {
	var run kyc.Run
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var d kyc.Dossier
		err := tx.QueryRow(ctx, `SELECT member_id::text, company_name, country, product, directors, metadata
			FROM kyc_dossiers WHERE entity_id = $1`, entityID).Scan(&d.MemberID, &d.CompanyName, &d.Country, &d.Product, &d.Directors, &d.Metadata)
		if errors.Is(err, pgx.ErrNoRows) {
			return graph.Errorf(graph.CodeNotFound, "no such dossier")
		}
		if err != nil {
			return fmt.Errorf("rescreen: %w", err)
		}
		if d.MemberID != memberID {
			return graph.Errorf(graph.CodeForbidden, "the dossier belongs to another member")
		}
		run = kyc.Run{ID: graph.NewID(), MemberID: memberID, EntityID: entityID, Kind: kind, Status: kyc.RunQueued,
			Verdict: kyc.VerdictPending, VerdictReasoning: queuedReasoning, Input: d.Input(), CreatedAt: at.UTC().Truncate(time.Microsecond)}
		input, err := json.Marshal(run.Input)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO kyc_runs (id, member_id, entity_id, kind, status, input, verdict, verdict_reasoning, created_at)
			VALUES ($1, $2, $3, $4, 'queued', $5, 'pending', $6, $7)`, run.ID, memberID, entityID, kind, input, run.VerdictReasoning, run.CreatedAt); err != nil {
			return fmt.Errorf("insert run: %w", err)
		}
		return db.enqueueRuns(ctx, tx, run.ID)
	})
	return run, err
}

const runColumns = `id::text, member_id::text, entity_id::text, kind, status, input, initial_verdict, verdict, verdict_reasoning, created_at, completed_at`

func scanRun(row pgx.Row) (kyc.Run, error) {
	var r kyc.Run
	var input []byte
	var initial, verdict string
	err := row.Scan(&r.ID, &r.MemberID, &r.EntityID, &r.Kind, &r.Status, &input, &initial, &verdict, &r.VerdictReasoning, &r.CreatedAt, &r.CompletedAt)
	if err != nil {
		return r, err
	}
	r.InitialVerdict, r.Verdict = kyc.Verdict(initial), kyc.Verdict(verdict)
	r.CreatedAt = r.CreatedAt.UTC()
	if r.CompletedAt != nil {
		t := r.CompletedAt.UTC()
		r.CompletedAt = &t
	}
	if err := json.Unmarshal(input, &r.Input); err != nil {
		return r, fmt.Errorf("run input: %w", err)
	}
	if r.Input.Directors == nil {
		r.Input.Directors = []string{}
	}
	return r, nil
}

// WorkRun returns a run with its logged steps, marking a queued run running.
func (db *DB) WorkRun(ctx context.Context, runID string) (kyc.Run, error) {
	// A queued run is marked running; any other is only read (no write,
	// no commit to wait for).
	r, err := scanRun(db.Pool.QueryRow(ctx, `
		WITH u AS (UPDATE kyc_runs SET status = 'running' WHERE id = $1 AND status = 'queued' RETURNING id)
		SELECT id::text, member_id::text, entity_id::text, kind, CASE WHEN EXISTS (SELECT 1 FROM u) THEN 'running' ELSE status END,
			input, initial_verdict, verdict, verdict_reasoning, created_at, completed_at
		FROM kyc_runs WHERE id = $1`, runID))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, graph.Errorf(graph.CodeNotFound, "no such screening run")
	}
	if err != nil {
		return r, fmt.Errorf("work run: %w", err)
	}
	r.Steps, err = db.RunSteps(ctx, runID, 0)
	return r, err
}

// Run returns the member's run with its logged steps.
func (db *DB) Run(ctx context.Context, memberID, runID string) (kyc.Run, error) {
	r, err := scanRun(db.Pool.QueryRow(ctx, `SELECT `+runColumns+` FROM kyc_runs WHERE id = $1 AND member_id = $2`, runID, memberID))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, graph.Errorf(graph.CodeNotFound, "no such screening run")
	}
	if err != nil {
		return r, fmt.Errorf("run: %w", err)
	}
	r.Steps, err = db.RunSteps(ctx, runID, 0)
	return r, err
}

const stepColumns = `run_id::text, seq, step, status, started_at, finished_at, emitted_at, summary, payload`

func scanStep(row pgx.Row) (kyc.StepResult, error) { return scanStepWith(row) }

// scanStepWith scans a step followed by extra columns into extra.
func scanStepWith(row pgx.Row, extra ...any) (kyc.StepResult, error) {
	var s kyc.StepResult
	var step, status string
	var payload []byte
	dst := append([]any{&s.RunID, &s.Seq, &step, &status, &s.StartedAt, &s.FinishedAt, &s.EmittedAt, &s.Summary, &payload}, extra...)
	err := row.Scan(dst...)
	s.Step, s.Status, s.Evidence = kyc.Step(step), kyc.Status(status), payload
	s.StartedAt, s.FinishedAt, s.EmittedAt = s.StartedAt.UTC(), s.FinishedAt.UTC(), s.EmittedAt.UTC()
	s.Final = s.Step == kyc.StepVerdict
	return s, err
}

// RunSteps returns the run's logged steps with seq above after, in order.
func (db *DB) RunSteps(ctx context.Context, runID string, after int) ([]kyc.StepResult, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+stepColumns+` FROM kyc_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq`, runID, after)
	if err != nil {
		return nil, fmt.Errorf("run steps: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanned(scanStep))
	if err != nil {
		return nil, fmt.Errorf("run steps: %w", err)
	}
	return out, nil
}

// appendStepSQL inserts a step unless its seq is logged and, when it
// inserted, notifies ProgressChannel, in one statement.
const appendStepSQL = `
	WITH ins AS (
		INSERT INTO kyc_run_events (run_id, seq, step, status, started_at, finished_at, summary, payload)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (run_id, seq) DO NOTHING
		RETURNING ` + stepColumns + `
	)
	SELECT ins.*, pg_notify('` + ProgressChannel + `', $1::text || ':' || $2::text) FROM ins`

// appendSteps records steps in tx, pipelined in one round trip, and
// returns them as logged.
func appendSteps(ctx context.Context, tx pgx.Tx, steps []kyc.StepResult) ([]kyc.StepResult, error) {
	b := &pgx.Batch{}
	for _, s := range steps {
		ev := s.Evidence
		if len(ev) == 0 {
			ev = json.RawMessage("null")
		}
		b.Queue(appendStepSQL, s.RunID, s.Seq, string(s.Step), string(s.Status), s.StartedAt, s.FinishedAt, s.Summary, ev)
	}
	res := tx.SendBatch(ctx, b)
	out := make([]kyc.StepResult, len(steps))
	var again []int // seqs logged before
	for i := range steps {
		var notified any
		l, err := scanStepWith(res.QueryRow(), &notified)
		if errors.Is(err, pgx.ErrNoRows) {
			again = append(again, i)
			continue
		}
		if err != nil {
			res.Close()
			return nil, fmt.Errorf("append steps: %w", err)
		}
		out[i] = l
	}
	if err := res.Close(); err != nil {
		return nil, fmt.Errorf("append steps: %w", err)
	}
	for _, i := range again { // a retried job keeps what was logged first
		l, err := scanStep(tx.QueryRow(ctx, `SELECT `+stepColumns+` FROM kyc_run_events WHERE run_id = $1 AND seq = $2`, steps[i].RunID, steps[i].Seq))
		if err != nil {
			return nil, fmt.Errorf("append steps: %w", err)
		}
		out[i] = l
	}
	return out, nil
}

// AppendSteps records finished steps and notifies subscribers, in one
// transaction.
func (db *DB) AppendSteps(ctx context.Context, steps []kyc.StepResult) ([]kyc.StepResult, error) {
	var out []kyc.StepResult
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		var err error
		out, err = appendSteps(ctx, tx, steps)
		return err
	})
	return out, err
}

// CompleteRun records the last steps (the verdict among them), the final
// verdict, the dossier's screening time and the run's events, in one
// transaction.
func (db *DB) CompleteRun(ctx context.Context, steps []kyc.StepResult, ve kyc.VerdictEvidence, events []graph.Event) error {
	if len(steps) == 0 || steps[len(steps)-1].Step != kyc.StepVerdict {
		return errors.New("complete run: the verdict step must come last")
	}
	verdict := steps[len(steps)-1]
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		// The run's row lock serialises completions; a completed run is
		// left as it is.
		tag, err := tx.Exec(ctx, `
			WITH r AS (
				UPDATE kyc_runs SET status = 'completed', verdict = $2, verdict_reasoning = $3, completed_at = $4
				WHERE id = $1 AND status <> 'completed'
				RETURNING entity_id
			)
			UPDATE kyc_dossiers d SET last_screened_at = greatest(coalesce(d.last_screened_at, $4), $4)
			FROM r WHERE d.entity_id = r.entity_id`,
			verdict.RunID, string(ve.Verdict), ve.Reasoning, verdict.FinishedAt)
		if err != nil {
			return fmt.Errorf("complete run: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil // completed before, or unknown
		}
		if _, err := appendSteps(ctx, tx, steps); err != nil {
			return err
		}
		return db.publishTx(ctx, tx, events...)
	})
}

// Dossier returns the member's dossier with its 20 latest runs.
func (db *DB) Dossier(ctx context.Context, memberID, entityID string) (kyc.Dossier, error) {
	var d kyc.Dossier
	err := db.Pool.QueryRow(ctx, `SELECT entity_id::text, member_id::text, company_name, country, product, directors, metadata, created_at, last_screened_at
		FROM kyc_dossiers WHERE entity_id = $1 AND member_id = $2`, entityID, memberID).Scan(
		&d.EntityID, &d.MemberID, &d.CompanyName, &d.Country, &d.Product, &d.Directors, &d.Metadata, &d.CreatedAt, &d.LastScreenedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, graph.Errorf(graph.CodeNotFound, "no such dossier")
	}
	if err != nil {
		return d, fmt.Errorf("dossier: %w", err)
	}
	d.CreatedAt = d.CreatedAt.UTC()
	if d.LastScreenedAt != nil {
		t := d.LastScreenedAt.UTC()
		d.LastScreenedAt = &t
	}
	if d.Directors == nil {
		d.Directors = []string{}
	}
	rows, err := db.Pool.Query(ctx, `SELECT id::text, kind, status, verdict, created_at, completed_at FROM kyc_runs
		WHERE entity_id = $1 ORDER BY created_at DESC, id LIMIT 20`, entityID)
	if err != nil {
		return d, fmt.Errorf("dossier runs: %w", err)
	}
	defer rows.Close()
	d.Runs = []kyc.RunSummary{}
	for rows.Next() {
		var r kyc.RunSummary
		var verdict string
		if err := rows.Scan(&r.ID, &r.Kind, &r.Status, &verdict, &r.CreatedAt, &r.CompletedAt); err != nil {
			return d, fmt.Errorf("dossier runs: %w", err)
		}
		r.Verdict, r.CreatedAt = kyc.Verdict(verdict), r.CreatedAt.UTC()
		if r.CompletedAt != nil {
			t := r.CompletedAt.UTC()
			r.CompletedAt = &t
		}
		d.Runs = append(d.Runs, r)
	}
	return d, rows.Err()
}
