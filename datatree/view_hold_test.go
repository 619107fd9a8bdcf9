package datatree

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// fakeClock moves by tick on every reading, and by wait on every Lock of
// the walk's lock: the walk waited that long for an apply to let go.
type fakeClock struct {
	now  time.Time
	tick time.Duration
}

func (c *fakeClock) read() time.Time {
	c.now = c.now.Add(c.tick)
	return c.now
}

// heldLocker is applyingLocker whose Lock also takes wait on the clock.
type heldLocker struct {
	applyingLocker
	clock *fakeClock
	wait  time.Duration
	locks int
}

func (l *heldLocker) Lock() {
	l.applyingLocker.Lock()
	l.clock.now = l.clock.now.Add(l.wait)
	l.locks++
}

// walkWithWaits writes a view of a tree of parents, wide and narrow, with
// children of data bytes, while every Lock applies changes and costs wait;
// it checks that the bytes are exact and returns how many times the walk
// took the lock. Every step may hold the lock minHold.
func walkWithWaits(t *testing.T, wait, minHold time.Duration, data int) int {
	smallSteps(t)
	minStepHold = minHold
	clock := &fakeClock{now: time.Unix(1, 0), tick: time.Microsecond}
	old := walkClock
	walkClock = clock.read
	maxStepHold = time.Millisecond
	t.Cleanup(func() { walkClock = old })

	e := newEnv(t, Config{})
	for p := range 20 {
		e.mustCreate("/p"+strconv.Itoa(p), 0)
		for c := range 30 {
			r := e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/p" + strconv.Itoa(p) + "/c" + strconv.Itoa(c),
				Data: make([]byte, data), ACL: wire.OpenACLUnsafe})
			require.NoError(t, r.Err)
		}
	}
	want := snapshotBytes(t, e.tr)
	v := e.tr.Freeze()
	defer v.Close()
	i := 0
	l := &heldLocker{clock: clock, wait: wait, applyingLocker: applyingLocker{tr: e.tr, per: 2, next: func() *Txn {
		i++
		p := "/p" + strconv.Itoa(i%20)
		if i%2 == 0 {
			return e.txn(wire.OpCreate, createReq(p+"/new"+strconv.Itoa(i), 0))
		}
		return e.txn(wire.OpDelete, &wire.DeleteRequest{Path: p + "/c" + strconv.Itoa(i%30), Version: -1})
	}}}
	var got bytes.Buffer
	require.NoError(t, v.WriteTo(&got, l))
	require.Greater(t, l.changed, 0, "the tree changed during the walk")
	require.Equal(t, want, got.Bytes())
	return l.locks
}

// A walk that waits for the lock (an apply held it for a batch) holds it
// about as long as it waited, up to maxStepHold, doing many budgets' worth
// of work per hold; one that does not wait keeps to its budget. Either way
// its bytes are exact.
//
// With children over flushSize a step reaches flushSize before its budget of
// nodes, and a step that waited goes on past that too (up to maxStepBytes).
func TestWalkHoldsTheLockAsLongAsItWaited(t *testing.T) {
	for _, data := range []int{1, flushSize + 1} {
		short := walkWithWaits(t, 0, 0, data)
		long := walkWithWaits(t, 500*time.Microsecond, 0, data)
		t.Logf("data %d B: %d holds when waiting, %d when not", data, long, short)
		require.Less(t, long*3, short, "data %d B: holds when waiting %d, when not %d", data, long, short)
	}
}

// A step that did not wait still holds the lock for minStepHold, walking
// many budgets' worth of nodes, except that bytes of flushSize or more go
// to the writer as they did: with its 600 children over flushSize, the
// walk takes the lock at least once for each.
func TestWalkHoldsTheLockForMinStepHold(t *testing.T) {
	short := walkWithWaits(t, 0, 0, 1)
	held := walkWithWaits(t, 0, 200*time.Microsecond, 1)
	t.Logf("%d holds with minStepHold, %d without", held, short)
	require.Less(t, held*3, short)

	require.GreaterOrEqual(t, walkWithWaits(t, 0, 200*time.Microsecond, flushSize+1), 600, "steps of big nodes still end at flushSize")
}
