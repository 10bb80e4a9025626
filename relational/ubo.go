package relational

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ubo"
)

var _ ubo.Store = (*DB)(nil)

// QueueUBO is the River queue UBO graph builds run on.
const QueueUBO = "ubo"

// uboBuildArgs is the River job that builds one queued UBO graph.
type uboBuildArgs struct {
	GraphID string `json:"graph_id"`
}

func (uboBuildArgs) Kind() string { return "ubo_build" }

// uboMaxAttempts bounds a build's attempts. A build fails only when a
// dependency (the graph database) does; River retries it with backoff,
// and the last failure writes the graph ready with risk unknown.
const uboMaxAttempts = 10

func (uboBuildArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueUBO, MaxAttempts: uboMaxAttempts}
}

// uboLockKey namespaces the advisory locks of UBO requests.
const uboLockKey int32 = 740231188

const uboColumns = `id::text, root_name, jurisdiction, max_hops, status, requested_at, built_at, result`

func scanUBOGraph(row pgx.Row) (ubo.Graph, error) {
	var g ubo.Graph
	var raw []byte
	if err := row.Scan(&g.GraphID, &g.RootEntityName, &g.RootJurisdiction, &g.MaxHops, &g.Status, &g.RequestedAt, &g.BuiltAt, &raw); err != nil {
		return g, err
	}
	g.RequestedAt = g.RequestedAt.UTC()
	if g.BuiltAt != nil {
		t := g.BuiltAt.UTC()
		g.BuiltAt = &t
	}
	if raw != nil {
		g.Result = new(ubo.Result)
		if err := json.Unmarshal(raw, g.Result); err != nil {
			return g, fmt.Errorf("ubo graph %s result: %w", g.GraphID, err)
		}
	}
	return g, nil
}

// RequestGraph implements ubo.Store: under a per-(member, key) advisory
// lock, the newest cacheable ready graph built since builtSince (a failed
// build or a root not found is never reused), else the queued one,
// else a new queued row and its build job.
func (db *DB) RequestGraph(ctx context.Context, memberID, id string, req ubo.Request, key ubo.Key, builtSince time.Time) (ubo.Graph, bool, error) {
	var (
		g      ubo.Graph
		cached bool
	)
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		lock := fmt.Sprintf("%s|%s|%s|%d", memberID, key.RootName, key.Jurisdiction, key.MaxHops)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, uboLockKey, lock); err != nil {
			return err
		}
		var err error
		g, err = scanUBOGraph(tx.QueryRow(ctx, `SELECT `+uboColumns+` FROM ubo_graphs
			WHERE member_id = $1 AND root_name_normalized = $2 AND jurisdiction = $3 AND max_hops = $4
			  AND ((status = 'ready' AND cacheable AND built_at >= $5) OR status = 'queued')
			ORDER BY status = 'ready' DESC, built_at DESC NULLS LAST, requested_at DESC LIMIT 1`,
			memberID, key.RootName, key.Jurisdiction, key.MaxHops, builtSince))
		if err == nil {
			cached = g.Status == ubo.StatusReady
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("find ubo graph: %w", err)
		}
		g, err = scanUBOGraph(tx.QueryRow(ctx, `INSERT INTO ubo_graphs (id, member_id, root_name, root_name_normalized, jurisdiction, max_hops, status)
			VALUES ($1, $2, $3, $4, $5, $6, 'queued') RETURNING `+uboColumns,
			id, memberID, req.RootEntityName, key.RootName, key.Jurisdiction, key.MaxHops))
		if err != nil {
			return fmt.Errorf("queue ubo graph: %w", err)
		}
		ins, err := db.inserter()
		if err != nil {
			return err
		}
		if _, err := ins.InsertTx(ctx, tx, uboBuildArgs{GraphID: id}, nil); err != nil {
			return fmt.Errorf("enqueue ubo build: %w", err)
		}
		return nil
	})
	return g, cached, err
}

// Graph implements ubo.Store.
func (db *DB) Graph(ctx context.Context, memberID, id string) (ubo.Graph, error) {
	g, err := scanUBOGraph(db.Pool.QueryRow(ctx, `SELECT `+uboColumns+` FROM ubo_graphs WHERE id = $1 AND member_id = $2`, id, memberID))
	if errors.Is(err, pgx.ErrNoRows) {
		return ubo.Graph{}, graph.Errorf(graph.CodeNotFound, "no such UBO graph")
	}
	if err != nil {
		return ubo.Graph{}, fmt.Errorf("ubo graph: %w", err)
	}
	return g, nil
}

// finishUBOGraph writes a queued graph's result and moves it to ready,
// cacheable only when res.Cacheable. A graph already ready (a rescued job
// that ran twice) is left as it is.
func (db *DB) finishUBOGraph(ctx context.Context, id string, res *ubo.Result, builtAt time.Time) error {
	raw, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("ubo graph %s result: %w", id, err)
	}
	_, err = db.Pool.Exec(ctx, `UPDATE ubo_graphs SET status = 'ready', built_at = $2, result = $3, cacheable = $4
		WHERE id = $1 AND status = 'queued'`, id, builtAt, raw, res.Cacheable())
	if err != nil {
		return fmt.Errorf("finish ubo graph: %w", err)
	}
	return nil
}

// UBOJobs returns the job set that builds queued UBO graphs with b, for
// WebhookWorkerConfig.Jobs. now is the build clock (nil: time.Now).
func (db *DB) UBOJobs(b ubo.GraphBuilder, now func() time.Time, log *slog.Logger) JobSet {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = db.log
	}
	return JobSet{
		Queue:      QueueUBO,
		MaxWorkers: 4,
		Add: func(w *river.Workers) error {
			return river.AddWorkerSafely(w, &uboWorker{db: db, b: b, now: now, log: log})
		},
	}
}

type uboWorker struct {
	river.WorkerDefaults[uboBuildArgs]
	db  *DB
	b   ubo.GraphBuilder
	now func() time.Time
	log *slog.Logger
}

// NextRetry retries a failed build soon, doubling to 5 minutes.
func (w *uboWorker) NextRetry(job *river.Job[uboBuildArgs]) time.Time {
	shift := min(max(job.Attempt-1, 0), 9)
	return time.Now().Add(min(time.Second<<shift, 5*time.Minute))
}

// Work builds the job's graph and writes it ready. A failed build is
// retried; its last attempt writes the graph ready with risk unknown and
// the reason, so a graph never stays queued for ever.
func (w *uboWorker) Work(ctx context.Context, job *river.Job[uboBuildArgs]) error {
	id := job.Args.GraphID
	var (
		name, jur string
		hops      int
		status    string
	)
	err := w.db.Pool.QueryRow(ctx, `SELECT root_name, jurisdiction, max_hops, status FROM ubo_graphs WHERE id = $1`, id).Scan(&name, &jur, &hops, &status)
	if errors.Is(err, pgx.ErrNoRows) || status == ubo.StatusReady {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load ubo graph: %w", err)
	}
	res, err := w.b.Build(ctx, ubo.Request{RootEntityName: name, RootJurisdiction: jur, MaxHops: hops})
	if err != nil {
		log := w.log.With("graph_id", id, "attempt", job.Attempt)
		if job.Attempt < job.MaxAttempts {
			log.Warn("ubo build failed; will retry", "err", err)
			return err
		}
		log.Error("ubo build failed on its last attempt; written ready with risk unknown", "err", err)
		res = ubo.Failed(err)
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return w.db.finishUBOGraph(wctx, id, res, w.now().UTC())
}
