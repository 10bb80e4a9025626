package relational

import (
	"context"
	"errors"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/tradecompliance/compliance/graph"
)

// TestKYCRunWorkerAbandonsOnLastAttempt: a failing run's job is retried
// until its last attempt, which abandons the run (so it completes) instead
// of leaving it running for ever.
func TestKYCRunWorkerAbandonsOnLastAttempt(t *testing.T) {
	boom := errors.New("database went away")
	tests := []struct {
		name         string
		attempt      int
		execErr      error
		abandonErr   error
		wantAbandon  bool
		wantErr      bool
		wantCanceled bool
	}{
		{"success", KYCRunAttempts, nil, nil, false, false, false},
		{"failure before the last attempt is retried", KYCRunAttempts - 1, boom, nil, false, true, false},
		{"failure on the last attempt abandons the run", KYCRunAttempts, boom, nil, true, false, false},
		{"an abandon that fails leaves the error", KYCRunAttempts, boom, boom, true, true, false},
		{"an unknown run is cancelled", 1, graph.Errorf(graph.CodeNotFound, "no run"), nil, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abandoned := ""
			w := &kycRunWorker{
				exec: func(context.Context, string) error { return tt.execErr },
				abandon: func(ctx context.Context, id string) error {
					if ctx.Err() != nil {
						t.Error("abandon called with an ended context")
					}
					abandoned = id
					return tt.abandonErr
				},
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // as when the attempt's timeout ended it
			job := &river.Job[kycRunArgs]{JobRow: &rivertype.JobRow{Attempt: tt.attempt, MaxAttempts: KYCRunAttempts}, Args: kycRunArgs{RunID: "run-1"}}
			err := w.Work(ctx, job)
			if (err != nil) != tt.wantErr {
				t.Errorf("Work() = %v, want error %v", err, tt.wantErr)
			}
			var cancelErr *river.JobCancelError
			if errors.As(err, &cancelErr) != tt.wantCanceled {
				t.Errorf("Work() = %v, want cancelled %v", err, tt.wantCanceled)
			}
			if (abandoned == "run-1") != tt.wantAbandon {
				t.Errorf("abandoned %q, want abandon %v", abandoned, tt.wantAbandon)
			}
		})
	}
}
