package session

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func TestFakeClockOrdering(t *testing.T) {
	c := NewFakeClock(t0)
	var got []string
	at := map[string]time.Time{}
	add := func(name string, d time.Duration) {
		c.AfterFunc(d, func() {
			got = append(got, name)
			at[name] = c.Now()
		})
	}
	add("c", 3*time.Second)
	add("a", time.Second)
	add("b1", 2*time.Second)
	add("b2", 2*time.Second) // same deadline: scheduling order
	add("late", 10*time.Second)

	c.Advance(500 * time.Millisecond)
	require.Empty(t, got)
	require.Equal(t, t0.Add(500*time.Millisecond), c.Now())

	c.Advance(2500 * time.Millisecond)
	require.Equal(t, []string{"a", "b1", "b2", "c"}, got)
	require.Equal(t, t0.Add(time.Second), at["a"], "Now reports the deadline inside a callback")
	require.Equal(t, t0.Add(3*time.Second), at["c"])
	require.Equal(t, t0.Add(3*time.Second), c.Now())
	require.Equal(t, 1, c.Pending())

	c.Set(t0.Add(time.Minute))
	require.Equal(t, []string{"a", "b1", "b2", "c", "late"}, got)
	require.Equal(t, t0.Add(time.Minute), c.Now())
	c.Set(t0) // never goes back
	require.Equal(t, t0.Add(time.Minute), c.Now())
}

func TestFakeClockNestedAfterFunc(t *testing.T) {
	c := NewFakeClock(t0)
	var got []time.Duration
	var step func()
	step = func() {
		got = append(got, c.Now().Sub(t0))
		if len(got) < 5 {
			c.AfterFunc(time.Second, step) // schedules from inside a callback
		}
	}
	c.AfterFunc(time.Second, step)
	c.Advance(3 * time.Second)
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, got)
	c.Advance(10 * time.Second)
	require.Len(t, got, 5)
	require.Zero(t, c.Pending())
}

func TestFakeClockZeroDelayRunsOnNextAdvance(t *testing.T) {
	c := NewFakeClock(t0)
	ran := false
	c.AfterFunc(0, func() { ran = true })
	require.False(t, ran, "never synchronous")
	c.Advance(0)
	require.True(t, ran)
}

func TestFakeClockStop(t *testing.T) {
	c := NewFakeClock(t0)
	ran := 0
	tm := c.AfterFunc(time.Second, func() { ran++ })
	other := c.AfterFunc(2*time.Second, func() { ran += 10 })
	require.True(t, tm.Stop())
	require.False(t, tm.Stop())
	c.Advance(5 * time.Second)
	require.Equal(t, 10, ran)
	require.False(t, other.Stop(), "already ran")
}

func TestFakeClockStopFromCallback(t *testing.T) {
	c := NewFakeClock(t0)
	ran := false
	var victim Timer
	c.AfterFunc(time.Second, func() { require.True(t, victim.Stop()) })
	victim = c.AfterFunc(2*time.Second, func() { ran = true })
	c.Advance(time.Minute)
	require.False(t, ran)
}

func TestFakeClockConcurrentAdvance(t *testing.T) {
	c := NewFakeClock(t0)
	var mu sync.Mutex
	count := 0
	for i := 1; i <= 100; i++ {
		c.AfterFunc(time.Duration(i)*time.Millisecond, func() {
			mu.Lock()
			count++
			mu.Unlock()
		})
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 25 {
				c.Advance(time.Millisecond)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	require.Equal(t, t0.Add(100*time.Millisecond), c.Now())
	require.Equal(t, 100, count)
}

func TestRealClock(t *testing.T) {
	c := RealClock()
	before := time.Now()
	require.False(t, c.Now().Before(before))
	done := make(chan struct{})
	c.AfterFunc(time.Millisecond, func() { close(done) })
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("RealClock.AfterFunc did not fire")
	}
	stopped := c.AfterFunc(time.Hour, func() { t.Error("stopped timer ran") })
	require.True(t, stopped.Stop())
}
