package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		err     error
		outcome Outcome
		class   string
	}{
		{"200", 200, nil, OutcomeDelivered, "2xx"},
		{"204", 204, nil, OutcomeDelivered, "2xx"},
		{"299", 299, nil, OutcomeDelivered, "2xx"},
		{"410 disables", 410, nil, OutcomeGone, "410"},
		{"429 retries", 429, nil, OutcomeRetry, "429"},
		{"500 retries", 500, nil, OutcomeRetry, "5xx"},
		{"503 retries", 503, nil, OutcomeRetry, "5xx"},
		{"302 is not followed", 302, nil, OutcomeRetry, "3xx"},
		{"404 retries", 404, nil, OutcomeRetry, "4xx"},
		{"400 retries", 400, nil, OutcomeRetry, "4xx"},
		{"timeout retries", 0, &SendError{Kind: "timeout", Message: "no answer within 10s"}, OutcomeRetry, "timeout"},
		{"blocked retries", 0, &SendError{Kind: "blocked", Message: "not public"}, OutcomeRetry, "blocked"},
		{"plain error", 0, errors.New("boom"), OutcomeRetry, "network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Classify(tt.status, tt.err)
			if r.Outcome != tt.outcome || r.Class != tt.class {
				t.Errorf("Classify(%d, %v) = %s/%s, want %s/%s", tt.status, tt.err, r.Outcome, r.Class, tt.outcome, tt.class)
			}
			if (r.Outcome == OutcomeDelivered) != (r.Reason == "") {
				t.Errorf("Classify(%d, %v).Reason = %q", tt.status, tt.err, r.Reason)
			}
			if tt.err == nil && r.StatusCode != tt.status {
				t.Errorf("StatusCode = %d, want %d", r.StatusCode, tt.status)
			}
		})
	}
}

// recordingSender answers with the statuses given, in turn, and keeps the
// requests.
type recordingSender struct {
	statuses []int
	reqs     []Request
}

func (s *recordingSender) Send(_ context.Context, r Request) (int, error) {
	s.reqs = append(s.reqs, r)
	st := s.statuses[0]
	if len(s.statuses) > 1 {
		s.statuses = s.statuses[1:]
	}
	return st, nil
}

// Every attempt carries the Standard Webhooks headers, the same webhook-id,
// a fresh timestamp and a signature over exactly the body sent.
func TestDelivererSignsEveryAttempt(t *testing.T) {
	secret := NewSecret()
	snd := &recordingSender{statuses: []int{503, 200}}
	clock := time.Unix(1_800_000_000, 0)
	d := &Deliverer{Sender: snd, UserAgent: "compliance-webhooks/test", Now: func() time.Time { return clock }}
	a := Attempt{DeliveryID: "0b3f...-delivery", EventID: "ev", EventType: "api_key.created", OccurredAt: clock,
		Data: json.RawMessage(`{"key_id":"k"}`), URL: "https://hooks.example.com/x", Secret: secret, Format: FormatRaw}
	if r := d.Deliver(context.Background(), a); r.Outcome != OutcomeRetry || r.StatusCode != 503 {
		t.Fatalf("first attempt = %+v, want retry 503", r)
	}
	clock = clock.Add(5 * time.Second)
	if r := d.Deliver(context.Background(), a); r.Outcome != OutcomeDelivered {
		t.Fatalf("second attempt = %+v, want delivered", r)
	}
	for i, req := range snd.reqs {
		h := req.Header
		if h[HeaderID] != a.DeliveryID || h["Content-Type"] != "application/json" || h["User-Agent"] != "compliance-webhooks/test" {
			t.Errorf("attempt %d headers = %v", i+1, h)
		}
		wantTS := strconv.FormatInt(time.Unix(1_800_000_000+int64(5*i), 0).Unix(), 10)
		if h[HeaderTimestamp] != wantTS {
			t.Errorf("attempt %d webhook-timestamp = %s, want %s (the attempt's own time)", i+1, h[HeaderTimestamp], wantTS)
		}
		ts, _ := strconv.ParseInt(h[HeaderTimestamp], 10, 64)
		if err := Verify(secret, h[HeaderID], h[HeaderTimestamp], h[HeaderSignature], req.Body, time.Unix(ts, 0), time.Minute); err != nil {
			t.Errorf("attempt %d signature: %v", i+1, err)
		}
	}
	if string(snd.reqs[0].Body) != string(snd.reqs[1].Body) {
		t.Errorf("the body changed between attempts")
	}
	if snd.reqs[0].Header[HeaderSignature] == snd.reqs[1].Header[HeaderSignature] {
		t.Errorf("the signature did not change with the timestamp")
	}
}
