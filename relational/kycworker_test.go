package relational

import (
	"context"
	"errors"
	"testing"
	"time"

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
		{"failure of the last try is retried", KYCRunAttempts, boom, nil, false, true, false},
		{"the last attempt abandons the run", KYCRunAttempts + 1, boom, nil, true, false, false},
		{"an abandon that fails leaves the error", KYCRunAttempts + 1, boom, boom, true, true, false},
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
			job := &river.Job[kycRunArgs]{JobRow: &rivertype.JobRow{Attempt: tt.attempt, MaxAttempts: KYCRunAttempts + 1}, Args: kycRunArgs{RunID: "run-1"}}
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

// TestKYCRunWorkerLastAttemptOnlyAbandons: River discards a job whose last
// attempt panics, or whose instance dies during it (the rescuer discards a
// stuck job on its last attempt), without Work seeing an error: so the last
// attempt only closes the run, and the attempt before it is followed at
// once by that one. Every failure of the tries that run the steps, a panic
// or a crash included, then ends with the run abandoned.
func TestKYCRunWorkerLastAttemptOnlyAbandons(t *testing.T) {
	ran, abandoned := 0, 0
	w := &kycRunWorker{
		exec:    func(context.Context, string) error { ran++; panic("a step's bug") },
		abandon: func(context.Context, string) error { abandoned++; return nil },
	}
	max := kycRunArgs{}.InsertOpts().MaxAttempts
	if max != KYCRunAttempts+1 {
		t.Fatalf("MaxAttempts = %d, want KYCRunAttempts+1 (the steps' tries, then the abandon)", max)
	}
	last := &river.Job[kycRunArgs]{JobRow: &rivertype.JobRow{Attempt: max, MaxAttempts: max}, Args: kycRunArgs{RunID: "run-1"}}
	if err := w.Work(context.Background(), last); err != nil || ran != 0 || abandoned != 1 {
		t.Errorf("last attempt: Work() = %v, steps run %d times, abandoned %d; want nil, 0, 1", err, ran, abandoned)
	}
	prev := &river.Job[kycRunArgs]{JobRow: &rivertype.JobRow{Attempt: max - 1, MaxAttempts: max}, Args: kycRunArgs{RunID: "run-1"}}
	if next := w.NextRetry(prev); next.IsZero() || time.Until(next) > time.Minute {
		t.Errorf("NextRetry after the last try of the steps = %v, want within a minute", next)
	}
	earlier := &river.Job[kycRunArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: max}, Args: kycRunArgs{RunID: "run-1"}}
	if next := w.NextRetry(earlier); !next.IsZero() {
		t.Errorf("NextRetry after attempt 1 = %v, want River's default", next)
	}
}
