package rest

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the HTTP request metrics, labelled by route pattern (never the
// raw path, so ids do not explode the label space), method and status.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "compliance_http_requests_total",
			Help: "HTTP requests served, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "compliance_http_request_duration_seconds",
			Help:    "HTTP request latency, by route pattern, method and status.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method", "status"}),
	}
	reg.MustRegister(m.requests, m.latency)
	return m
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	s := itoa(status)
	m.requests.WithLabelValues(route, method, s).Inc()
	m.latency.WithLabelValues(route, method, s).Observe(d.Seconds())
}
