package consensus

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// gatedStore is a log store whose appends wait for the test to let each
// through, and fail while fail is set.
type gatedStore struct {
	*raft.InmemStore
	mu      sync.Mutex
	fail    error
	gate    chan struct{} // one receive per append; closed: appends pass
	quit    chan struct{} // closed: held appends fail
	release sync.Once     // closes quit
	entered chan struct{} // a send per append that reached the store
	stored  chan []*raft.Log
}

func newGatedStore() *gatedStore {
	return &gatedStore{InmemStore: raft.NewInmemStore(), gate: make(chan struct{}), quit: make(chan struct{}),
		entered: make(chan struct{}, 16), stored: make(chan []*raft.Log, 16)}
}

func (g *gatedStore) StoreLogs(logs []*raft.Log) error {
	g.entered <- struct{}{}
	select {
	case <-g.gate:
	case <-g.quit:
		return errors.New("the disk went away")
	}
	g.mu.Lock()
	err := g.fail
	g.mu.Unlock()
	if err != nil {
		return err
	}
	if err := g.InmemStore.StoreLogs(logs); err != nil {
		return err
	}
	g.stored <- logs
	return nil
}

// releaseHeld fails every append held now or later.
func (g *gatedStore) releaseHeld() { g.release.Do(func() { close(g.quit) }) }

func (g *gatedStore) setFail(err error) {
	g.mu.Lock()
	g.fail = err
	g.mu.Unlock()
}

func logRange(from, to uint64, typ raft.LogType) []*raft.Log {
	var out []*raft.Log
	for i := from; i <= to; i++ {
		out = append(out, &raft.Log{Index: i, Term: 1, Type: typ, Data: []byte{byte(i)}})
	}
	return out
}

func newTestOverlap(t *testing.T, inner raft.LogStore, leading bool) *overlapLog {
	t.Helper()
	o, err := newOverlapLog(inner, nil)
	require.NoError(t, err)
	t.Cleanup(o.close)
	if g, ok := inner.(*gatedStore); ok {
		// Cleanups run last-registered first: an append the writer took
		// after the test's last step is let go before close waits for it.
		t.Cleanup(g.releaseHeld)
	}
	o.bind(func() bool { return leading }, nil)
	return o
}

// returnsBefore reports whether fn returns within a moment; fn keeps
// running in the background otherwise.
func returnsBefore(fn func()) (done <-chan struct{}, returned bool) {
	ch := make(chan struct{})
	go func() { fn(); close(ch) }()
	select {
	case <-ch:
		return ch, true
	case <-time.After(200 * time.Millisecond):
		return ch, false
	}
}

func TestOverlapLogLeaderAppendReturnsBeforeTheDisk(t *testing.T) {
	inner := newGatedStore()
	o := newTestOverlap(t, inner, true)
	require.NoError(t, o.StoreLogs(logRange(1, 3, raft.LogCommand)), "a leader's append returns while the store is held")

	var l raft.Log
	require.NoError(t, o.GetLog(2, &l), "queued entries are readable (replication reads them)")
	require.Equal(t, uint64(2), l.Index)
	last, _ := o.LastIndex()
	first, _ := o.FirstIndex()
	require.Equal(t, []uint64{1, 3}, []uint64{first, last})
	require.Zero(t, o.durableIndex())

	done, returned := returnsBefore(func() { o.waitDurable(3) })
	require.False(t, returned, "an apply waits for the disk")
	inner.gate <- struct{}{}
	<-done
	require.Equal(t, uint64(3), o.durableIndex())
	require.Len(t, <-inner.stored, 3, "the writer stores all that was queued at once")
}

func TestOverlapLogWaitsForTheDiskWhenNotLeadingOrForAConfiguration(t *testing.T) {
	for name, tc := range map[string]struct {
		leading bool
		typ     raft.LogType
	}{"follower": {false, raft.LogCommand}, "configuration": {true, raft.LogConfiguration}} {
		t.Run(name, func(t *testing.T) {
			inner := newGatedStore()
			o := newTestOverlap(t, inner, tc.leading)
			done, returned := returnsBefore(func() { require.NoError(t, o.StoreLogs(logRange(1, 2, tc.typ))) })
			require.False(t, returned, "the append waits for the store")
			inner.gate <- struct{}{}
			<-done
			require.Equal(t, uint64(2), o.durableIndex())
		})
	}
}

func TestOverlapLogRetriesAFailedStoreAndRefusesAppendsMeanwhile(t *testing.T) {
	inner := newGatedStore()
	o := newTestOverlap(t, inner, true)
	full := errors.New("no space left on device")
	inner.setFail(full)
	require.NoError(t, o.StoreLogs(logRange(1, 1, raft.LogCommand)))
	inner.gate <- struct{}{} // the first try fails
	require.Eventually(t, func() bool { return errors.Is(o.StoreLogs(logRange(2, 2, raft.LogCommand)), full) },
		5*time.Second, time.Millisecond, "while the store fails, appends fail (a leader steps down)")
	var l raft.Log
	require.NoError(t, o.GetLog(1, &l), "the queued entry is kept for the retry")

	inner.setFail(nil)
	inner.gate <- struct{}{} // the retry
	require.True(t, o.waitDurable(1))
	require.Len(t, <-inner.stored, 1)
	require.NoError(t, o.StoreLogs(logRange(2, 2, raft.LogCommand)), "appends work again")
}

func TestOverlapLogCloseReleasesWaiters(t *testing.T) {
	inner := newGatedStore()
	o := newTestOverlap(t, inner, true)
	require.NoError(t, o.StoreLogs(logRange(1, 1, raft.LogCommand)))
	<-inner.entered // the writer holds the entry, stuck on the disk
	res := make(chan bool)
	go func() { res <- o.waitDurable(1) }()
	closed := make(chan struct{})
	go func() { o.close(); close(closed) }()
	inner.releaseHeld() // the stuck store fails; the writer sees the log closing
	<-closed
	require.False(t, <-res, "an apply waiting for the disk gives up: the entry is never applied")
	require.ErrorIs(t, o.StoreLogs(logRange(2, 2, raft.LogCommand)), errLogClosed)
}

func TestOverlapLogDeleteRangeWaitsForTheQueueAndMovesTheTailBack(t *testing.T) {
	inner := newGatedStore()
	o := newTestOverlap(t, inner, true)
	close(inner.gate) // appends pass
	require.NoError(t, o.StoreLogs(logRange(1, 5, raft.LogCommand)))
	require.True(t, o.waitDurable(5))
	require.NoError(t, o.DeleteRange(4, 5), "a follower drops a conflicting tail")
	require.Equal(t, uint64(3), o.durableIndex())
	last, _ := o.LastIndex()
	require.Equal(t, uint64(3), last)
	require.NoError(t, o.DeleteRange(1, 2), "compaction")
	require.Equal(t, uint64(3), o.durableIndex(), "compaction keeps the durable index")
}
