package metrics

import (
	"math"
	"sync/atomic"
	"time"
)

// Level is ZooKeeper's DetailLevel of a summary.
type Level int

const (
	// Basic summaries show avg/min/max/cnt/sum in mntr and the median in
	// Prometheus.
	Basic Level = iota
	// Advanced summaries add p50/p95/p99/p999 in mntr and the 0.9 and 0.99
	// quantiles in Prometheus.
	Advanced
)

// ExportedQuantiles are the quantiles ZooKeeper's Prometheus provider
// exports for a summary of level l.
func ExportedQuantiles(l Level) []float64 {
	if l == Advanced {
		return []float64{0.5, 0.9, 0.99}
	}
	return []float64{0.5}
}

// MntrPercentiles are the percentiles mntr prints for an Advanced summary,
// by the suffix of their key (p50_ ... p999_).
var MntrPercentiles = []struct {
	Prefix   string
	Quantile float64
}{{"p50", 0.5}, {"p95", 0.95}, {"p99", 0.99}, {"p999", 0.999}}

// quantilesOf are the quantiles a summary of each level keeps:
// Prometheus's (those of ZooKeeper's provider) and, for Advanced, mntr's.
var quantilesOf = map[Level][]float64{
	Basic:    {0.5},
	Advanced: {0.5, 0.9, 0.95, 0.99, 0.999},
}

// Summary is a distribution of integer observations, in ZooKeeper's units
// (milliseconds for times, bytes for sizes): ZooKeeper's
// AvgMinMax(Percentile)Counter in mntr, a Prometheus summary in /metrics.
// Quantiles cover the last ten minutes (see window.go), as in ZooKeeper's
// Prometheus provider; count, sum, min and max cover the server's life.
type Summary struct {
	level      Level
	count, sum atomic.Int64
	min, max   atomic.Int64
	window     atomic.Pointer[window] // nil until the first value
}

// newSummary returns an empty summary of level l.
func newSummary(l Level) *Summary {
	s := &Summary{level: l}
	s.min.Store(math.MaxInt64)
	s.max.Store(math.MinInt64)
	return s
}

// Level returns the summary's detail level.
func (s *Summary) Level() Level { return s.level }

// Observe records one value now.
func (s *Summary) Observe(v int64) { s.observe(v, nowNanos()) }

// ObserveAt records one value at a time the caller has at hand, which
// saves reading the clock (the window needs it only to the minute).
func (s *Summary) ObserveAt(v int64, at time.Time) { s.observe(v, at.UnixNano()) }

func (s *Summary) observe(v int64, now int64) {
	s.count.Add(1)
	s.sum.Add(v)
	for m := s.min.Load(); v < m && !s.min.CompareAndSwap(m, v); m = s.min.Load() {
	}
	for m := s.max.Load(); v > m && !s.max.CompareAndSwap(m, v); m = s.max.Load() {
	}
	w := s.window.Load()
	if w == nil {
		s.window.CompareAndSwap(nil, newWindow())
		w = s.window.Load()
	}
	w.add(v, now)
}

// ObserveSince records the milliseconds since start.
func (s *Summary) ObserveSince(start time.Time) { s.Observe(time.Since(start).Milliseconds()) }

// SummaryValue is a summary's state at one moment.
type SummaryValue struct {
	Count, Sum, Min, Max int64
	// Quantiles holds the level's objectives; NaN when nothing was
	// observed in the window.
	Quantiles map[float64]float64
}

// Avg is Sum/Count, 0 when empty.
func (v SummaryValue) Avg() float64 {
	if v.Count == 0 {
		return 0
	}
	return float64(v.Sum) / float64(v.Count)
}

// Value returns the summary's current state. Min and Max are 0 when it
// is empty, as ZooKeeper prints them.
func (s *Summary) Value() SummaryValue {
	v := SummaryValue{Count: s.count.Load(), Sum: s.sum.Load(), Quantiles: map[float64]float64{}}
	if v.Count > 0 {
		v.Min, v.Max = s.min.Load(), s.max.Load()
	}
	qs := quantilesOf[s.level]
	values := make([]float64, len(qs))
	if w := s.window.Load(); w != nil {
		values = w.quantiles(qs, nowNanos())
	} else {
		for i := range values {
			values[i] = math.NaN()
		}
	}
	for i, q := range qs {
		v.Quantiles[q] = values[i]
	}
	return v
}
