package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/kyc"
)

// The KYC endpoints: a production key with the "kyc" scope; runs and
// dossiers are the caller's member's only.

func (s *server) kycService() (*kyc.Service, error) {
	if s.KYC == nil {
		return nil, graph.Errorf(graph.CodeUnavailable, "KYC screening is not configured on this server")
	}
	return s.KYC, nil
}

// screenBody is the body of POST /api/v1/kyc/screen.
type screenBody struct {
	CompanyName string          `json:"company_name"`
	Country     string          `json:"country"`
	Product     string          `json:"product"`
	Directors   []string        `json:"directors"`
	Metadata    json.RawMessage `json:"metadata"`
}

// kycScreen runs the synchronous checks and starts the run:
// POST /api/v1/kyc/screen.
func (s *server) kycScreen(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.kycService()
	if err != nil {
		return err
	}
	var body screenBody
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	c := graph.CallerFrom(r.Context())
	run, err := svc.Screen(r.Context(), c.Member.ID, kyc.Input{
		CompanyName: body.CompanyName, Country: body.Country, Product: body.Product, Directors: body.Directors, Metadata: body.Metadata,
	})
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, run)
	return nil
}

// kycRescreen queues a re-screen of a dossier: POST /api/v1/kyc/rescreen.
func (s *server) kycRescreen(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.kycService()
	if err != nil {
		return err
	}
	var body struct {
		EntityID string `json:"entity_id"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if strings.TrimSpace(body.EntityID) == "" {
		return graph.Invalid("entity_id", "entity_id is required")
	}
	run, err := svc.Rescreen(r.Context(), graph.CallerFrom(r.Context()).Member.ID, body.EntityID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusAccepted, map[string]any{
		"screening_run_id": run.ID, "entity_id": run.EntityID, "status": run.Status, "queued_at": run.CreatedAt,
		"events_url": "/api/v1/kyc/runs/" + run.ID + "/events",
	})
	return nil
}

// kycRun returns a run with every step: GET /api/v1/kyc/runs/{id}.
func (s *server) kycRun(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.kycService()
	if err != nil {
		return err
	}
	run, err := svc.GetRun(r.Context(), graph.CallerFrom(r.Context()).Member.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, run)
	return nil
}

// kycDossier returns a dossier: GET /api/v1/kyc/dossiers/{entity_id}.
func (s *server) kycDossier(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.kycService()
	if err != nil {
		return err
	}
	d, err := svc.GetDossier(r.Context(), graph.CallerFrom(r.Context()).Member.ID, r.PathValue("entity_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, d)
	return nil
}

// sseKeepAlive is how often an idle event stream sends a comment line.
const sseKeepAlive = 15 * time.Second

// kycRunEvents streams a run's progress as Server-Sent Events:
// GET /api/v1/kyc/runs/{id}/events. Each step is an "step" event whose id
// is its seq (Last-Event-ID resumes after it); the stream ends with a
// "completed" event carrying the run, then closes.
func (s *server) kycRunEvents(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.kycService()
	if err != nil {
		return err
	}
	ctx := r.Context()
	member := graph.CallerFrom(ctx).Member.ID
	after := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > len(kyc.Steps) {
			return graph.Invalid("Last-Event-ID", "Last-Event-ID must be a seq from 0 to %d", len(kyc.Steps))
		}
		after = n
	}
	events, err := svc.Follow(ctx, member, r.PathValue("id"))
	if err != nil {
		return err
	}
	out, err := openStream(w)
	if err != nil {
		return err
	}
	h := out.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	out.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(out)
	fmt.Fprintf(out, ": screening run %s\n\n", r.PathValue("id"))
	rc.Flush()
	tick := time.NewTicker(sseKeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			fmt.Fprint(out, ": keep-alive\n\n")
			if rc.Flush() != nil {
				return nil
			}
		case ev, ok := <-events:
			if !ok {
				// The feed ended without a final event: the client left, or
				// the run was completed without one (a stale scheduled
				// re-screen closed by the schedule); the latter still ends
				// with the completed run.
				if ctx.Err() == nil {
					if b, err := s.completedRun(ctx, svc, member, r.PathValue("id")); err == nil {
						fmt.Fprintf(out, "event: completed\ndata: %s\n\n", b)
						rc.Flush()
					}
				}
				return nil
			}
			if ev.Seq > after {
				b := ev.JSON
				if b == nil {
					b, _ = json.Marshal(ev)
				}
				fmt.Fprintf(out, "id: %d\nevent: step\ndata: %s\n\n", ev.Seq, b)
			}
			if rc.Flush() != nil {
				return nil
			}
			if ev.Final {
				if b, err := s.completedRun(ctx, svc, member, ev.RunID); err == nil {
					fmt.Fprintf(out, "event: completed\ndata: %s\n\n", b)
					rc.Flush()
				}
				return nil
			}
		}
	}
}

// runCache holds the JSON of completed runs (which never change) for the
// completed event of their streams: many subscribers of one run read it
// once.
type runCache struct {
	mu   sync.Mutex
	runs map[string]*cachedRun
}

type cachedRun struct {
	once sync.Once
	b    []byte
	err  error
}

// completedRun returns the JSON of a completed run the stream's caller
// owns (Follow checked it).
func (s *server) completedRun(ctx context.Context, svc *kyc.Service, member, id string) ([]byte, error) {
	c := &s.kycRuns
	c.mu.Lock()
	if c.runs == nil || len(c.runs) > 1000 {
		c.runs = map[string]*cachedRun{}
	}
	e, ok := c.runs[id]
	if !ok {
		e = &cachedRun{}
		c.runs[id] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		run, err := svc.GetRun(gctx, member, id)
		if err == nil && run.Status != kyc.RunCompleted {
			err = graph.Errorf(graph.CodeConflict, "run not completed")
		}
		if err != nil {
			e.err = err
			c.mu.Lock()
			delete(c.runs, id) // the next stream tries again
			c.mu.Unlock()
			return
		}
		e.b, e.err = json.Marshal(run)
	})
	return e.b, e.err
}

// openStream makes the request's audit row durable (status 200; a stream
// has no body hash) and returns the writer that reaches the client
// directly, past the audit spool.
func openStream(w http.ResponseWriter) (http.ResponseWriter, error) {
	sp, ok := w.(*spool)
	if !ok {
		return w, nil
	}
	if sp.hijacked != nil {
		if err := sp.hijacked(http.StatusOK); err != nil {
			return nil, &graph.Error{Code: graph.CodeUnavailable, Message: "the audit trail is unavailable, so the stream was not opened; retry later", Err: err}
		}
	}
	sp.didHijack = true
	sp.status = http.StatusOK
	return sp.w, nil
}
