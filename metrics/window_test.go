package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBucketsCoverValuesWithinASixteenth(t *testing.T) {
	for _, v := range []int64{0, 1, 15, 16, 17, 31, 32, 100, 1000, 12345, 1 << 20, 1<<40 + 3} {
		b := bucketOf(v)
		require.Less(t, b, bucketCount)
		got := bucketValue(b)
		require.InDelta(t, float64(v), got, float64(v)/16+0.5, "value %d, bucket %d", v, b)
	}
	require.Equal(t, 0, bucketOf(-5), "negative values count as 0")
	require.Equal(t, bucketCount-1, bucketOf(math.MaxInt64), "huge values land in the last bucket")
	for b := 1; b < bucketCount; b++ {
		require.Greater(t, bucketValue(b), bucketValue(b-1), "buckets are ordered")
	}
}

func TestWindowForgetsValuesOlderThanTenMinutes(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	defer func(old func() int64) { nowNanos = old }(nowNanos)
	nowNanos = func() int64 { return now.UnixNano() }

	s := newSummary(Basic)
	for i := 0; i < 100; i++ {
		s.Observe(1000)
	}
	now = now.Add(4 * time.Minute)
	s.Observe(10)
	require.InDelta(t, 1000, s.Value().Quantiles[0.5], 1000.0/16, "both periods are in the window")
	now = now.Add(7 * time.Minute)
	s.Observe(10)
	v := s.Value()
	require.Equal(t, 10.0, v.Quantiles[0.5], "the 1000s are more than ten minutes old")
	require.Equal(t, int64(102), v.Count, "count, sum, min and max cover the whole life")
	require.Equal(t, int64(1000), v.Max)
	now = now.Add(time.Hour)
	require.True(t, math.IsNaN(s.Value().Quantiles[0.5]), "an idle window is empty")
}
