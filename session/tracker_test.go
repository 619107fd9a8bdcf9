package session

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tick = 2 * time.Second

// recorder collects expire callbacks.
type recorder struct {
	mu  sync.Mutex
	ids []int64
}

func (r *recorder) expire(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
}

func (r *recorder) got() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.ids...)
}

func newFakeTracker(t *testing.T) (*Tracker, *FakeClock, *recorder) {
	t.Helper()
	c := NewFakeClock(t0)
	r := &recorder{}
	tr := NewTracker(c, tick, r.expire)
	tr.Start()
	t.Cleanup(tr.Stop)
	return tr, c, r
}

func TestTrackerExpiresAtRoundedUpDeadline(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	c.Advance(500 * time.Millisecond)
	tr.Add(1, 5*time.Second)         // now+timeout = 5.5s -> bucket 6s
	tr.Add(2, 6*time.Second)         // 6.5s -> 8s
	tr.Add(3, 3500*time.Millisecond) // exactly 4s -> strictly next boundary, 6s
	require.Equal(t, map[int64]time.Time{
		1: t0.Add(6 * time.Second),
		2: t0.Add(8 * time.Second),
		3: t0.Add(6 * time.Second),
	}, tr.Deadlines())

	c.Set(t0.Add(6*time.Second - time.Millisecond))
	require.Empty(t, r.got(), "no early expiry")
	c.Advance(time.Millisecond)
	require.Equal(t, []int64{1, 3}, r.got())
	c.Advance(2*time.Second - time.Millisecond)
	require.Equal(t, []int64{1, 3}, r.got())
	c.Advance(time.Millisecond)
	require.Equal(t, []int64{1, 3, 2}, r.got())
	require.Empty(t, tr.Deadlines())
}

func TestTrackerNoEarlyExpiryFineSteps(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	tr.Add(7, 10*time.Second) // bucket 12s
	for c.Now().Before(t0.Add(12 * time.Second)) {
		require.Empty(t, r.got(), "expired early at %v", c.Now().Sub(t0))
		c.Advance(100 * time.Millisecond)
	}
	require.Equal(t, []int64{7}, r.got())
}

func TestTrackerTouchKeepsAlive(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	tr.Add(1, 4*time.Second)
	tr.Add(2, 4*time.Second)
	for range 200 { // 200 s, 100 ticks
		c.Advance(time.Second)
		require.True(t, tr.Touch(1))
	}
	require.Equal(t, []int64{2}, r.got())
	last := c.Now()
	for !c.Now().After(last.Add(6 * time.Second)) {
		c.Advance(250 * time.Millisecond)
	}
	require.Equal(t, []int64{2, 1}, r.got())
}

func TestTrackerExpiresOnce(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	tr.Add(1, time.Second)
	c.Advance(time.Minute)
	require.Equal(t, []int64{1}, r.got())
	require.True(t, tr.IsClosing(1))
	require.False(t, tr.Touch(1), "expired session cannot be touched")
	c.Advance(time.Hour)
	require.Equal(t, []int64{1}, r.got())

	tr.Add(1, time.Second) // re-added: may expire again
	require.False(t, tr.IsClosing(1))
	require.True(t, tr.Touch(1))
	c.Advance(time.Minute)
	require.Equal(t, []int64{1, 1}, r.got())
}

func TestTrackerRemoveAndSetClosing(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	tr.Add(1, time.Second)
	tr.Add(2, time.Second)
	tr.Add(3, time.Second)
	tr.Remove(1)
	tr.Remove(99) // unknown: no-op
	tr.SetClosing(2)
	require.False(t, tr.Touch(1))
	require.False(t, tr.Touch(2))
	require.Equal(t, 2, tr.Len())
	c.Advance(time.Minute)
	require.Equal(t, []int64{3}, r.got())
	tr.Remove(2)
	tr.Remove(3)
	require.Zero(t, tr.Len())
}

func TestTrackerStopPreventsCallbacks(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	tr.Add(1, time.Second)
	tr.Stop()
	tr.Stop() // idempotent
	require.Zero(t, c.Pending())
	c.Advance(time.Hour)
	require.Empty(t, r.got())
	tr.Start() // no restart
	tr.Add(2, time.Second)
	c.Advance(time.Hour)
	require.Empty(t, r.got())
	require.Zero(t, c.Pending())
}

func TestTrackerAddBeforeStart(t *testing.T) {
	c := NewFakeClock(t0)
	r := &recorder{}
	tr := NewTracker(c, tick, r.expire)
	defer tr.Stop()
	tr.Add(1, time.Second)
	c.Advance(time.Minute)
	require.Empty(t, r.got(), "not started")
	tr.Start()
	require.Empty(t, r.got(), "expiry is asynchronous")
	c.Advance(0)
	require.Equal(t, []int64{1}, r.got())
}

func TestTrackerSingleTimer(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	require.Zero(t, c.Pending(), "no timer without sessions")
	for i := range int64(50) {
		tr.Add(i, time.Duration(i+1)*time.Second)
		require.Equal(t, 1, c.Pending())
	}
	tr.Add(100, 0) // earlier bucket replaces the pending timer
	require.Equal(t, 1, c.Pending())
	c.Advance(time.Hour)
	require.Len(t, r.got(), 51)
	require.Zero(t, c.Pending())
}

func TestTrackerCallbackMayUseTracker(t *testing.T) {
	c := NewFakeClock(t0)
	var tr *Tracker
	var got []int64
	tr = NewTracker(c, tick, func(id int64) {
		got = append(got, id)
		require.False(t, tr.Touch(id))
		tr.Remove(id)
		if id < 3 {
			tr.Add(id+1, time.Second)
		}
		_ = tr.Deadlines()
	})
	tr.Start()
	defer tr.Stop()
	tr.Add(1, time.Second)
	c.Advance(time.Minute)
	require.Equal(t, []int64{1, 2, 3}, got)
	require.Zero(t, tr.Len())
}

func TestTrackerConcurrentTouchWhileAdvancing(t *testing.T) {
	tr, c, r := newFakeTracker(t)
	const n = 8
	for i := range int64(n) {
		tr.Add(i, 10*time.Second)
	}
	tr.Add(100, 10*time.Second) // never touched: expires during the run
	// Each round advances the clock by one second while every session is
	// touched concurrently, so a touched session never goes 10 s idle.
	for range 60 {
		var wg sync.WaitGroup
		wg.Go(func() {
			for range 10 {
				c.Advance(100 * time.Millisecond)
			}
		})
		for i := range int64(n) {
			wg.Go(func() {
				for range 20 {
					assert.True(t, tr.Touch(i))
					_ = tr.Deadlines()
				}
			})
		}
		wg.Wait()
	}
	require.Equal(t, []int64{100}, r.got())
	c.Advance(time.Minute)
	require.Len(t, r.got(), n+1)
}

func TestTrackerConcurrentStop(t *testing.T) {
	c := NewFakeClock(t0)
	var count int
	var mu sync.Mutex
	tr := NewTracker(c, tick, func(int64) { mu.Lock(); count++; mu.Unlock() })
	tr.Start()
	for i := range int64(1000) {
		tr.Add(i, time.Duration(i%20)*time.Second)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 100 {
			c.Advance(100 * time.Millisecond)
		}
	})
	tr.Stop()
	mu.Lock()
	after := count
	mu.Unlock()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, after, count, "no callback after Stop returned")
}

func TestTrackerRealClock(t *testing.T) {
	expired := make(chan int64, 4)
	tr := NewTracker(RealClock(), 5*time.Millisecond, func(id int64) { expired <- id })
	tr.Start()
	defer tr.Stop()
	tr.Add(42, 10*time.Millisecond)
	select {
	case id := <-expired:
		require.Equal(t, int64(42), id)
	case <-time.After(5 * time.Second):
		t.Fatal("session did not expire")
	}
	tr.Add(43, time.Hour) // pending real timer must be cleaned up by Stop
}
