package relational

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradecompliance/compliance/graph/webhooks"
)

// WebhookMetrics are the delivery metrics: attempts by outcome, final
// states, attempt latency, the delay from queueing to the first attempt,
// and (collected on each scrape) the queue depth and the deliveries not yet
// delivered, by state.
type WebhookMetrics struct {
	attempts   *prometheus.CounterVec
	finals     *prometheus.CounterVec
	duration   prometheus.Histogram
	firstDelay prometheus.Histogram
}

// NewWebhookMetrics registers the webhook and job-queue metrics on reg.
func NewWebhookMetrics(reg prometheus.Registerer, db *DB) *WebhookMetrics {
	m := &WebhookMetrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "compliance_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome (delivered, retry, gone) and class (2xx, 3xx, 4xx, 410, 429, 5xx, timeout, blocked, dns, connect, tls, network, internal).",
		}, []string{"outcome", "class"}),
		finals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "compliance_webhook_deliveries_total",
			Help: "Webhook deliveries that reached a final state: delivered or dlq.",
		}, []string{"status"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "compliance_webhook_attempt_duration_seconds",
			Help:    "Duration of webhook delivery attempts (the HTTP exchange).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		firstDelay: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "compliance_webhook_first_attempt_delay_seconds",
			Help:    "Delay from an event's delivery being queued (in the event's transaction, or by a replay) to its first attempt starting.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}),
	}
	for _, c := range []string{"delivered", "dlq"} {
		m.finals.WithLabelValues(c)
	}
	reg.MustRegister(m.attempts, m.finals, m.duration, m.firstDelay, &queueCollector{db: db,
		depth: prometheus.NewDesc("compliance_job_queue_depth",
			"Background jobs not finished, by queue and River state (available, scheduled, retryable, running, pending).",
			[]string{"queue", "state"}, nil),
		undelivered: prometheus.NewDesc("compliance_webhook_deliveries_undelivered",
			"Webhook deliveries by state, every state but delivered (pending, delivering, failed, dlq).",
			[]string{"status"}, nil),
		up: prometheus.NewDesc("compliance_job_queue_scrape_ok",
			"1 when the queue-depth figures could be read at this scrape, 0 otherwise.", nil, nil),
	})
	return m
}

func (m *WebhookMetrics) attempt(r webhooks.Result) {
	if m == nil {
		return
	}
	m.attempts.WithLabelValues(string(r.Outcome), r.Class).Inc()
	m.duration.Observe(r.Duration.Seconds())
}

func (m *WebhookMetrics) final(s webhooks.Status) {
	if m == nil {
		return
	}
	m.finals.WithLabelValues(string(s)).Inc()
}

func (m *WebhookMetrics) firstAttempt(d time.Duration) {
	if m == nil {
		return
	}
	m.firstDelay.Observe(max(d, 0).Seconds())
}

// queueCollector reads the queue depth at scrape time.
type queueCollector struct {
	db                     *DB
	depth, undelivered, up *prometheus.Desc
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.depth
	ch <- c.undelivered
	ch <- c.up
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ok := 1.0
	if err := c.collectDepth(ctx, ch); err != nil {
		ok = 0
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, ok)
}

func (c *queueCollector) collectDepth(ctx context.Context, ch chan<- prometheus.Metric) error {
	states := []string{"available", "scheduled", "retryable", "running", "pending"}
	counts := map[[2]string]float64{{QueueWebhooks, "available"}: 0}
	rows, err := c.db.Pool.Query(ctx, `SELECT queue, state::text, count(*) FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'pending') GROUP BY 1, 2`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var q, s string
		var n int64
		if err := rows.Scan(&q, &s, &n); err != nil {
			rows.Close()
			return err
		}
		counts[[2]string{q, s}] = float64(n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range states { // the webhooks queue's states are always present
		if _, ok := counts[[2]string{QueueWebhooks, s}]; !ok {
			counts[[2]string{QueueWebhooks, s}] = 0
		}
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, n, k[0], k[1])
	}
	byStatus := map[string]float64{"pending": 0, "delivering": 0, "failed": 0, "dlq": 0}
	rows, err = c.db.Pool.Query(ctx, `SELECT status, count(*) FROM webhook_deliveries WHERE status <> 'delivered' GROUP BY 1`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			rows.Close()
			return err
		}
		byStatus[s] = float64(n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for s, n := range byStatus {
		ch <- prometheus.MustNewConstMetric(c.undelivered, prometheus.GaugeValue, n, s)
	}
	return nil
}
