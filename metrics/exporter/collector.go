package exporter

import (
	"math"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/server"
)

// Source is what the exporter reads: a server.Server.
type Source interface {
	MonitorGauges() []server.MonitorRow
	Metrics() *metrics.Set
}

// keyLabel is the label of ZooKeeper's counter, gauge and summary sets.
const keyLabel = "key"

// collector turns one Source into Prometheus metrics at each scrape. It
// is unchecked (Describe sends nothing): the leader-only gauges come and
// go with the server's role.
type collector struct {
	src   Source
	mu    sync.Mutex
	descs map[string]*prometheus.Desc
}

func newCollector(src Source) *collector {
	return &collector{src: src, descs: map[string]*prometheus.Desc{}}
}

// Describe implements prometheus.Collector; it describes nothing.
func (c *collector) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c.src.MonitorGauges() {
		if v, ok := number(r.Value); ok {
			ch <- prometheus.MustNewConstMetric(c.desc(r.Key, false), prometheus.GaugeValue, v)
		}
	}
	c.src.Metrics().Each(func(m metrics.Metric) {
		switch m.Kind {
		case metrics.KindCounter:
			ch <- prometheus.MustNewConstMetric(c.desc(m.Name, false), prometheus.CounterValue, float64(m.Counter.Value()))
		case metrics.KindSummary:
			ch <- summary(c.desc(m.Name, false), m.Summary)
		case metrics.KindSummarySet:
			desc := c.desc(m.Name, true)
			for _, k := range m.SummarySet.Keys() {
				ch <- summary(desc, m.SummarySet.Get(k), k)
			}
		}
	})
}

// desc returns the cached descriptor of a metric; HELP is the name, as
// ZooKeeper's provider writes it.
func (c *collector) desc(name string, keyed bool) *prometheus.Desc {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.descs[name]
	if !ok {
		var labels []string
		if keyed {
			labels = []string{keyLabel}
		}
		d = prometheus.NewDesc(name, name, labels, nil)
		c.descs[name] = d
	}
	return d
}

// summary is a summary's state as a constant Prometheus summary with the
// quantiles ZooKeeper's provider exports for its level.
func summary(desc *prometheus.Desc, s *metrics.Summary, labels ...string) prometheus.Metric {
	v := s.Value()
	qs := map[float64]float64{}
	for _, q := range metrics.ExportedQuantiles(s.Level()) {
		qv, ok := v.Quantiles[q]
		if !ok {
			qv = math.NaN()
		}
		qs[q] = qv
	}
	return prometheus.MustNewConstSummary(desc, uint64(v.Count), float64(v.Sum), qs, labels...)
}

// number converts a monitor value to a float; strings are not gauges.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	case bool:
		if n {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
