package metrics

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// A window is a histogram of the last ten minutes of a summary's values,
// from which its quantiles are read. Recording one value is an atomic
// add: the request path can afford it, where a lock and a quantile stream
// (prometheus.Summary.Observe, measured at 770 ns) it could not.
//
// Buckets are log-linear: values below 16 have a bucket each; above, each
// power of two is cut in 8, so a quantile read from a bucket's middle is
// within 1/16 of the true value. The window is 5 slots of 2 minutes, as
// the age buckets of Prometheus's simpleclient that ZooKeeper's provider
// uses: a quantile covers the current slot and the 4 before it.

const (
	subBits     = 3
	exactBelow  = 1 << (subBits + 1) // 16
	maxBits     = 41                 // values up to 2^41-1 (ms: 69 years; bytes: 2 TiB)
	bucketCount = exactBelow + (maxBits-subBits-1)<<subBits
	slotCount   = 5
	slotLength  = 2 * time.Minute
)

// nowNanos is the clock; tests move it.
var nowNanos = func() int64 { return time.Now().UnixNano() }

// bucketOf returns v's bucket (negative values count as 0, too large ones
// in the last bucket).
func bucketOf(v int64) int {
	if v < exactBelow {
		return int(max(v, 0))
	}
	u := min(uint64(v), 1<<maxBits-1)
	shift := bits.Len64(u) - subBits - 1
	return exactBelow + (shift-1)<<subBits + int(u>>shift) - 1<<subBits
}

// bucketValue returns the value that stands for bucket i: the value
// itself below 16, else the middle of the bucket's range.
func bucketValue(i int) float64 {
	if i < exactBelow {
		return float64(i)
	}
	shift := (i-exactBelow)>>subBits + 1
	mantissa := uint64(i-exactBelow)&(1<<subBits-1) + 1<<subBits
	lo := mantissa << shift
	return float64(lo) + float64(uint64(1)<<shift-1)/2
}

// slot counts the values of one period of slotLength.
type slot struct {
	period  atomic.Int64
	buckets [bucketCount]atomic.Uint32
}

// window is the histogram; it is allocated on a summary's first value.
type window struct {
	mu    sync.Mutex // held to recycle a slot
	slots [slotCount]slot
}

func newWindow() *window {
	w := new(window)
	for i := range w.slots {
		w.slots[i].period.Store(math.MinInt64)
	}
	return w
}

// add records v at time now.
func (w *window) add(v int64, now int64) {
	period := now / int64(slotLength)
	s := &w.slots[period%slotCount]
	if s.period.Load() != period {
		w.recycle(s, period)
	}
	s.buckets[bucketOf(v)].Add(1)
}

// recycle empties s for period, unless another writer just did.
func (w *window) recycle(s *slot, period int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.period.Load() == period {
		return
	}
	for i := range s.buckets {
		s.buckets[i].Store(0)
	}
	s.period.Store(period)
}

// quantiles returns the values at each of qs over the window at now;
// NaN for all when the window holds nothing.
func (w *window) quantiles(qs []float64, now int64) []float64 {
	period := now / int64(slotLength)
	var counts [bucketCount]uint64
	var total uint64
	for i := range w.slots {
		s := &w.slots[i]
		if p := s.period.Load(); p > period || p <= period-slotCount {
			continue
		}
		for b := range s.buckets {
			n := uint64(s.buckets[b].Load())
			counts[b] += n
			total += n
		}
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = quantileOf(&counts, total, q)
	}
	return out
}

// quantileOf walks the merged buckets to the value of rank q*total.
func quantileOf(counts *[bucketCount]uint64, total uint64, q float64) float64 {
	if total == 0 {
		return math.NaN()
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for b, n := range counts {
		seen += n
		if seen >= max(rank, 1) {
			return bucketValue(b)
		}
	}
	return bucketValue(bucketCount - 1)
}
