package integration

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// This file holds the soak's bookkeeping: latency histograms, operation
// counters, resource samples and findings. Everything is bounded in size
// (histograms, not lists of samples) so the bookkeeping itself does not
// show up as heap growth over an hour.

// latHist is a log-scale latency histogram: bucket i holds durations in
// [histBase*histGrowth^i, histBase*histGrowth^(i+1)), so a percentile is
// exact to within 5%.
type latHist struct {
	mu      sync.Mutex
	buckets [histBuckets]int64
	n       int64
	max     time.Duration
}

const (
	histBase    = 10 * time.Microsecond
	histGrowth  = 1.05
	histBuckets = 400 // 10 µs × 1.05^400 ≈ 50 minutes; the last bucket holds everything above
)

func (h *latHist) add(d time.Duration) {
	i := 0
	if d > histBase {
		i = int(math.Log(float64(d)/float64(histBase)) / math.Log(histGrowth))
	}
	i = min(i, histBuckets-1)
	h.mu.Lock()
	h.buckets[i]++
	h.n++
	h.max = max(h.max, d)
	h.mu.Unlock()
}

// quantile returns the upper bound of the bucket holding quantile q.
func (h *latHist) quantile(q float64) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	var seen int64
	for i, c := range h.buckets {
		seen += c
		if seen >= rank && i < histBuckets-1 {
			return min(time.Duration(float64(histBase)*math.Pow(histGrowth, float64(i+1))), h.max)
		}
	}
	return h.max
}

// opStats counts one kind of client operation and times the ones that
// completed with a definite answer.
type opStats struct {
	ok, failed, unknown atomic.Int64 // ok: definite reply; failed: refused (e.g. session moved); unknown: connection lost
	lat                 latHist
}

// opKinds are the rows of the summary, in order.
var opKinds = []string{
	"lin-create", "lin-get", "lin-set", "lin-delete",
	"writer-create", "writer-set", "eph-check", "watch-rearm", "slow-batch",
}

// findings collects violations of the soak's invariants. Workers record
// them and go on; the test fails at the end if there are any.
type findings struct {
	mu   sync.Mutex
	list []string
}

func (f *findings) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	// Printed at once too, so a long run shows its findings as they come
	// (stderr, not t.Logf: a hung worker may outlive the test).
	fmt.Fprintf(os.Stderr, "%s soak finding: %s\n", time.Now().UTC().Format(time.TimeOnly), msg)
	if len(f.list) < 200 { // keep the report readable; the count still says how many
		f.list = append(f.list, msg)
	}
}

func (f *findings) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.list...)
}

// resSample is the process's heap and goroutines after a GC, taken at the
// end of a fault period once the ensemble is healthy again.
type resSample struct {
	at         time.Duration
	heapInuse  uint64
	goroutines int
}

func takeSample(since time.Time) resSample {
	runtime.GC()
	runtime.GC() // the second cycle frees what the first one's finalizers released
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return resSample{at: time.Since(since), heapInuse: ms.HeapInuse, goroutines: runtime.NumGoroutine()}
}

// steadiness compares the median of the last third of the samples with
// the median of the first third after warm-up (the first sample is left
// out: it includes start-up allocations). It returns a message for each
// resource that grew past its bound, which soak_test.go documents.
func steadiness(samples []resSample) []string {
	if len(samples) < 4 {
		return nil
	}
	s := samples[1:]
	third := max(len(s)/3, 1)
	first, last := s[:third], s[len(s)-third:]
	med := func(xs []resSample, f func(resSample) float64) float64 {
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = f(x)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	heap := func(r resSample) float64 { return float64(r.heapInuse) }
	gor := func(r resSample) float64 { return float64(r.goroutines) }
	var out []string
	h0, h1 := med(first, heap), med(last, heap)
	if h1 > h0*heapGrowthFactor+heapGrowthSlack {
		out = append(out, fmt.Sprintf("heap in use grew: median %s in the first third, %s in the last (bound %.2fx + %s)",
			mib(h0), mib(h1), heapGrowthFactor, mib(heapGrowthSlack)))
	}
	g0, g1 := med(first, gor), med(last, gor)
	if g1 > g0*goroutineGrowthFactor+goroutineGrowthSlack {
		out = append(out, fmt.Sprintf("goroutines grew: median %.0f in the first third, %.0f in the last (bound %.2fx + %d)",
			g0, g1, goroutineGrowthFactor, goroutineGrowthSlack))
	}
	return out
}

// The steadiness bounds. The heap holds, besides the servers, the current
// linearizability segment's history and the writers' not-yet-verified
// znodes, both proportional to one period's throughput, which varies with
// the faults of the period and the load of the machine: 25% plus 16 MiB
// absorbs that, while a leak of a connection's or a session's state on
// every reconnect (thousands per hour) or of every request shows up as
// growth well past it over an hour. Goroutines: every client keeps one
// connection, so the count only moves with connections being re-made at
// the moment of the sample; 10% plus 20 covers that, and a goroutine
// leaked per fault (hundreds per hour) does not fit in it.
const (
	heapGrowthFactor      = 1.25
	heapGrowthSlack       = 16 << 20
	goroutineGrowthFactor = 1.10
	goroutineGrowthSlack  = 20
)

func mib(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

// table renders rows as aligned columns for the summary.
func table(header []string, rows [][]string) string {
	w := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			w[i] = max(w[i], len(c))
		}
	}
	var b strings.Builder
	line := func(r []string) {
		b.WriteString("| ")
		for i, c := range r {
			fmt.Fprintf(&b, "%-*s | ", w[i], c)
		}
		b.WriteString("\n")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = strings.Repeat("-", w[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}
