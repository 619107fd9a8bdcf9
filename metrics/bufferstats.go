package metrics

import (
	"math"
	"sync/atomic"
)

// BufferStats are the last, smallest and largest of a size, as ZooKeeper's
// BufferStats keeps them for replies and proposals: each is -1 until the
// first Add. The zero value is not ready: call Reset first.
type BufferStats struct {
	last, min, max atomic.Int64
}

// Reset forgets every size.
func (b *BufferStats) Reset() {
	b.last.Store(-1)
	b.min.Store(math.MaxInt64)
	b.max.Store(-1)
}

// Add records one size: a store, and a CAS only when a bound moves.
func (b *BufferStats) Add(n int64) {
	b.last.Store(n)
	for m := b.min.Load(); n < m && !b.min.CompareAndSwap(m, n); m = b.min.Load() {
	}
	for m := b.max.Load(); n > m && !b.max.CompareAndSwap(m, n); m = b.max.Load() {
	}
}

// Values returns last, min and max, each -1 before the first Add.
func (b *BufferStats) Values() (last, min, max int64) {
	min = b.min.Load()
	if min == math.MaxInt64 {
		min = -1
	}
	return b.last.Load(), min, b.max.Load()
}
