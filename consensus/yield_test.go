package consensus

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
)

// TestYieldingLockerPausesAsLongAsItHeld: steps shorter than minPause run
// back to back (a sleep that short would last a millisecond or more) until
// the time held adds up to minPause; then the walk sleeps it off, and what
// a sleep overshoots is credited against the next steps. On a fake clock.
func TestYieldingLockerPausesAsLongAsItHeld(t *testing.T) {
	var clock time.Time
	var slept []time.Duration
	l := newYieldingLocker(&sync.Mutex{}, new(atomic.Int32))
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

// TestYieldingLockerCreditsWaits: time spent waiting for the lock counts
// as pause already taken, up to maxCredit, so a walk that waits behind
// writes as long as it holds the lock never sleeps.
func TestYieldingLockerCreditsWaits(t *testing.T) {
	var clock time.Time
	var slept []time.Duration
	l := newYieldingLocker(&sync.Mutex{}, new(atomic.Int32))
	l.now = func() time.Time { return clock }
	l.sleep = func(d time.Duration) { slept = append(slept, d); clock = clock.Add(d) }
	l.Locker = waitingLocker{Locker: l.Locker, wait: func() { clock = clock.Add(2 * time.Millisecond) }}
	for i := 0; i < 100; i++ {
		l.Lock()
		clock = clock.Add(2 * time.Millisecond)
		l.Unlock()
	}
	require.Empty(t, slept, "every 2 ms hold followed a 2 ms wait")

	l.Locker = waitingLocker{Locker: &sync.Mutex{}, wait: func() { clock = clock.Add(time.Second) }}
	l.Lock()
	l.Unlock()
	require.Equal(t, -maxCredit, *l.debt, "a long wait is credited up to maxCredit")
	l.Locker = &sync.Mutex{}
	for i := 0; i < 21; i++ {
		l.Lock()
		clock = clock.Add(time.Millisecond)
		l.Unlock()
	}
	require.Equal(t, []time.Duration{time.Millisecond}, slept, "20 ms of credit, then 1 ms held over it is slept off")
}

// waitingLocker is a lock whose Lock takes wait's time on the fake clock.
type waitingLocker struct {
	sync.Locker
	wait func()
}

func (l waitingLocker) Lock() { l.wait(); l.Locker.Lock() }

// TestApplyBatchLetsAWaitingWalkIn: an apply batch that has held the lock
// for applyHold (0 here) lets a walk waiting for the read lock in between
// two entries, so the walk sees the state part way through the batch. It
// never sees a state between the two halves of one entry: each create
// below moves LastZxid and adds one znode together.
func TestApplyBatchLetsAWaitingWalkIn(t *testing.T) {
	old := applyHold
	applyHold = 0
	t.Cleanup(func() { applyHold = old })
	f := newFSM(datatree.Config{}, nil, 1)
	f.hook = func(*Applied) { runtime.Gosched() } // time for the walk to queue up
	var logs []*raft.Log
	add := func(cmd *Command) { logs = append(logs, commandEntry(uint64(len(logs)+1), 2, cmd)) }
	add(&Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1})
	applyAll(f, logs)
	base := f.st.Tree.NodeCount()
	first := f.st.LastZxid
	logs = logs[:0]
	const n = 2000
	for i := range n {
		add(createCmd("/n" + strconv.Itoa(i)))
	}
	lock := newYieldingLocker(f.mu.RLocker(), &f.walkers)
	stop := make(chan struct{})
	seen := make(chan int, 1)
	go func() {
		mid := 0
		for {
			select {
			case <-stop:
				seen <- mid
				return
			default:
			}
			lock.Lock()
			created := f.st.Tree.NodeCount() - base
			if int64(created) != f.st.LastZxid-first {
				lock.Unlock()
				seen <- -1
				return
			}
			if created > 0 && created < n {
				mid++
			}
			lock.Unlock()
		}
	}()
	f.ApplyBatch(logs) // one batch
	close(stop)
	mid := <-seen
	require.NotEqual(t, -1, mid, "the walk saw an entry half applied")
	require.Positive(t, mid, "the walk never got the lock in the middle of the batch")
}
