package relational

import "github.com/prometheus/client_golang/prometheus"

// PoolCollector exports the pgx pool's statistics as Prometheus metrics.
type PoolCollector struct {
	db                                       *DB
	acquired, idle, total, max, acquireCount *prometheus.Desc
	acquireWait, emptyAcquire                *prometheus.Desc
}

// NewPoolCollector returns a collector for db's pool.
func NewPoolCollector(db *DB) *PoolCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("compliance_pg_pool_"+name, help, nil, nil)
	}
	return &PoolCollector{
		db:           db,
		acquired:     d("acquired_conns", "Connections currently in use."),
		idle:         d("idle_conns", "Idle connections."),
		total:        d("total_conns", "Open connections."),
		max:          d("max_conns", "Largest pool size."),
		acquireCount: d("acquires_total", "Connections acquired from the pool."),
		acquireWait:  d("acquire_wait_seconds_total", "Time spent waiting for a connection."),
		emptyAcquire: d("empty_acquires_total", "Acquires that waited because the pool was empty."),
	}
}

func (c *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	prometheus.DescribeByCollect(c, ch)
}

func (c *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.db.Pool.Stat()
	ch <- prometheus.MustNewConstMetric(c.acquired, prometheus.GaugeValue, float64(s.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(c.idle, prometheus.GaugeValue, float64(s.IdleConns()))
	ch <- prometheus.MustNewConstMetric(c.total, prometheus.GaugeValue, float64(s.TotalConns()))
	ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(c.acquireCount, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.acquireWait, prometheus.CounterValue, s.AcquireDuration().Seconds())
	ch <- prometheus.MustNewConstMetric(c.emptyAcquire, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
}
