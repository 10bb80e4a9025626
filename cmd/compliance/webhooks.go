package main

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradecompliance/compliance/graph/webhooks"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/rest/webhooksend"
)

// startWebhooks makes the webhook service both transports call and starts
// the delivery workers on the job queue. stop waits for the attempts in
// flight (up to SHUTDOWN_TIMEOUT) and is called after the HTTP server has
// drained.
func startWebhooks(ctx context.Context, cfg Config, pg *relational.DB, reg prometheus.Registerer, log *slog.Logger, jobs ...relational.JobSet) (*webhooks.Service, func(), error) {
	policy := webhooks.Policy{AllowPrivate: cfg.WebhookAllowPrivate}
	if policy.AllowPrivate {
		log.Warn("WEBHOOK_ALLOW_PRIVATE_TARGETS is set: webhooks may target http and private addresses; development and tests only")
	}
	svc := &webhooks.Service{Store: pg, Resolver: net.DefaultResolver, Policy: policy}
	sender := webhooksend.New(webhooksend.Config{Policy: policy, Timeout: cfg.WebhookTimeout, MaxIdleConnsPerHost: cfg.WebhookWorkers})
	workers, err := pg.StartWebhookWorkers(ctx, relational.WebhookWorkerConfig{
		Deliverer:   &webhooks.Deliverer{Sender: sender, UserAgent: "compliance-webhooks/" + version},
		Schedule:    cfg.WebhookSchedule,
		Workers:     cfg.WebhookWorkers,
		SendTimeout: cfg.WebhookTimeout,
		StopTimeout: cfg.ShutdownTimeout,
		Logger:      log,
		Metrics:     relational.NewWebhookMetrics(reg, pg),
		Jobs:        jobs,
	})
	if err != nil {
		return nil, nil, err
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout+5*time.Second)
		defer cancel()
		if err := workers.Stop(sctx); err != nil {
			log.Warn("webhook workers did not stop cleanly", "err", err)
		}
	}
	return svc, stop, nil
}
