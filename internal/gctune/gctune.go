package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Config is the tuner's policy.
type Config struct {
	// MinHeadroom is the least room for garbage above the live heap, in
	// bytes.
	MinHeadroom uint64
	// Percent is the room for garbage as a percentage of the live heap,
	// when that is more than MinHeadroom.
	Percent int
}

// DefaultConfig is zkserver's policy: at least 16 MiB of room, and a
// quarter of the live heap once that is larger (above 64 MiB live).
func DefaultConfig() Config { return Config{MinHeadroom: 16 << 20, Percent: 25} }

// heapMinimum is the Go runtime's smallest heap goal at GOGC=100. It
// scales with GOGC (at GOGC=400 no collection starts below 16 MiB), so for
// a small live heap it, not the live heap, decides the goal.
const heapMinimum = 4 << 20

// liveMetric is the heap marked live by the last collection.
const liveMetric = "/gc/heap/live:bytes"

// Tuner adjusts GOGC after every collection until it is stopped.
type Tuner struct {
	cfg     Config
	stopped atomic.Bool
	mu      sync.Mutex // serialises adjust (finalizers run one at a time, Stop may race)
	sample  []metrics.Sample
	percent int
}

// Start starts a tuner with cfg, unless the environment sets GOGC: then it
// returns nil and the collector keeps the user's setting.
func Start(cfg Config) *Tuner {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	t := &Tuner{cfg: cfg, sample: []metrics.Sample{{Name: liveMetric}}, percent: -1}
	t.adjust()
	t.arm()
	return t
}

// Percent returns the GOGC value the tuner last set.
func (t *Tuner) Percent() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.percent
}

// Stop stops adjusting; GOGC keeps its last value. Safe on a nil Tuner.
func (t *Tuner) Stop() {
	if t != nil {
		t.stopped.Store(true)
	}
}

// sentinel is dropped as soon as it is made; its finalizer runs after the
// collection that finds it unreachable, and arms the next one.
type sentinel struct{ t *Tuner }

func (t *Tuner) arm() {
	s := &sentinel{t: t}
	runtime.SetFinalizer(s, func(s *sentinel) {
		if s.t.stopped.Load() {
			return
		}
		s.t.adjust()
		s.t.arm()
	})
}

// adjust sets GOGC from the live heap of the last collection.
func (t *Tuner) adjust() {
	t.mu.Lock()
	defer t.mu.Unlock()
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return // the runtime does not report the live heap
	}
	p := PercentFor(t.sample[0].Value.Uint64(), t.cfg)
	if p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
}

// PercentFor returns the GOGC value that gives a heap of live bytes the
// headroom cfg asks for. The runtime's goal is the larger of
// live × (1 + GOGC/100) and heapMinimum × GOGC/100, so a GOGC that gives a
// small heap its MinHeadroom through the first term would raise the second
// far above it; the result is capped so that the minimum stays at
// live + MinHeadroom. (The runtime also counts goroutine stacks and globals
// in the first term, a few hundred KiB here.)
func PercentFor(live uint64, cfg Config) int {
	limit := (live + cfg.MinHeadroom) * 100 / heapMinimum
	p := limit // before the first collection the live heap is unknown (0)
	if live > 0 {
		p = min(max(uint64(cfg.Percent), cfg.MinHeadroom*100/live), limit)
	}
	return int(max(p, 1))
}
