package metrics

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func figureMap(s *Set) map[string]any {
	m := map[string]any{}
	for _, f := range s.Figures() {
		m[f.Key] = f.Value
	}
	return m
}

func TestFiguresExpandAsZooKeeperMntr(t *testing.T) {
	s := NewSet()
	s.Counter("commit_count").Add(3)
	s.Summary("fsynctime", Basic)
	lat := s.Summary("readlatency", Advanced)
	for v := int64(1); v <= 100; v++ {
		lat.Observe(v)
	}
	s.SummarySet("write_per_namespace", Basic).Observe("app", 10)

	var keys []string
	for _, f := range s.Figures() {
		keys = append(keys, f.Key)
	}
	require.Equal(t, []string{"commit_count",
		"avg_fsynctime", "min_fsynctime", "max_fsynctime", "cnt_fsynctime", "sum_fsynctime",
		"avg_readlatency", "min_readlatency", "max_readlatency", "cnt_readlatency", "sum_readlatency",
		"p50_readlatency", "p95_readlatency", "p99_readlatency", "p999_readlatency",
		"avg_app_write_per_namespace", "min_app_write_per_namespace", "max_app_write_per_namespace",
		"cnt_app_write_per_namespace", "sum_app_write_per_namespace"}, keys)

	m := figureMap(s)
	require.Equal(t, int64(3), m["commit_count"])
	require.Equal(t, 0.0, m["avg_fsynctime"], "an empty summary prints 0.0 and 0s")
	require.Equal(t, int64(0), m["min_fsynctime"])
	require.Equal(t, 50.5, m["avg_readlatency"])
	require.Equal(t, int64(1), m["min_readlatency"])
	require.Equal(t, int64(100), m["max_readlatency"])
	require.Equal(t, int64(100), m["cnt_readlatency"])
	require.Equal(t, int64(5050), m["sum_readlatency"])
	require.InDelta(t, 50, m["p50_readlatency"], 5)
	require.InDelta(t, 99, m["p99_readlatency"], 1)
	require.Equal(t, int64(10), m["sum_app_write_per_namespace"])
}

func TestSummaryQuantilesForPrometheus(t *testing.T) {
	s := NewSet().Summary("x", Advanced)
	v := s.Value()
	require.Len(t, v.Quantiles, 5)
	require.True(t, v.Quantiles[0.5] != v.Quantiles[0.5], "NaN before any observation")
	for i := int64(0); i < 1000; i++ {
		s.Observe(i)
	}
	v = s.Value()
	for _, q := range ExportedQuantiles(Advanced) {
		require.InDelta(t, q*1000, v.Quantiles[q], 60, "quantile %v", q)
	}
	require.Equal(t, []float64{0.5}, ExportedQuantiles(Basic))
}

func TestSetRegistersOnce(t *testing.T) {
	s := NewSet()
	require.Same(t, s.Counter("a"), s.Counter("a"))
	require.Same(t, s.Summary("b", Basic), s.Summary("b", Basic))
	var err error
	func() {
		defer func() { err, _ = recover().(error) }()
		s.Summary("a", Basic)
	}()
	require.True(t, errors.Is(err, ErrKindMismatch), "%v", err)
	func() {
		defer func() { err, _ = recover().(error) }()
		s.Summary("b", Advanced)
	}()
	require.True(t, errors.Is(err, ErrKindMismatch), "a level change is a mismatch too")
}

// The request path's per-request additions, one goroutine and two:
//
//	go test ./metrics -run '^$' -bench . -count 5
func BenchmarkSummaryObserveAt(b *testing.B) {
	s := NewSet().Summary("readlatency", Advanced)
	now := time.Now()
	for i := 0; i < b.N; i++ {
		s.ObserveAt(int64(i&7), now)
	}
}

func BenchmarkSummaryObserveAtParallel(b *testing.B) {
	s := NewSet().Summary("readlatency", Advanced)
	now := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.ObserveAt(3, now)
		}
	})
}

func BenchmarkSummarySetObserveAt(b *testing.B) {
	s := NewSet().SummarySet("read_per_namespace", Basic)
	now := time.Now()
	for i := 0; i < b.N; i++ {
		s.ObserveAt("app", 100, now)
	}
}

func BenchmarkCounterAdd(b *testing.B) {
	c := NewSet().Counter("response_bytes")
	for i := 0; i < b.N; i++ {
		c.Add(16)
	}
}
