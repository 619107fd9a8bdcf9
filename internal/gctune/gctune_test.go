package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	cfg := Config{MinHeadroom: 16 << 20, Percent: 25}
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 400},        // a fresh process: the minimum heap gives 16 MiB
		{1 << 20, 425},  // capped: 4 MiB × 4.25 = 17 MiB = live + 16 MiB
		{4 << 20, 400},  // 16 MiB of room over 4 MiB (goal 20 MiB)
		{16 << 20, 100}, // the floor equals the live heap
		{40 << 20, 40},  // 16 MiB over 40 MiB
		{64 << 20, 25},  // the floor and the fraction meet
		{400 << 20, 25}, // a quarter above that
		{1 << 40, 25},   // no overflow for a huge heap
		{24 << 20, 66},  // integer percent, rounded down
	} {
		if got := PercentFor(c.live, cfg); got != c.want {
			t.Errorf("PercentFor(%d) = %d, want %d", c.live, got, c.want)
		}
		// The goal the runtime derives from the result is never far
		// above live + MinHeadroom (nor below live × 1.25).
		p := uint64(PercentFor(c.live, cfg))
		goal := max(c.live+c.live*p/100, heapMinimum*p/100)
		if limit := max(c.live+cfg.MinHeadroom, c.live+c.live/4) + 1<<20; goal > limit {
			t.Errorf("live %d: GOGC %d gives a goal of %d, above %d", c.live, p, goal, limit)
		}
	}
	if got := PercentFor(1<<30, Config{}); got != 1 {
		t.Errorf("PercentFor with a zero config = %d, want the minimum 1", got)
	}
	if got := PercentFor(0, Config{}); got != 1 {
		t.Errorf("PercentFor(0) with a zero config = %d, want the minimum 1", got)
	}
}

func TestNextRoom(t *testing.T) {
	cfg := DefaultConfig() // 25 to 100, share 0.10
	for _, c := range []struct {
		room  int
		share float64
		want  int
	}{
		{25, 0.30, 50},   // the collector is busy: double
		{50, 0.11, 100},  // still above the share
		{100, 0.50, 100}, // capped at MaxPercent
		{100, 0.05, 100}, // inside the band: stay
		{100, 0.024, 50}, // below a quarter of the share: halve
		{50, 0.0, 25},
		{25, 0.0, 25},  // floored at Percent
		{25, 0.10, 25}, // exactly the share is not above it
	} {
		if got := NextRoom(c.room, c.share, cfg); got != c.want {
			t.Errorf("NextRoom(%d, %.3f) = %d, want %d", c.room, c.share, got, c.want)
		}
	}
	fixed := Config{Percent: 25, MaxPercent: 10, MaxGCShare: 0.1}
	if got := NextRoom(25, 0.9, fixed); got != 25 {
		t.Errorf("with MaxPercent below Percent the room moved to %d, want 25", got)
	}
}

// TestTunerFollowsTheLiveHeap grows the live heap and waits until the
// tuner, called back after a collection, has set GOGC for it.
func TestTunerFollowsTheLiveHeap(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		if Start(DefaultConfig()) != nil {
			t.Fatal("with GOGC in the environment the tuner must not start")
		}
		t.Skip("GOGC is set in the environment, so the tuner stays off; the rest needs it unset")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	cfg := Config{MinHeadroom: 1 << 20, Percent: 10}
	tuner := Start(cfg)
	defer tuner.Stop()
	if p := tuner.Percent(); p <= cfg.Percent {
		t.Fatalf("with a small live heap GOGC = %d, want more than %d (the floor's room)", p, cfg.Percent)
	}

	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 256<<10) // 16 MiB in all, so the fraction wins
	}
	deadline := time.Now().Add(30 * time.Second)
	for tuner.Percent() != cfg.Percent {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d after 30s with 16 MiB live, want %d", tuner.Percent(), cfg.Percent)
		}
		runtime.GC() // each collection runs the tuner's finalizer
		runtime.Gosched()
	}
	if cur := debug.SetGCPercent(cfg.Percent); cur != cfg.Percent {
		t.Fatalf("the runtime's GOGC is %d, want %d", cur, cfg.Percent)
	}
	runtime.KeepAlive(live)
}

// TestIdleHalvesTheRoom: each look that finds little allocated since the
// one before (less than an eighth of the floor's room) halves the room,
// down to Percent; a busy period in between leaves it.
func TestIdleHalvesTheRoom(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	cfg := DefaultConfig()
	tuner := &Tuner{cfg: cfg, percent: -1, room: 100, grown: true, stop: make(chan struct{}), sample: []metrics.Sample{{Name: liveMetric}}}
	runtime.GC()
	metrics.Read(tuner.sample)
	const live = 1 << 30 // the floor's room is 256 MiB, quiet below 32 MiB
	for _, step := range []struct {
		allocs uint64
		want   int
		free   bool // the look says to hand memory back
	}{
		{1 << 30, 100, false},        // the first look only counts
		{1<<30 + 40<<20, 100, false}, // 40 MiB since: busy
		{1<<30 + 50<<20, 50, false},  // 10 MiB since: quiet
		{1<<30 + 100<<20, 50, false}, // busy
		{1<<30 + 101<<20, 25, true},  // quiet, down to the floor
		{1<<30 + 102<<20, 25, false}, // floored, and handed back once
	} {
		free := tuner.idleTick(step.allocs, live)
		if got := tuner.Room(); got != step.want || free != step.free {
			t.Fatalf("after a look at %d bytes allocated the room is %d (hand back: %t), want %d (%t)",
				step.allocs, got, free, step.want, step.free)
		}
	}
	if want := PercentFor(tuner.sample[0].Value.Uint64(), cfg); tuner.Percent() != want {
		t.Fatalf("GOGC is %d at a room of %d%%, want %d", tuner.Percent(), cfg.Percent, want)
	}
	// The room may come back down at a collection (NextRoom), not at a
	// look: the first quiet look after that hands the memory back.
	tuner.grown = true
	if !tuner.idleTick(1<<30+103<<20, live) || tuner.idleTick(1<<30+104<<20, live) {
		t.Fatal("the first quiet look at the floor after the room grew must hand memory back, and only that one")
	}
	tuner.Stop()
	tuner.room = 100
	tuner.idleTick(1<<30+105<<20, live)
	if tuner.Room() != 100 {
		t.Fatal("a stopped tuner moved the room")
	}
}
