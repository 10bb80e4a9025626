package main

import (
	"context"
	"log/slog"

	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/relational"
)

// startKYC makes the screening service both transports call, starts this
// instance's progress hub (one LISTEN connection) and returns the job set
// that runs screening runs here, none when KYC_WORKERS is 0.
//
// The cluster registry and the ownership graph are not wired yet: their
// steps report unavailable (never pass) until they are.
func startKYC(ctx context.Context, cfg Config, pg *relational.DB, matrix *regulatory.Matrix, screener *sanctions.Screener, log *slog.Logger) (*kyc.Service, []relational.JobSet) {
	hub := pg.NewProgressHub(log)
	go hub.Run(ctx)
	svc := &kyc.Service{
		Engine:    kyc.Engine{Matrix: matrix, Sanctions: screener},
		Store:     pg,
		Progress:  hub,
		StepDelay: cfg.KYCStepDelay,
	}
	if cfg.KYCStepDelay > 0 {
		log.Warn("KYC_STEP_DELAY is set: background screening steps are slowed; tests and benchmarks only", "delay", cfg.KYCStepDelay.String())
	}
	if cfg.KYCWorkers == 0 {
		log.Info("KYC_WORKERS is 0: screening runs are worked by other instances")
		return svc, nil
	}
	return svc, []relational.JobSet{pg.KYCJobs(relational.KYCJobConfig{
		Execute: svc.Execute, Workers: cfg.KYCWorkers, DueEvery: cfg.KYCRescreenCheckEvery,
	})}
}
