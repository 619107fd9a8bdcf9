package consensus

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestYieldingLockerPausesAsLongAsItHeld: steps shorter than minPause run
// back to back (a sleep that short would last a millisecond or more) until
// the time held adds up to minPause; then the walk sleeps it off, and what
// a sleep overshoots is credited against the next steps. On a fake clock.
func TestYieldingLockerPausesAsLongAsItHeld(t *testing.T) {
	var clock time.Time
	var slept []time.Duration
	l := newYieldingLocker(&sync.Mutex{})
	l.now = func() time.Time { return clock }
	l.sleep = func(d time.Duration) {
		slept = append(slept, d)
		clock = clock.Add(d + 500*time.Microsecond) // the timer overshoots
	}
	step := func(held time.Duration) {
		l.Lock()
		clock = clock.Add(held)
		l.Unlock()
	}
	for i := 0; i < 9; i++ {
		step(100 * time.Microsecond)
	}
	require.Empty(t, slept, "900 µs held: only yields so far")
	step(100 * time.Microsecond)
	require.Equal(t, []time.Duration{time.Millisecond}, slept, "1 ms held: one sleep of 1 ms")
	require.Equal(t, -500*time.Microsecond, *l.debt, "the overshoot is credited")
	for i := 0; i < 15; i++ {
		step(100 * time.Microsecond)
	}
	require.Len(t, slept, 2, "the credit and 1 ms more are held before the next sleep")
	require.Equal(t, time.Millisecond, slept[1])
}
