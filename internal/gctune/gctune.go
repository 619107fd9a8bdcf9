package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Config is the tuner's policy.
type Config struct {
	// MinHeadroom is the least room for garbage above the live heap, in
	// bytes.
	MinHeadroom uint64
	// Percent is the room for garbage as a percentage of the live heap,
	// when that is more than MinHeadroom.
	Percent int
	// MaxPercent bounds the room the collector's CPU may win (see
	// MaxGCShare); at or below Percent the room stays Percent.
	MaxPercent int
	// MaxGCShare is the share of the process's CPU (GOMAXPROCS × the
	// time between collections) the collector may use before the room
	// doubles, up to MaxPercent. Below a quarter of it the room halves
	// again, down to Percent. Zero turns the adaptation off.
	MaxGCShare float64
	// IdleAfter is how often the tuner looks at the allocation rate. A
	// look that finds less allocated since the one before than an eighth
	// of the room at Percent (the floor's room would then last more than
	// eight looks) halves the room, down to Percent, so that a server
	// whose writes stopped hands back the room they won. Zero leaves the
	// room to the collections alone.
	IdleAfter time.Duration
}

// DefaultConfig is zkserver's policy: at least 16 MiB of room, and a
// quarter of the live heap once that is larger (above 64 MiB live); while
// the collector takes more than a tenth of the CPU (a large tree under
// writes, or a restart loading one), up to the whole live heap, as Go's
// default GOGC=100 gives; halved every 15 s in which little was allocated.
func DefaultConfig() Config {
	return Config{MinHeadroom: 16 << 20, Percent: 25, MaxPercent: 100, MaxGCShare: 0.10, IdleAfter: 15 * time.Second}
}

// heapMinimum is the Go runtime's smallest heap goal at GOGC=100. It
// scales with GOGC (at GOGC=400 no collection starts below 16 MiB), so for
// a small live heap it, not the live heap, decides the goal.
const heapMinimum = 4 << 20

// The runtime/metrics the tuner reads after each collection: the heap it
// marked live, the collector's CPU and the collections runtime.GC forced.
// The collector's CPU includes its marking on Ps that had nothing else to
// run: a P idle in Go is not a core idle on the machine when other
// processes share it (an ensemble on one host, a container's CPU quota),
// and three servers on two cores each marking on their idle Ps took the
// CPU the others' writes waited for (docs/scale.md).
const (
	liveMetric   = "/gc/heap/live:bytes"
	gcCPUMetric  = "/cpu/classes/gc/total:cpu-seconds"
	forcedMetric = "/gc/cycles/forced:gc-cycles"
	allocsMetric = "/gc/heap/allocs:bytes"
)

// Tuner adjusts GOGC after every collection until it is stopped.
type Tuner struct {
	cfg     Config
	stopped atomic.Bool
	mu      sync.Mutex // serialises adjust (finalizers run one at a time, Stop may race)
	sample  []metrics.Sample
	percent int
	room    int // the current room in percent of the live heap, Percent to MaxPercent
	last    cpuMark
	stop    chan struct{} // closed by Stop: ends the idle watch
	once    sync.Once
	allocs  uint64 // bytes allocated in all at the idle watch's last look
	looked  bool   // allocs holds a look
	grown   bool   // the room rose above Percent since memory was last handed back
}

// cpuMark is where the collector's CPU stood after a collection.
type cpuMark struct {
	at     time.Time
	gc     float64 // seconds of collector CPU
	forced uint64
}

// Start starts a tuner with cfg, unless the environment sets GOGC: then it
// returns nil and the collector keeps the user's setting.
func Start(cfg Config) *Tuner {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	t := &Tuner{cfg: cfg, percent: -1, room: cfg.Percent, stop: make(chan struct{}), sample: []metrics.Sample{
		{Name: liveMetric}, {Name: gcCPUMetric}, {Name: forcedMetric}}}
	t.adjust()
	t.arm()
	if cfg.IdleAfter > 0 {
		go t.watchIdle()
	}
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
		t.once.Do(func() { close(t.stop) })
	}
}

// Room returns the current room in percent of the live heap.
func (t *Tuner) Room() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.room
}

// watchIdle looks at the allocation rate every IdleAfter (idleTick).
func (t *Tuner) watchIdle() {
	tick := time.NewTicker(t.cfg.IdleAfter)
	defer tick.Stop()
	sample := []metrics.Sample{{Name: allocsMetric}, {Name: liveMetric}}
	look := func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
			return false
		}
		return t.idleTick(sample[0].Value.Uint64(), sample[1].Value.Uint64())
	}
	look()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			if look() {
				debug.FreeOSMemory()
			}
		}
	}
}

// idleTick takes a look: allocs is the bytes allocated in all, live the
// live heap. When less than an eighth of the floor's room (Percent of
// live, at least MinHeadroom) was allocated since the last look, it
// halves the room and sets GOGC for it. It reports whether the caller
// should hand the memory above the goal back at once
// (debug.FreeOSMemory, one forced collection): at the first such quiet
// look that finds the room back at Percent after it had grown. The
// runtime's scavenger alone kept a good part of a grown heap mapped (at
// 3M znodes a third of a server's RSS, minutes after its writes stopped).
func (t *Tuner) idleTick(allocs, live uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	since, looked := allocs-t.allocs, t.looked
	t.allocs, t.looked = allocs, true
	floor := max(t.cfg.MinHeadroom, live*uint64(t.cfg.Percent)/100)
	if !looked || since >= floor/8 || t.stopped.Load() {
		return false
	}
	if t.room > t.cfg.Percent {
		t.room = max(t.room/2, t.cfg.Percent)
		t.setPercentLocked()
	}
	if t.room > t.cfg.Percent || !t.grown {
		return false
	}
	t.grown = false
	return true
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

// adjust sets GOGC from the live heap of the last collection, and the
// room from the collector's share of the CPU since the one before.
func (t *Tuner) adjust() {
	t.mu.Lock()
	defer t.mu.Unlock()
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return // the runtime does not report the live heap
	}
	t.adaptRoom()
	t.setPercentLocked()
}

// setPercentLocked sets GOGC for the room and the live heap of the last
// sample; t.mu is held.
func (t *Tuner) setPercentLocked() {
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	cfg := t.cfg
	cfg.Percent = t.room
	p := PercentFor(t.sample[0].Value.Uint64(), cfg)
	if p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
}

// adaptRoom moves the room by the collector's CPU share since the last
// collection. A collection forced by runtime.GC (a heap dump, a memory
// probe) is not one the allocation rate asked for, so it moves nothing.
func (t *Tuner) adaptRoom() {
	if t.cfg.MaxGCShare <= 0 || t.sample[1].Value.Kind() != metrics.KindFloat64 ||
		t.sample[2].Value.Kind() != metrics.KindUint64 {
		return
	}
	now := cpuMark{at: time.Now(), gc: t.sample[1].Value.Float64(), forced: t.sample[2].Value.Uint64()}
	prev := t.last
	t.last = now
	if prev.at.IsZero() || now.forced != prev.forced {
		return
	}
	capacity := now.at.Sub(prev.at).Seconds() * float64(runtime.GOMAXPROCS(0))
	if capacity > 0 {
		t.room = NextRoom(t.room, (now.gc-prev.gc)/capacity, t.cfg)
		t.grown = t.grown || t.room > t.cfg.Percent
	}
}

// NextRoom returns the room (percent of the live heap) after a collection
// cycle in which the collector used share of the process's CPU: doubled
// while the share is above cfg.MaxGCShare, halved once it is below a
// quarter of it, and never outside [cfg.Percent, max(cfg.Percent,
// cfg.MaxPercent)]. The collector's work per byte allocated falls as the
// room grows (each cycle marks the live heap once, and the room is what
// is allocated between cycles), so doubling halves the share; the band
// between a quarter and the whole of MaxGCShare is wider than that, so a
// steady load settles instead of swinging between two rooms.
func NextRoom(room int, share float64, cfg Config) int {
	top := max(cfg.Percent, cfg.MaxPercent)
	switch {
	case share > cfg.MaxGCShare:
		room *= 2
	case share < cfg.MaxGCShare/4:
		room /= 2
	}
	return min(max(room, cfg.Percent), top)
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
