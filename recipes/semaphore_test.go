package recipes_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// semNodes lists a semaphore directory.
func semNodes(t *testing.T, c *zk.Conn, dir string) []string {
	t.Helper()
	kids, _, err := c.Children(dir)
	require.NoError(t, err)
	return kids
}

// semAcquireAsync starts Acquire in a goroutine and returns where its result
// arrives.
func semAcquireAsync(ctx context.Context, s *recipes.Semaphore) <-chan semResult {
	ch := make(chan semResult, 1)
	go func() {
		l, err := s.Acquire(ctx)
		ch <- semResult{l, err}
	}()
	return ch
}

type semResult struct {
	lease *recipes.Lease
	err   error
}

// semAdmitted waits for an Acquire result that must be a lease.
func semAdmitted(t *testing.T, ch <-chan semResult) *recipes.Lease {
	t.Helper()
	r := <-ch
	require.NoError(t, r.err)
	require.NotNil(t, r.lease)
	return r.lease
}

func TestSemaphore_BoundUnderContention(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir, leases, contenders, rounds = "/sem/bound", 3, 10, 12
	var holders, maxHolders, total atomic.Int32
	var wg sync.WaitGroup
	for _, c := range clients(t, srv, contenders) {
		s := recipes.NewSemaphore(c, dir, leases)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				l, err := s.Acquire(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				n := holders.Add(1)
				for m := maxHolders.Load(); n > m && !maxHolders.CompareAndSwap(m, n); m = maxHolders.Load() {
				}
				total.Add(1)
				// Round trips while holding, so that holds overlap.
				for range 3 {
					if _, _, err := c.Exists(dir); err != nil {
						t.Error(err)
					}
				}
				holders.Add(-1)
				if err := l.Release(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, maxHolders.Load(), int32(leases), "never more holders than leases")
	require.Equal(t, int32(contenders*rounds), total.Load())
	t.Logf("at most %d of %d leases held at once", maxHolders.Load(), leases)
}

// TestSemaphore_LeasesHeldTogether checks that N clients hold the N leases
// at once and that the next one is refused or waits.
func TestSemaphore_LeasesHeldTogether(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir, n = "/sem/together", 3
	cs := clients(t, srv, n+1)
	var held []*recipes.Lease
	for i := 0; i < n; i++ {
		l, err := recipes.NewSemaphore(cs[i], dir, n).Acquire(ctx)
		require.NoError(t, err, "lease %d is free", i)
		held = append(held, l)
	}
	extra := recipes.NewSemaphore(cs[n], dir, n)
	l, err := extra.TryAcquire(ctx)
	require.NoError(t, err)
	require.Nil(t, l, "all leases taken")
	require.Len(t, semNodes(t, cs[0], dir), n, "a failed TryAcquire leaves no node")

	got := semAcquireAsync(ctx, extra)
	eventually(t, func() bool { return len(semNodes(t, cs[0], dir)) == n+1 }, "waiter queued")
	require.True(t, stillWaiting(got))
	require.NoError(t, held[1].Release(ctx))
	require.ErrorIs(t, held[1].Release(ctx), recipes.ErrNotHeld)
	last := semAdmitted(t, got)
	for _, l := range []*recipes.Lease{held[0], held[2], last} {
		require.NoError(t, l.Release(ctx))
	}
	require.Empty(t, semNodes(t, cs[0], dir))
}

// TestSemaphore_AnyReleaseAdmitsInOrder releases holders in an order other
// than they acquired in, and checks that each release admits the waiter
// first in line.
func TestSemaphore_AnyReleaseAdmitsInOrder(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir, n, waiters = "/sem/order", 2, 4
	cs := clients(t, srv, n+waiters)
	var held []*recipes.Lease
	for i := 0; i < n; i++ {
		l, err := recipes.NewSemaphore(cs[i], dir, n).Acquire(ctx)
		require.NoError(t, err)
		held = append(held, l)
	}
	var queued []<-chan semResult
	for i := 0; i < waiters; i++ {
		queued = append(queued, semAcquireAsync(ctx, recipes.NewSemaphore(cs[n+i], dir, n)))
		eventually(t, func() bool { return len(semNodes(t, cs[0], dir)) == n+i+1 }, "waiter queued")
	}

	// The last holder leaves first: the first waiter must notice.
	require.NoError(t, held[1].Release(ctx))
	w0 := semAdmitted(t, queued[0])
	require.True(t, stillWaiting(queued[1]), "one release, one admission")
	// The oldest holder leaves: the next waiter in line.
	require.NoError(t, held[0].Release(ctx))
	w1 := semAdmitted(t, queued[1])
	require.True(t, stillWaiting(queued[2]))
	// Admitted waiters release out of order too.
	require.NoError(t, w1.Release(ctx))
	w2 := semAdmitted(t, queued[2])
	require.True(t, stillWaiting(queued[3]))
	require.NoError(t, w0.Release(ctx))
	w3 := semAdmitted(t, queued[3])
	require.NoError(t, w2.Release(ctx))
	require.NoError(t, w3.Release(ctx))
	require.Empty(t, semNodes(t, cs[0], dir))
}

func TestSemaphore_CancelledWaitersLeaveNoNode(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/sem/cancel"
	cs := clients(t, srv, 5)
	holder, err := recipes.NewSemaphore(cs[0], dir, 1).Acquire(ctx)
	require.NoError(t, err)

	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = recipes.NewSemaphore(cs[1], dir, 1).Acquire(tctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Len(t, semNodes(t, cs[0], dir), 1, "the waiter removed its node")

	// Three waiters; the first and the middle one give up. The chain of
	// watches must still bring the lease to the last one.
	ctxs := make([]context.CancelFunc, 3)
	var queued []<-chan semResult
	for i := range ctxs {
		var wctx context.Context
		wctx, ctxs[i] = context.WithCancel(ctx)
		queued = append(queued, semAcquireAsync(wctx, recipes.NewSemaphore(cs[2+i], dir, 1)))
		eventually(t, func() bool { return len(semNodes(t, cs[0], dir)) == i+2 }, "waiter queued")
	}
	ctxs[1]()
	require.ErrorIs(t, (<-queued[1]).err, context.Canceled)
	ctxs[0]()
	require.ErrorIs(t, (<-queued[0]).err, context.Canceled)
	require.Len(t, semNodes(t, cs[0], dir), 2, "the cancelled waiters removed their nodes")
	require.True(t, stillWaiting(queued[2]))
	require.NoError(t, holder.Release(ctx))
	last := semAdmitted(t, queued[2])
	require.NoError(t, last.Release(ctx))
	ctxs[2]()
	require.Empty(t, semNodes(t, cs[0], dir))
}

func TestSemaphore_HolderSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/sem/expiry"
	cs := clients(t, srv, 2)
	holder, err := recipes.NewSemaphore(cs[0], dir, 1, recipes.WithData([]byte("h"))).Acquire(ctx)
	require.NoError(t, err)
	lost := holder.Lost()
	require.True(t, stillWaiting(lost))

	got := semAcquireAsync(ctx, recipes.NewSemaphore(cs[1], dir, 1))
	eventually(t, func() bool { return len(semNodes(t, cs[1], dir)) == 2 }, "waiter queued")
	require.NoError(t, srv.ExpireSession(ctx, cs[0].SessionID()))
	select {
	case <-lost:
	case <-ctx.Done():
		t.Fatal("the holder was not told it lost its lease")
	}
	l := semAdmitted(t, got)
	require.ErrorIs(t, holder.Release(ctx), recipes.ErrSessionLost)
	require.NoError(t, l.Release(ctx))
	require.True(t, stillWaiting(l.Lost()), "a released lease is not lost")
}

// TestSemaphore_WaiterSessionExpiry expires the session of a client while
// it waits: Acquire reports ErrSessionLost, and the line behind it moves on.
func TestSemaphore_WaiterSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/sem/waiter-expiry"
	cs := clients(t, srv, 3)
	holder, err := recipes.NewSemaphore(cs[0], dir, 1).Acquire(ctx)
	require.NoError(t, err)
	doomed := semAcquireAsync(ctx, recipes.NewSemaphore(cs[1], dir, 1))
	eventually(t, func() bool { return len(semNodes(t, cs[0], dir)) == 2 }, "waiter queued")
	next := semAcquireAsync(ctx, recipes.NewSemaphore(cs[2], dir, 1))
	eventually(t, func() bool { return len(semNodes(t, cs[0], dir)) == 3 }, "second waiter queued")

	require.NoError(t, srv.ExpireSession(ctx, cs[1].SessionID()))
	require.ErrorIs(t, (<-doomed).err, recipes.ErrSessionLost)
	require.True(t, stillWaiting(next), "the holder still holds")
	require.NoError(t, holder.Release(ctx))
	require.NoError(t, semAdmitted(t, next).Release(ctx))
}

// TestSemaphore_NoHerdEffect queues many waiters on a full semaphore and
// counts the watch events their clients receive for one release: the first
// waiter's, and the one its admission sends to the waiter behind it.
func TestSemaphore_NoHerdEffect(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir, n, waiters = "/sem/herd", 2, 20
	var events atomic.Int32
	count := zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type != zk.EventSession {
			events.Add(1)
		}
	})
	holders := clients(t, srv, n)
	var held []*recipes.Lease
	for _, c := range holders {
		l, err := recipes.NewSemaphore(c, dir, n).Acquire(ctx)
		require.NoError(t, err)
		held = append(held, l)
	}
	conns := make([]*zk.Conn, waiters)
	var queued []<-chan semResult
	for i := range conns {
		conns[i], _ = srv.Connect(t, count)
		queued = append(queued, semAcquireAsync(ctx, recipes.NewSemaphore(conns[i], dir, n)))
		eventually(t, func() bool { return len(semNodes(t, holders[0], dir)) == n+i+1 }, "waiter queued")
	}
	// Every waiter but the first watches the node of the one ahead of it.
	isWaiter := map[int64]bool{}
	for _, c := range conns {
		isWaiter[c.SessionID()] = true
	}
	eventually(t, func() bool {
		watched := 0
		for _, sessions := range srv.WatchesByPath() {
			for _, s := range sessions {
				if isWaiter[s] {
					watched++
				}
			}
		}
		return watched == waiters-1
	}, "every waiter watching")
	for _, c := range conns { // deliver the events of the queueing
		_, err := c.Sync("/")
		require.NoError(t, err)
	}
	events.Store(0)

	require.NoError(t, held[0].Release(ctx))
	var first *recipes.Lease
	select {
	case r := <-queued[0]:
		require.NoError(t, r.err)
		first = r.lease
	case r := <-queued[1]:
		t.Fatalf("the second waiter was admitted first: %v", r.err)
	}
	// The second waiter, now first in line, stops watching the first one.
	eventually(t, func() bool {
		for _, sessions := range srv.WatchesByPath() {
			for _, s := range sessions {
				if s == conns[1].SessionID() {
					return false
				}
			}
		}
		return true
	}, "the next waiter moved up")
	for _, c := range conns {
		_, err := c.Sync("/")
		require.NoError(t, err)
	}
	require.LessOrEqual(t, events.Load(), int32(2), "one release woke at most two waiters")
	t.Logf("herd check: %d waiters, 1 release, %d watch events delivered", waiters, events.Load())

	// Let everyone through.
	require.NoError(t, held[1].Release(ctx))
	require.NoError(t, first.Release(ctx))
	for _, q := range queued[1:] {
		require.NoError(t, semAdmitted(t, q).Release(ctx))
	}
}

func TestSemaphore_NeedsALease(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	_, err := recipes.NewSemaphore(c, "/sem/none", 0).Acquire(ctx)
	require.Error(t, err)
	l, err := recipes.NewSemaphore(c, "/sem/none", -1).TryAcquire(ctx)
	require.Error(t, err)
	require.Nil(t, l)
}

func TestSemaphore_LeaseData(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/sem/data"
	cs := clients(t, srv, 2)
	first, err := recipes.NewSemaphore(cs[0], dir, 1, recipes.WithData([]byte("worker-1"))).Acquire(ctx)
	require.NoError(t, err)
	got := semAcquireAsync(ctx, recipes.NewSemaphore(cs[1], dir, 1, recipes.WithData([]byte("worker-2"))))
	eventually(t, func() bool { return len(semNodes(t, cs[0], dir)) == 2 }, "waiter queued")
	require.NoError(t, first.Release(ctx))
	second := semAdmitted(t, got)
	data, _, err := cs[0].Get(second.Node())
	require.NoError(t, err)
	require.Equal(t, "worker-2", string(data), "admission keeps the holder's data")
	require.NoError(t, second.Release(ctx))
}
