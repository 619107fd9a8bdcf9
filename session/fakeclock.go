package session

import (
	"container/heap"
	"sync"
	"time"
)

// FakeClock is a manually driven Clock for tests. Time moves only when
// Advance or Set is called; AfterFunc callbacks whose deadline has been
// reached then run synchronously, in deadline order (ties in scheduling
// order), on the goroutine that called Advance or Set, before it returns.
//
// All methods are safe for concurrent use. Callbacks may call Now, AfterFunc
// and Timer.Stop (a callback scheduled for a time not later than the
// Advance target runs within the same Advance). Calls to Advance and Set are
// serialised, so a callback must not call Advance or Set itself.
type FakeClock struct {
	advanceMu sync.Mutex // serialises Advance and Set

	mu     sync.Mutex // guards the fields below
	now    time.Time
	seq    uint64
	timers timerHeap
}

// NewFakeClock returns a FakeClock reading start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start}
}

// Now returns the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f to run once the clock has advanced by d. A d <= 0
// runs f during the next Advance or Set call (even Advance(0)), never from
// within AfterFunc itself.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{clock: c, when: c.now.Add(d), seq: c.seq, f: f}
	c.seq++
	heap.Push(&c.timers, t)
	return t
}

// Advance moves the clock forward by d, running every callback whose
// deadline is reached. While a callback runs, Now reports its deadline.
func (c *FakeClock) Advance(d time.Duration) {
	c.advanceMu.Lock()
	defer c.advanceMu.Unlock()
	c.runUntil(c.Now().Add(d))
}

// Set moves the clock to t, running every callback whose deadline is not
// after t. A t before Now does not move the clock back.
func (c *FakeClock) Set(t time.Time) {
	c.advanceMu.Lock()
	defer c.advanceMu.Unlock()
	c.runUntil(t)
}

// Pending returns the number of scheduled, not yet run or stopped callbacks.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers.Len()
}

// runUntil runs due callbacks one at a time without holding c.mu, so they
// may use the clock, then leaves the clock at target.
func (c *FakeClock) runUntil(target time.Time) {
	for {
		f := c.popDue(target)
		if f == nil {
			return
		}
		f()
	}
}

// popDue removes and returns the earliest callback due by target, moving the
// clock to its deadline; with none due it moves the clock to target and
// returns nil.
func (c *FakeClock) popDue(target time.Time) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timers.Len() > 0 && !c.timers[0].when.After(target) {
		t := heap.Pop(&c.timers).(*fakeTimer)
		if t.when.After(c.now) {
			c.now = t.when
		}
		return t.f
	}
	if target.After(c.now) {
		c.now = target
	}
	return nil
}

// fakeTimer is one FakeClock.AfterFunc registration.
type fakeTimer struct {
	clock *FakeClock
	when  time.Time
	seq   uint64
	f     func()
	index int // position in the heap, -1 once popped or stopped
}

// Stop removes the timer if it is still pending.
func (t *fakeTimer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.timers, t.index)
	return true
}

// timerHeap orders timers by deadline, then by scheduling order.
type timerHeap []*fakeTimer

func (h timerHeap) Len() int { return len(h) }

func (h timerHeap) Less(i, j int) bool {
	if h[i].when.Equal(h[j].when) {
		return h[i].seq < h[j].seq
	}
	return h[i].when.Before(h[j].when)
}

func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *timerHeap) Push(x any) {
	t := x.(*fakeTimer)
	t.index = len(*h)
	*h = append(*h, t)
}

func (h *timerHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	t.index = -1
	*h = old[:n-1]
	return t
}
