package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
)

// kycRun is a screening run as REST shows it.
type kycRun struct {
	ID               string `json:"screening_run_id"`
	EntityID         string `json:"entity_id"`
	Kind             string `json:"kind"`
	Status           string `json:"status"`
	Verdict          string `json:"verdict"`
	VerdictReasoning string `json:"verdict_reasoning"`
	InitialVerdict   string `json:"initial_verdict"`
	Checks           map[string]struct {
		Status  string `json:"status"`
		Summary string `json:"summary"`
	} `json:"checks"`
	Steps    []kycStep `json:"steps"`
	Coverage struct {
		SanctionsOnly bool     `json:"sanctions_only"`
		PEPScreening  bool     `json:"pep_screening"`
		Caveats       []string `json:"caveats"`
	} `json:"coverage"`
}

type kycStep struct {
	RunID      string          `json:"screening_run_id"`
	Seq        int             `json:"seq"`
	Step       string          `json:"step"`
	Status     string          `json:"status"`
	Summary    string          `json:"summary"`
	StartedAt  string          `json:"started_at"`
	FinishedAt string          `json:"finished_at"`
	EmittedAt  string          `json:"emitted_at"`
	Evidence   json.RawMessage `json:"evidence"`
	Final      bool            `json:"final"`
}

func (s kycStep) stepStatus() string { return s.Step + "=" + s.Status }

func stepSeqs(steps []kycStep) []int {
	out := []int{}
	for _, s := range steps {
		out = append(out, s.Seq)
	}
	return out
}

var allSeqs = []int{1, 2, 3, 4, 5, 6, 7}

func decodeData[T any](t testing.TB, r response) T {
	t.Helper()
	var env struct {
		OK   bool `json:"ok"`
		Data T    `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || !env.OK {
		t.Fatalf("not a success envelope (%v): %d %s", err, r.status, r.body)
	}
	return env.Data
}

// screen posts a screening and returns the run, failing unless 200.
func (in *instance) screen(key string, body any) kycRun {
	in.t.Helper()
	r := in.do("POST", "/api/v1/kyc/screen", key, body)
	if r.status != 200 {
		in.t.Fatalf("POST /api/v1/kyc/screen = %d %s", r.status, r.body)
	}
	return decodeData[kycRun](in.t, r)
}

// completedRun polls GET /api/v1/kyc/runs/{id} until the run completes.
func (in *instance) completedRun(key, id string) kycRun {
	in.t.Helper()
	var run kycRun
	waitFor(in.t, 20*time.Second, "run "+id+" to complete", func() bool {
		r := in.do("GET", "/api/v1/kyc/runs/"+id, key, nil)
		if r.status != 200 {
			in.t.Fatalf("GET run = %d %s", r.status, r.body)
		}
		run = decodeData[kycRun](in.t, r)
		return run.Status == "completed"
	})
	return run
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	ID, Event string
	Data      []byte
	At        time.Time
}

// sseOpen opens the run's event stream, failing unless it answers 200.
func sseOpen(t testing.TB, in *instance, key, runID string, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", in.base+"/api/v1/kyc/runs/"+runID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("GET events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}

// sseReadAll reads the stream to its end (the server closes it after the
// completed event), within timeout.
func sseReadAll(t testing.TB, resp *http.Response, timeout time.Duration) []sseEvent {
	t.Helper()
	defer resp.Body.Close()
	timer := time.AfterFunc(timeout, func() { resp.Body.Close() })
	defer timer.Stop()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Event != "" {
				cur.At = time.Now()
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.Event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.Data = []byte(line[6:])
		}
	}
	if len(out) == 0 || out[len(out)-1].Event != "completed" {
		t.Fatalf("stream ended without a completed event after %d events", len(out))
	}
	return out
}

// sseSteps returns the step events' payloads.
func sseSteps(t testing.TB, evs []sseEvent) []kycStep {
	t.Helper()
	var out []kycStep
	for _, e := range evs {
		if e.Event != "step" {
			continue
		}
		var s kycStep
		if err := json.Unmarshal(e.Data, &s); err != nil {
			t.Fatal(err)
		}
		if strconv.Itoa(s.Seq) != e.ID {
			t.Errorf("event id %s for seq %d", e.ID, s.Seq)
		}
		out = append(out, s)
	}
	return out
}

const progressQuery = `subscription($id: UUID!) { screeningProgress(runId: $id) { screeningRunId seq step status summary final } }`

// wsFollow subscribes to the run's progress over graphql-transport-ws and
// returns the seqs received until complete.
func wsFollow(t *testing.T, in *instance, key, runID string) (*websocket.Conn, func() []int) {
	t.Helper()
	c := wsDial(t, in, "graphql-transport-ws", nil)
	wsSend(t, c, map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}})
	if m := wsRead(t, c); m.Type != "connection_ack" {
		t.Fatalf("connection_init: %s %s", m.Type, m.Payload)
	}
	wsSend(t, c, map[string]any{"id": "p", "type": "subscribe", "payload": map[string]any{"query": progressQuery, "variables": map[string]any{"id": runID}}})
	return c, func() []int {
		var got []int
		for {
			m := wsRead(t, c)
			switch m.Type {
			case "next":
				var p struct {
					Data struct {
						ScreeningProgress struct {
							ScreeningRunID string `json:"screeningRunId"`
							Seq            int    `json:"seq"`
							Final          bool   `json:"final"`
						} `json:"screeningProgress"`
					} `json:"data"`
					Errors []any `json:"errors"`
				}
				if err := json.Unmarshal(m.Payload, &p); err != nil || len(p.Errors) > 0 {
					t.Fatalf("next: %v %s", err, m.Payload)
				}
				if p.Data.ScreeningProgress.ScreeningRunID != runID {
					t.Fatalf("event of run %s, want %s", p.Data.ScreeningProgress.ScreeningRunID, runID)
				}
				got = append(got, p.Data.ScreeningProgress.Seq)
			case "complete":
				return got
			default:
				t.Fatalf("unexpected message %s %s", m.Type, m.Payload)
			}
		}
	}
}

// ingestSDN loads a one-entry us_sdn list into env's database.
func ingestSDN(t *testing.T, env []string, name string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sdn.jsonl")
	line := fmt.Sprintf(`{"list": "us_sdn", "source_id": "E2E-1", "kind": "entity", "name": %q, "programs": ["IRAN"]}`+"\n", name)
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	runCLI(t, env, "sanctions", "ingest", "--list", "us_sdn", p)
}

const sanctionedName = "Shadow Fleet Petroleum Trading LLC"

// kycClusters are fictional registry records the KYC tests import.
const kycClusters = `{"slug":"e2e-phantom-cargo","entity_name":"Phantom Cargo Brokers Ltd","aliases":["PCB Fuels"],"severity":"confirmed","country":"AE","source":"e2e fixture"}
{"slug":"e2e-probable-fuel","entity_name":"Probable Fuel Partners","severity":"likely","country":"NG","source":"e2e fixture"}
{"slug":"e2e-rumoured-bunker","entity_name":"Rumoured Bunker Traders","severity":"suspected","country":"GB","source":"e2e fixture"}
`

// importClusters loads kycClusters into env's database.
func importClusters(t *testing.T, env []string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "clusters.jsonl")
	if err := os.WriteFile(p, []byte(kycClusters), 0o644); err != nil {
		t.Fatal(err)
	}
	runCLI(t, env, "clusters", "import", p)
}

// The screening surface end to end: the synchronous verdict, bad input,
// auth, the completed run, dossiers, re-screens with their webhook events,
// the SSE replay and GraphQL with the same answers as REST.
func TestE2EKYC(t *testing.T) {
	env := testEnv(t, "WEBHOOK_ALLOW_PRIVATE_TARGETS=true", "SANCTIONS_RELOAD_INTERVAL=200ms")
	runCLI(t, env, "migrate")
	ingestSDN(t, env, sanctionedName)
	importClusters(t, env)
	in := serveOnly(t, env)
	k := in.key("kyc-acme")
	other := in.key("kyc-other")
	noScope := in.key("kyc-acme", "webhooks")
	recv := newReceiver(t)
	in.subscribe(k.Key, recv.url("/kyc"), "", "kyc.rescreen_completed", "kyc.match_detected")

	t.Run("synchronous verdicts", func(t *testing.T) {
		tests := []struct {
			name                 string
			body                 map[string]any
			verdict              string
			cluster, tradability string
			reasoning            string
		}{
			{"both pass: pending, not a clearance", map[string]any{"company_name": "Nordic Fjord Energy AS", "country": "Norway", "product": "crude", "directors": []string{"Kari Nordmann"}},
				"pending", "pass", "pass", "still running. Not a clearance"},
			{"blocked tradability fails", map[string]any{"company_name": "Persian Gulf Crude Co", "country": "IR", "product": "crude"},
				"fail", "pass", "fail", "regulatory_tradability fail: Iran"},
			{"restricted tradability", map[string]any{"company_name": "Volga Export LLC", "country": "Russia", "product": "diesel"},
				"review", "pass", "review", "restricted"},
			{"no country: tradability not checked", map[string]any{"company_name": "Nowhere Trading Ltd"},
				"pending", "pass", "not_checked", "tradability not assessed"},
			{"confirmed cluster fails", map[string]any{"company_name": "Phantom Cargo Brokers Ltd", "country": "AE", "product": "crude"},
				"fail", "fail", "pass", "matches a confirmed scam-cluster record: Phantom Cargo Brokers Ltd (confirmed)"},
			{"confirmed cluster by alias, country not given", map[string]any{"company_name": "P.C.B. fuels"},
				"fail", "fail", "not_checked", "confirmed scam-cluster record"},
			{"likely cluster: review", map[string]any{"company_name": "Probable Fuel Partners"},
				"review", "review", "not_checked", "rated likely"},
			{"suspected cluster: review, a lead", map[string]any{"company_name": "Rumoured Bunker Traders", "country": "United Kingdom", "product": "lpg"},
				"review", "review", "pass", "a publicly reported lead, not a confirmed fraud"},
			{"confirmed cluster record of another country: review, same name other jurisdiction", map[string]any{"company_name": "Phantom Cargo Brokers Ltd", "country": "Norway", "product": "lng"},
				"review", "review", "pass", "same name in another jurisdiction (AE, claimed NO)"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				run := in.screen(k.Key, tt.body)
				if run.Verdict != tt.verdict || run.InitialVerdict != tt.verdict || run.Checks["cluster_blocklist"].Status != tt.cluster ||
					run.Checks["regulatory_tradability"].Status != tt.tradability || !strings.Contains(run.VerdictReasoning, tt.reasoning) {
					t.Errorf("screen = verdict %s, checks %+v, reasoning %q; want %s, cluster %s, tradability %s, reasoning with %q",
						run.Verdict, run.Checks, run.VerdictReasoning, tt.verdict, tt.cluster, tt.tradability, tt.reasoning)
				}
				if run.Status != "running" || run.Kind != "screen" || !reflect.DeepEqual(stepSeqs(run.Steps), []int{1, 2}) || run.EntityID == "" {
					t.Errorf("screen = status %s kind %s steps %v entity %q; want running screen [1 2] and a dossier", run.Status, run.Kind, stepSeqs(run.Steps), run.EntityID)
				}
				if !run.Coverage.SanctionsOnly || run.Coverage.PEPScreening || !strings.Contains(strings.Join(run.Coverage.Caveats, " "), "Adverse media is unmeasured") {
					t.Errorf("coverage = %+v, want sanctions-only, no PEP, adverse media unmeasured", run.Coverage)
				}
			})
		}
	})

	t.Run("bad input names the field", func(t *testing.T) {
		tests := []struct {
			name  string
			body  any
			code  string
			field string
		}{
			{"no company_name", map[string]any{"country": "NO"}, "invalid", "company_name"},
			{"blank company_name", map[string]any{"company_name": "  - "}, "invalid", "company_name"},
			{"company_name not a string", map[string]any{"company_name": 7}, "invalid", "company_name"},
			{"unknown product", map[string]any{"company_name": "Acme", "product": "uranium"}, "invalid_param", "product"},
			{"unknown country", map[string]any{"company_name": "Acme", "country": "Atlantis"}, "invalid", "country"},
			{"bad director", map[string]any{"company_name": "Acme", "directors": []string{"Jane Doe", "?"}}, "invalid", "directors[1]"},
			{"directors not an array", map[string]any{"company_name": "Acme", "directors": "Jane"}, "invalid", "directors"},
			{"metadata not an object", map[string]any{"company_name": "Acme", "metadata": []int{1}}, "invalid", "metadata"},
			{"NUL in company_name", `{"company_name": "Acme\u0000Oil"}`, "invalid", "company_name"},
			{"NUL in metadata", `{"company_name": "Acme", "metadata": {"a": "\u0000"}}`, "invalid", "metadata"},
			{"invalid UTF-8 in metadata", "{\"company_name\": \"Acme\", \"metadata\": {\"a\": \"\xff\"}}", "invalid", "metadata"},
			{"malformed JSON", `{"company_name": `, "invalid", "body"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := in.do("POST", "/api/v1/kyc/screen", k.Key, tt.body)
				e := r.errorOf(t)
				if r.status != 400 || e["code"] != tt.code || e["field"] != tt.field {
					t.Errorf("POST screen = %d %v, want 400 %s naming %s", r.status, e, tt.code, tt.field)
				}
			})
		}
	})

	t.Run("auth", func(t *testing.T) {
		body := map[string]any{"company_name": "Acme"}
		for _, tc := range []struct {
			name, method, path, key string
			body                    any
			status                  int
		}{
			{"screen without key", "POST", "/api/v1/kyc/screen", "", body, 401},
			{"screen without kyc scope", "POST", "/api/v1/kyc/screen", noScope.Key, body, 403},
			{"rescreen without key", "POST", "/api/v1/kyc/rescreen", "", map[string]any{"entity_id": "00000000-0000-4000-8000-000000000000"}, 401},
			{"run without key", "GET", "/api/v1/kyc/runs/00000000-0000-4000-8000-000000000000", "", nil, 401},
			{"events without key", "GET", "/api/v1/kyc/runs/00000000-0000-4000-8000-000000000000/events", "", nil, 401},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if r := in.do(tc.method, tc.path, tc.key, tc.body); r.status != tc.status {
					t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, r.status, r.body, tc.status)
				}
			})
		}
	})

	// A completed run: seven steps, the final verdict review (the company is
	// not in the ownership data and sanctions are degraded, never a pass),
	// the dossier.
	first := in.screen(k.Key, map[string]any{"company_name": "Nordic Fjord Energy AS", "country": "NO", "product": "crude", "directors": []string{"Kari Nordmann"}})
	done := in.completedRun(k.Key, first.ID)
	t.Run("completed run", func(t *testing.T) {
		var got []string
		for _, s := range done.Steps {
			got = append(got, s.stepStatus())
		}
		want := []string{"cluster_blocklist=pass", "regulatory_tradability=pass", "sanctions=degraded", "directors=degraded",
			"ownership=not_screened", "adverse_media=unmeasured", "verdict=review"}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(stepSeqs(done.Steps), allSeqs) {
			t.Errorf("steps = %v, want %v", got, want)
		}
		if done.Verdict != "review" || done.InitialVerdict != "pending" || !strings.Contains(done.VerdictReasoning, "sanctions degraded: sanctions lookup degraded") ||
			!strings.Contains(done.VerdictReasoning, "ownership not_screened") {
			t.Errorf("final verdict = %s %q", done.Verdict, done.VerdictReasoning)
		}
		if !done.Steps[6].Final {
			t.Error("verdict step not final")
		}
		r := in.do("GET", "/api/v1/kyc/dossiers/"+first.EntityID, k.Key, nil)
		d := decodeData[map[string]any](t, r)
		if d["entity_id"] != first.EntityID || d["company_name"] != "Nordic Fjord Energy AS" || d["last_screened_at"] == nil || d["next_rescreen_at"] == nil {
			t.Errorf("dossier = %s", r.body)
		}
		for _, tc := range []struct {
			name, path, key string
			status          int
		}{
			{"another member's run", "/api/v1/kyc/runs/" + first.ID, other.Key, 404},
			{"another member's dossier", "/api/v1/kyc/dossiers/" + first.EntityID, other.Key, 404},
			{"another member's events", "/api/v1/kyc/runs/" + first.ID + "/events", other.Key, 404},
			{"unknown run", "/api/v1/kyc/runs/" + "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f", k.Key, 404},
			{"malformed run id", "/api/v1/kyc/runs/nope", k.Key, 400},
		} {
			if r := in.do("GET", tc.path, tc.key, nil); r.status != tc.status {
				t.Errorf("%s: GET %s = %d %s, want %d", tc.name, tc.path, r.status, r.body, tc.status)
			}
		}
	})

	t.Run("sanctions hit emits kyc.match_detected", func(t *testing.T) {
		run := in.screen(k.Key, map[string]any{"company_name": sanctionedName})
		done := in.completedRun(k.Key, run.ID)
		if done.Steps[2].Step != "sanctions" || done.Steps[2].Status != "review" || done.Verdict != "review" ||
			!strings.Contains(done.VerdictReasoning, "potential sanctions match") {
			t.Fatalf("sanctions step = %+v, verdict %s %q", done.Steps[2], done.Verdict, done.VerdictReasoning)
		}
		waitFor(t, 15*time.Second, "kyc.match_detected delivery", func() bool {
			for _, m := range recv.received("/kyc") {
				if strings.Contains(string(m.Body), run.ID) && strings.Contains(string(m.Body), `"list_entry_id":"E2E-1"`) &&
					strings.Contains(string(m.Body), `"match_kind":"sanctions"`) && strings.Contains(string(m.Body), `"subject":"company"`) {
					return true
				}
			}
			return false
		})
	})

	t.Run("rescreen", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			key    string
			body   any
			status int
			field  string
		}{
			{"missing entity_id", k.Key, map[string]any{}, 400, "entity_id"},
			{"malformed entity_id", k.Key, map[string]any{"entity_id": "123"}, 400, "entity_id"},
			{"unknown dossier", k.Key, map[string]any{"entity_id": "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f"}, 404, ""},
			{"another member's dossier", other.Key, map[string]any{"entity_id": first.EntityID}, 403, ""},
		} {
			r := in.do("POST", "/api/v1/kyc/rescreen", tc.key, tc.body)
			if r.status != tc.status || (tc.field != "" && r.errorOf(t)["field"] != tc.field) {
				t.Errorf("%s: rescreen = %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.field)
			}
		}
		r := in.do("POST", "/api/v1/kyc/rescreen", k.Key, map[string]any{"entity_id": first.EntityID})
		q := decodeData[map[string]any](t, r)
		if r.status != 202 || q["status"] != "queued" || q["queued_at"] == nil || q["screening_run_id"] == nil {
			t.Fatalf("rescreen = %d %s, want 202 queued", r.status, r.body)
		}
		id := q["screening_run_id"].(string)
		re := in.completedRun(k.Key, id)
		if re.Kind != "rescreen" || !reflect.DeepEqual(stepSeqs(re.Steps), allSeqs) || re.InitialVerdict != "" {
			t.Errorf("rescreen run = kind %s steps %v initial %q", re.Kind, stepSeqs(re.Steps), re.InitialVerdict)
		}
		waitFor(t, 15*time.Second, "kyc.rescreen_completed delivery", func() bool {
			for _, m := range recv.received("/kyc") {
				var ev struct {
					Type string         `json:"type"`
					Data map[string]any `json:"data"`
				}
				json.Unmarshal(m.Body, &ev)
				if ev.Type == "kyc.rescreen_completed" && ev.Data["screening_run_id"] == id {
					if ev.Data["entity_id"] != first.EntityID || ev.Data["status"] != "degraded" || ev.Data["verdict"] != "review" {
						t.Errorf("rescreen_completed = %s", m.Body)
					}
					return true
				}
			}
			return false
		})
	})

	t.Run("SSE replay after completion", func(t *testing.T) {
		evs := sseReadAll(t, sseOpen(t, in, k.Key, first.ID), 10*time.Second)
		steps := sseSteps(t, evs)
		if !reflect.DeepEqual(stepSeqs(steps), allSeqs) || len(evs) != 8 {
			t.Fatalf("SSE = %d events, seqs %v; want 7 steps and completed", len(evs), stepSeqs(steps))
		}
		var run kycRun
		json.Unmarshal(evs[7].Data, &run)
		if run.ID != first.ID || run.Verdict != "review" {
			t.Errorf("completed event = %s", evs[7].Data)
		}
		// Last-Event-ID resumes after the given seq.
		resumed := sseSteps(t, sseReadAll(t, sseOpen(t, in, k.Key, first.ID, "Last-Event-ID", "5"), 10*time.Second))
		if !reflect.DeepEqual(stepSeqs(resumed), []int{6, 7}) {
			t.Errorf("resumed after 5 = %v, want [6 7]", stepSeqs(resumed))
		}
	})

	t.Run("GraphQL answers as REST", func(t *testing.T) {
		const q = `query($id: UUID!, $e: UUID!) {
			screeningRun(id: $id) { screeningRunId entityId kind status verdict verdictReasoning initialVerdict
				input { companyName country product directors metadata }
				checks { clusterBlocklist { status summary } regulatoryTradability { status summary } }
				steps { screeningRunId seq step status summary startedAt finishedAt emittedAt evidence final }
				createdAt completedAt coverage { sanctionsOnly pepScreening caveats } }
			dossier(entityId: $e) { entityId companyName country product directors lastScreenedAt nextRescreenAt runs { screeningRunId kind status verdict } } }`
		r := in.gql(k.Key, q, map[string]any{"id": first.ID, "e": first.EntityID})
		var g struct {
			Data struct {
				ScreeningRun map[string]any `json:"screeningRun"`
				Dossier      map[string]any `json:"dossier"`
			} `json:"data"`
			Errors []any `json:"errors"`
		}
		if err := json.Unmarshal(r.body, &g); err != nil || len(g.Errors) > 0 {
			t.Fatalf("graphql: %v %s", err, r.body)
		}
		rest := decodeData[map[string]any](t, in.do("GET", "/api/v1/kyc/runs/"+first.ID, k.Key, nil))
		gr := g.Data.ScreeningRun
		for _, f := range [][2]string{{"screening_run_id", "screeningRunId"}, {"entity_id", "entityId"}, {"kind", "kind"}, {"status", "status"},
			{"verdict", "verdict"}, {"verdict_reasoning", "verdictReasoning"}, {"initial_verdict", "initialVerdict"}, {"created_at", "createdAt"}, {"completed_at", "completedAt"}} {
			if !reflect.DeepEqual(rest[f[0]], gr[f[1]]) {
				t.Errorf("%s: REST %v, GraphQL %v", f[0], rest[f[0]], gr[f[1]])
			}
		}
		rsteps, gsteps := rest["steps"].([]any), gr["steps"].([]any)
		if len(rsteps) != 7 || len(gsteps) != 7 {
			t.Fatalf("steps: REST %d, GraphQL %d", len(rsteps), len(gsteps))
		}
		for i := range rsteps {
			rs, gs := rsteps[i].(map[string]any), gsteps[i].(map[string]any)
			var ge any
			json.Unmarshal([]byte(gs["evidence"].(string)), &ge)
			for _, f := range [][2]string{{"seq", "seq"}, {"step", "step"}, {"status", "status"}, {"summary", "summary"}, {"started_at", "startedAt"},
				{"finished_at", "finishedAt"}, {"emitted_at", "emittedAt"}, {"final", "final"}, {"screening_run_id", "screeningRunId"}} {
				if !reflect.DeepEqual(rs[f[0]], gs[f[1]]) {
					t.Errorf("step %d %s: REST %v, GraphQL %v", i+1, f[0], rs[f[0]], gs[f[1]])
				}
			}
			if !reflect.DeepEqual(rs["evidence"], ge) {
				t.Errorf("step %d evidence: REST %v, GraphQL %v", i+1, rs["evidence"], ge)
			}
		}
		rc, gc := rest["checks"].(map[string]any), gr["checks"].(map[string]any)
		if !reflect.DeepEqual(rc["cluster_blocklist"], gc["clusterBlocklist"]) || !reflect.DeepEqual(rc["regulatory_tradability"], gc["regulatoryTradability"]) {
			t.Errorf("checks: REST %v, GraphQL %v", rc, gc)
		}
		rcov, gcov := rest["coverage"].(map[string]any), gr["coverage"].(map[string]any)
		if !reflect.DeepEqual(rcov["caveats"], gcov["caveats"]) {
			t.Errorf("caveats: REST %v, GraphQL %v", rcov["caveats"], gcov["caveats"])
		}
		rd := decodeData[map[string]any](t, in.do("GET", "/api/v1/kyc/dossiers/"+first.EntityID, k.Key, nil))
		gd := g.Data.Dossier
		for _, f := range [][2]string{{"entity_id", "entityId"}, {"company_name", "companyName"}, {"country", "country"}, {"product", "product"},
			{"directors", "directors"}, {"last_screened_at", "lastScreenedAt"}, {"next_rescreen_at", "nextRescreenAt"}} {
			if !reflect.DeepEqual(rd[f[0]], gd[f[1]]) {
				t.Errorf("dossier %s: REST %v, GraphQL %v", f[0], rd[f[0]], gd[f[1]])
			}
		}
		if len(rd["runs"].([]any)) != len(gd["runs"].([]any)) {
			t.Errorf("dossier runs: REST %d, GraphQL %d", len(rd["runs"].([]any)), len(gd["runs"].([]any)))
		}
		// Errors carry codes and fields as REST's do.
		r = in.gql(other.Key, `query($id: UUID!) { screeningRun(id: $id) { verdict } }`, map[string]any{"id": first.ID})
		if !strings.Contains(string(r.body), `"code":"not_found"`) {
			t.Errorf("another member's run over GraphQL = %s, want not_found", r.body)
		}
		r = in.gql(k.Key, `mutation { startScreening(input: {companyName: "Acme", product: "uranium"}) { screeningRunId } }`, nil)
		if !strings.Contains(string(r.body), `"code":"invalid_param"`) || !strings.Contains(string(r.body), `"field":"input.product"`) {
			t.Errorf("bad product over GraphQL = %s, want invalid_param naming input.product", r.body)
		}
		r = in.gql(other.Key, `mutation($e: UUID!) { rescreen(entityId: $e) { status } }`, map[string]any{"e": first.EntityID})
		if !strings.Contains(string(r.body), `"code":"forbidden"`) {
			t.Errorf("rescreen of another member's dossier over GraphQL = %s, want forbidden", r.body)
		}
	})

	t.Run("30 per minute per key, shared with GraphQL", func(t *testing.T) {
		lk := in.key("kyc-limit")
		for i := range 30 {
			if r := in.do("POST", "/api/v1/kyc/screen", lk.Key, map[string]any{"company_name": fmt.Sprintf("Limit Test %d", i)}); r.status != 200 {
				t.Fatalf("screen %d = %d %s", i+1, r.status, r.body)
			}
		}
		r := in.do("POST", "/api/v1/kyc/screen", lk.Key, map[string]any{"company_name": "Limit Test 31"})
		if r.status != 429 || r.header.Get("Retry-After") == "" || r.errorOf(t)["code"] != "rate_limited" {
			t.Errorf("31st screen = %d %s (Retry-After %q), want 429", r.status, r.body, r.header.Get("Retry-After"))
		}
		r = in.gql(lk.Key, `mutation { startScreening(input: {companyName: "Limit Test 32"}) { screeningRunId } }`, nil)
		if !strings.Contains(string(r.body), `"code":"rate_limited"`) {
			t.Errorf("startScreening after the REST limit = %s, want rate_limited", r.body)
		}
	})

	t.Run("progress metrics", func(t *testing.T) {
		body := string(in.do("GET", "/metrics", "", nil).body)
		for _, want := range []string{"compliance_kyc_progress_listening 1", "compliance_kyc_progress_subscribers 0", "compliance_kyc_progress_overflows_total 0"} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %q", want)
			}
		}
	})

	t.Run("GraphQL startScreening then screeningProgress", func(t *testing.T) {
		r := in.gql(k.Key, `mutation { startScreening(input: {companyName: "Baltic Bunker Supply OU", country: "Estonia", product: "refined", directors: ["Mari Tamm"], metadata: "{\"ref\": \"deal-7\"}"}) {
			screeningRunId entityId verdict status checks { regulatoryTradability { status } } input { metadata } } }`, nil)
		var g struct {
			Data struct {
				StartScreening struct {
					ScreeningRunID string `json:"screeningRunId"`
					Verdict        string `json:"verdict"`
					Status         string `json:"status"`
					Input          struct {
						Metadata string `json:"metadata"`
					} `json:"input"`
				} `json:"startScreening"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.body, &g); err != nil || g.Data.StartScreening.ScreeningRunID == "" {
			t.Fatalf("startScreening = %s", r.body)
		}
		st := g.Data.StartScreening
		if st.Verdict != "pending" || st.Status != "running" || st.Input.Metadata != `{"ref": "deal-7"}` {
			t.Errorf("startScreening = %s", r.body)
		}
		_, next := wsFollow(t, in, k.Key, st.ScreeningRunID)
		if got := next(); !reflect.DeepEqual(got, allSeqs) {
			t.Errorf("screeningProgress = %v, want %v", got, allSeqs)
		}
		// Another member's run: not_found, as over REST.
		c := wsDial(t, in, "graphql-transport-ws", nil)
		wsSend(t, c, map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + other.Key}})
		if m := wsRead(t, c); m.Type != "connection_ack" {
			t.Fatalf("connection_init: %s", m.Type)
		}
		wsSend(t, c, map[string]any{"id": "x", "type": "subscribe", "payload": map[string]any{"query": progressQuery, "variables": map[string]any{"id": st.ScreeningRunID}}})
		if m := wsRead(t, c); (m.Type != "error" && m.Type != "next") || !strings.Contains(string(m.Payload), `"code":"not_found"`) {
			t.Errorf("another member's screeningProgress = %s %s, want not_found", m.Type, m.Payload)
		}
	})
}

// Two instances on one database: subscribers on A (which works no
// screening runs) receive every step of a run executed on B exactly once
// and in order, over SSE and the GraphQL websocket; a subscriber that
// reads nothing does not delay the run; a late joiner gets the replay.
func TestE2EKYCTwoInstances(t *testing.T) {
	env := testEnv(t, "KYC_STEP_DELAY=150ms")
	runCLI(t, env, "migrate")
	a := serveOnly(t, append(env, "KYC_WORKERS=0"))
	b := serveOnly(t, env)
	k := a.key("kyc-two")

	// A re-screen has no step logged when queued: every step arrives live.
	seed := b.screen(k.Key, map[string]any{"company_name": "Twin Harbour Trading BV", "country": "Netherlands", "product": "lng"})
	b.completedRun(k.Key, seed.ID)
	r := b.do("POST", "/api/v1/kyc/rescreen", k.Key, map[string]any{"entity_id": seed.EntityID})
	if r.status != 202 {
		t.Fatalf("rescreen = %d %s", r.status, r.body)
	}
	id := decodeData[map[string]any](t, r)["screening_run_id"].(string)

	sse := sseOpen(t, a, k.Key, id)
	slow := sseOpen(t, a, k.Key, id) // read only after the run completed
	_, next := wsFollow(t, a, k.Key, id)
	sseDone := make(chan []sseEvent, 1)
	go func() { sseDone <- sseReadAll(t, sse, 30*time.Second) }()

	run := b.completedRun(k.Key, id) // completes while the slow subscriber reads nothing
	if got := next(); !reflect.DeepEqual(got, allSeqs) {
		t.Errorf("GraphQL on A = %v, want %v", got, allSeqs)
	}
	evs := <-sseDone
	steps := sseSteps(t, evs)
	if !reflect.DeepEqual(stepSeqs(steps), allSeqs) {
		t.Errorf("SSE on A = %v, want %v", stepSeqs(steps), allSeqs)
	}
	for i, s := range steps {
		if s.Step != run.Steps[i].Step || s.Status != run.Steps[i].Status || s.EmittedAt != run.Steps[i].EmittedAt {
			t.Errorf("SSE step %d = %+v, want %+v", i+1, s, run.Steps[i])
		}
	}
	if got := stepSeqs(sseSteps(t, sseReadAll(t, slow, 10*time.Second))); !reflect.DeepEqual(got, allSeqs) {
		t.Errorf("slow subscriber = %v, want %v", got, allSeqs)
	}
	if got := stepSeqs(sseSteps(t, sseReadAll(t, sseOpen(t, a, k.Key, id), 10*time.Second))); !reflect.DeepEqual(got, allSeqs) {
		t.Errorf("late joiner = %v, want %v", got, allSeqs)
	}
}

// The 90-day schedule: a dossier whose last screening is backdated past 90
// days gets a scheduled re-screen from the periodic job, which completes
// and emits kyc.rescreen_completed; a recent dossier gets none.
func TestE2EKYCScheduledRescreen(t *testing.T) {
	env := testEnv(t, "WEBHOOK_ALLOW_PRIVATE_TARGETS=true", "KYC_RESCREEN_CHECK_INTERVAL=1s")
	in := start(t, env)
	k := in.key("kyc-schedule")
	recv := newReceiver(t)
	in.subscribe(k.Key, recv.url("/kyc"), "", "kyc.rescreen_completed")
	old := in.screen(k.Key, map[string]any{"company_name": "Ninety Days Old Trading Ltd"})
	recent := in.screen(k.Key, map[string]any{"company_name": "Fresh Trading Ltd"})
	in.completedRun(k.Key, old.ID)
	in.completedRun(k.Key, recent.ID)
	conn, err := pgx.Connect(context.Background(), envValue(env, "DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `UPDATE kyc_dossiers SET last_screened_at = now() - interval '91 days' WHERE entity_id = $1`, old.EntityID); err != nil {
		t.Fatal(err)
	}
	var scheduled string
	waitFor(t, 90*time.Second, "a scheduled re-screen to complete", func() bool {
		d := decodeData[struct {
			LastScreenedAt string `json:"last_screened_at"`
			Runs           []struct {
				ID     string `json:"screening_run_id"`
				Kind   string `json:"kind"`
				Status string `json:"status"`
			} `json:"runs"`
		}](t, in.do("GET", "/api/v1/kyc/dossiers/"+old.EntityID, k.Key, nil))
		for _, r := range d.Runs {
			if r.Kind == "scheduled" && r.Status == "completed" {
				scheduled = r.ID
				return true
			}
		}
		return false
	})
	waitFor(t, 15*time.Second, "kyc.rescreen_completed of the scheduled run", func() bool {
		for _, m := range recv.received("/kyc") {
			if strings.Contains(string(m.Body), scheduled) {
				return true
			}
		}
		return false
	})
	if n := pgCount(t, env, `SELECT count(*) FROM kyc_runs WHERE kind = 'scheduled'`); n != 1 {
		t.Errorf("scheduled runs = %d, want 1 (the recent dossier is not due; the old one is no longer due)", n)
	}
}

// A run survives a crash: the server is killed (SIGKILL) while a run's
// background steps are under way; after a restart River rescues the job,
// the steps already logged are kept (not run or emitted again) and the run
// completes with seq 1..7 exactly once. A subscriber that joins after the
// restart gets the whole ordered list.
func TestE2EKYCSurvivesSIGKILL(t *testing.T) {
	// River's leader rescues the job once KYC_JOB_TIMEOUT has passed since
	// its attempt began (its rescuer looks every 30 s).
	env := testEnv(t, "KYC_STEP_DELAY=500ms", "KYC_JOB_TIMEOUT=5s", "WEBHOOK_TIMEOUT=1s")
	in := start(t, env)
	k := in.key("kyc-crash")
	run := in.screen(k.Key, map[string]any{"company_name": "Crash Test Shipping Ltd", "country": "Norway", "product": "lng"})
	db := openDB(t, env)
	bg := context.Background()
	steps := func() int {
		var n int
		db.QueryRow(bg, `SELECT count(*) FROM kyc_run_events WHERE run_id = $1`, run.ID).Scan(&n)
		return n
	}
	waitFor(t, 20*time.Second, "step 3 logged", func() bool { return steps() >= 3 })
	var started time.Time
	db.QueryRow(bg, `SELECT started_at FROM kyc_run_events WHERE run_id = $1 AND seq = 3`, run.ID).Scan(&started)
	in.cmd.Process.Signal(syscall.SIGKILL)
	in.cmd.Wait()
	in.stopped = true
	at := steps()
	if at >= 7 {
		t.Fatalf("the run completed before the kill (%d steps); the test needs it mid-way", at)
	}

	again := serveOnly(t, env)
	restarted := time.Now()
	waitFor(t, 90*time.Second, "the run to complete after the restart", func() bool { return steps() == 7 })
	t.Logf("completed %s after the restart", time.Since(restarted).Round(100*time.Millisecond))
	done := again.completedRun(k.Key, run.ID)
	if !reflect.DeepEqual(stepSeqs(done.Steps), allSeqs) {
		t.Errorf("steps after the crash = %v, want %v", stepSeqs(done.Steps), allSeqs)
	}
	var after time.Time
	db.QueryRow(bg, `SELECT started_at FROM kyc_run_events WHERE run_id = $1 AND seq = 3`, run.ID).Scan(&after)
	if !after.Equal(started) {
		t.Errorf("step 3 ran again: started %v before the kill, %v after", started, after)
	}
	if got := stepSeqs(sseSteps(t, sseReadAll(t, sseOpen(t, again, k.Key, run.ID), 10*time.Second))); !reflect.DeepEqual(got, allSeqs) {
		t.Errorf("subscriber after the restart = %v, want %v", got, allSeqs)
	}
	t.Logf("killed with %d of 7 steps logged; completed after the restart", at)
}
