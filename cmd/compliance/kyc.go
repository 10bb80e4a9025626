package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/graph/kyc"
	"github.com/tradecompliance/compliance/graph/regulatory"
	"github.com/tradecompliance/compliance/graph/sanctions"
	"github.com/tradecompliance/compliance/relational"
)

// startKYC makes the screening service both transports call, starts this
// instance's progress hub (one LISTEN connection) and returns the job set
// that runs screening runs here (idle when KYC_WORKERS is 0: the kinds are
// registered, the queue is not worked).
//
// The cluster step checks with clusters, the cluster surface's in-memory
// registry (reloaded on version change). The ownership step asks owners,
// the UBO surface's builder (ubo.KYCExposure): it builds the company's
// beneficial-ownership graph from the ownership data in Neo4j, screened
// with the same screener, on every run.
func startKYC(ctx context.Context, cfg Config, pg *relational.DB, reg prometheus.Registerer, clusters cluster.Checker, matrix *regulatory.Matrix, screener *sanctions.Screener, owners kyc.OwnershipLookup, log *slog.Logger) (*kyc.Service, []relational.JobSet) {
	hub := pg.NewProgressHub(log)
	go hub.Run(ctx)
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "compliance_kyc_progress_subscribers", Help: "Live-progress subscribers (SSE and GraphQL) this instance holds."},
			func() float64 { return float64(hub.Followers()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "compliance_kyc_progress_overflows_total", Help: "Live events a slow subscriber's full buffer did not take (it re-read them from the log)."},
			func() float64 { return float64(hub.Overflows()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "compliance_kyc_progress_listening", Help: "1 while this instance's LISTEN connection for run events is up."},
			func() float64 {
				if hub.Listening() {
					return 1
				}
				return 0
			}),
	)
	svc := &kyc.Service{
		Engine:    kyc.Engine{Clusters: clusters, Matrix: matrix, Sanctions: screener, Ownership: owners},
		Store:     pg,
		Progress:  hub,
		StepDelay: cfg.KYCStepDelay,
	}
	if cfg.KYCStepDelay > 0 {
		log.Warn("KYC_STEP_DELAY is set: background screening steps are slowed; tests and benchmarks only", "delay", cfg.KYCStepDelay.String())
	}
	if cfg.KYCWorkers == 0 {
		log.Info("KYC_WORKERS is 0: screening runs are worked by other instances")
	}
	// An idle set (KYC_WORKERS=0) still registers the job kinds: as River's
	// leader this instance queues the 90-day re-screens and rescues stuck
	// runs (an unknown kind would be discarded), which the others work.
	return svc, []relational.JobSet{pg.KYCJobs(relational.KYCJobConfig{
		Execute: svc.Execute, Abandon: svc.Abandon, Workers: cfg.KYCWorkers, Idle: cfg.KYCWorkers == 0, DueEvery: cfg.KYCRescreenCheckEvery, Timeout: cfg.KYCJobTimeout,
	})}
}
