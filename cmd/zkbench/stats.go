package main

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// The latency histogram is log-linear, as HdrHistogram: values below
// 2*subCount nanoseconds have a bucket each; above, every power of two is
// split into subCount buckets, so a bucket is at most 1/subCount (0.8%) of
// its values wide. Values of 2^(subBits+1+maxShift) ns (about 137 s) and
// more share the last bucket; min, max and the mean stay exact.
const (
	subBits    = 7
	subCount   = 1 << subBits
	maxShift   = 29
	numBuckets = (maxShift + 2) * subCount
)

// histogram records latencies. It is not safe for concurrent use: each
// worker owns one, and they are merged when the run ends.
type histogram struct {
	counts []uint64
	n      uint64
	sum    float64 // nanoseconds
	min    int64
	max    int64
}

func newHistogram() *histogram {
	return &histogram{counts: make([]uint64, numBuckets), min: math.MaxInt64}
}

// bucketIndex returns the bucket of v nanoseconds.
func bucketIndex(v int64) int {
	if v < 0 {
		v = 0
	}
	if v < subCount {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - subBits - 1
	if shift > maxShift {
		return numBuckets - 1
	}
	return shift*subCount + int(v>>shift)
}

// bucketUpper returns the largest value that falls into bucket i.
func bucketUpper(i int) int64 {
	if i < 2*subCount {
		return int64(i)
	}
	shift := i/subCount - 1
	lower := int64(i-shift*subCount) << shift
	return lower + int64(1)<<shift - 1
}

// record adds one latency.
func (h *histogram) record(d time.Duration) {
	v := int64(d)
	h.counts[bucketIndex(v)]++
	h.n++
	h.sum += float64(v)
	h.min = min(h.min, v)
	h.max = max(h.max, v)
}

// merge adds o's samples to h.
func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
}

// count returns the number of recorded samples.
func (h *histogram) count() uint64 { return h.n }

// mean returns the exact mean, 0 without samples.
func (h *histogram) mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

// maximum returns the exact largest sample, 0 without samples.
func (h *histogram) maximum() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.max)
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100): the
// smallest recorded value v such that at least p% of the samples are <= v,
// rounded up to its bucket's upper bound and capped by the exact maximum
// (so percentile(100) is the maximum). It returns 0 without samples.
func (h *histogram) percentile(p float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(p / 100 * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			v := min(bucketUpper(i), h.max)
			return time.Duration(max(v, h.min))
		}
	}
	return time.Duration(h.max)
}

// median returns the median of xs (the mean of the two middle values for
// an even count), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
