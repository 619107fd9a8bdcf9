package recipes_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

func TestLock_MutualExclusion(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const contenders, rounds = 8, 15
	var holders, maxHolders, total atomic.Int32
	var wg sync.WaitGroup
	for _, c := range clients(t, srv, contenders) {
		l := recipes.NewLock(c, "/locks/mutex")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if err := l.Lock(ctx); err != nil {
					t.Error(err)
					return
				}
				n := holders.Add(1)
				for m := maxHolders.Load(); n > m && !maxHolders.CompareAndSwap(m, n); m = maxHolders.Load() {
				}
				total.Add(1)
				holders.Add(-1)
				if err := l.Unlock(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int32(1), maxHolders.Load(), "never more than one holder")
	require.Equal(t, int32(contenders*rounds), total.Load())
}

// lockNodes lists the lock directory.
func lockNodes(t *testing.T, c *zk.Conn, dir string) []string {
	t.Helper()
	kids, _, err := c.Children(dir)
	require.NoError(t, err)
	return kids
}

func TestLock_FIFOOrder(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 6)
	first := recipes.NewLock(cs[0], "/locks/fifo")
	require.NoError(t, first.Lock(ctx))

	order := make(chan int, 5)
	var wg sync.WaitGroup
	for i := 1; i < 6; i++ {
		l := recipes.NewLock(cs[i], "/locks/fifo")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Lock(ctx); err != nil {
				t.Error(err)
				return
			}
			order <- i
			l.Unlock(ctx)
		}()
		// Queue them one at a time so that arrival order is known.
		eventually(t, func() bool { return len(lockNodes(t, cs[0], "/locks/fifo")) == i+1 }, "waiter queued")
	}
	require.NoError(t, first.Unlock(ctx))
	wg.Wait()
	close(order)
	var got []int
	for i := range order {
		got = append(got, i)
	}
	require.Equal(t, []int{1, 2, 3, 4, 5}, got)
}

func TestLock_TryLockAndReentrancy(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	a, b := recipes.NewLock(cs[0], "/locks/try"), recipes.NewLock(cs[1], "/locks/try")

	ok, err := a.TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = b.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "held by a")
	require.Len(t, lockNodes(t, cs[0], "/locks/try"), 1, "a failed TryLock leaves no node")

	require.NoError(t, a.Lock(ctx), "reentrant")
	require.NoError(t, a.Unlock(ctx))
	ok, err = b.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "still held once")
	require.NoError(t, a.Unlock(ctx))
	require.ErrorIs(t, a.Unlock(ctx), recipes.ErrNotHeld)
	ok, err = b.TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, b.Unlock(ctx))
}

func TestLock_CancelledWaiterLeavesNoNode(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	holder := recipes.NewLock(cs[0], "/locks/cancel")
	require.NoError(t, holder.Lock(ctx))

	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err := recipes.NewLock(cs[1], "/locks/cancel").Lock(wctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Len(t, lockNodes(t, cs[0], "/locks/cancel"), 1, "the waiter removed its node")
	require.NoError(t, holder.Unlock(ctx))
}

func TestLock_HolderSessionExpiryLosesTheLock(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	holder, waiter := recipes.NewLock(cs[0], "/locks/expiry"), recipes.NewLock(cs[1], "/locks/expiry")
	require.NoError(t, holder.Lock(ctx))
	lost := holder.Lost()

	acquired := make(chan error, 1)
	go func() { acquired <- waiter.Lock(ctx) }()
	eventually(t, func() bool { return len(lockNodes(t, cs[1], "/locks/expiry")) == 2 }, "waiter queued")

	require.NoError(t, srv.ExpireSession(ctx, cs[0].SessionID()))
	select {
	case <-lost:
	case <-ctx.Done():
		t.Fatal("the holder was not told it lost the lock")
	}
	require.NoError(t, <-acquired, "the waiter gets the lock")
	require.ErrorIs(t, holder.Unlock(ctx), recipes.ErrSessionLost)
	require.NoError(t, waiter.Unlock(ctx))
}

func TestLock_LostCreateReplyLeavesNoOrphan(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	_, err := c.Create("/locks", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = c.Create("/locks/lost-reply", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Session: c.SessionID(), Drop: server.DropReply}))

	l := recipes.NewLock(c, "/locks/lost-reply")
	require.NoError(t, l.Lock(ctx))
	require.Len(t, lockNodes(t, c, "/locks/lost-reply"), 1, "the create that lost its reply was found again")
	require.NoError(t, l.Unlock(ctx))
	require.Empty(t, lockNodes(t, c, "/locks/lost-reply"))
}

// TestLock_NoHerdEffect queues 50 waiters, releases the lock, and counts
// the watch events every waiter's client received: one, not fifty.
func TestLock_NoHerdEffect(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const waiters = 50
	var events atomic.Int32
	count := zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type != zk.EventSession {
			events.Add(1)
		}
	})
	holderConn, _ := srv.Connect(t)
	holder := recipes.NewLock(holderConn, "/locks/herd")
	require.NoError(t, holder.Lock(ctx))

	conns := make([]*zk.Conn, waiters)
	acquired := make(chan int, waiters)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := range conns {
		conns[i], _ = srv.Connect(t, count)
		l := recipes.NewLock(conns[i], "/locks/herd")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Lock(ctx); err != nil {
				t.Error(err)
				return
			}
			acquired <- i
			<-release
			l.Unlock(ctx)
		}()
	}
	// Each waiter watches one node, and no node has two waiters on it
	// (the holder also watches its own node, to learn if it is lost).
	perPath := map[string]int{}
	eventually(t, func() bool {
		clear(perPath)
		for p, sessions := range srv.WatchesByPath() {
			for _, s := range sessions {
				if s != holderConn.SessionID() {
					perPath[p]++
				}
			}
		}
		return len(perPath) == waiters
	}, "every waiter watching")
	for p, n := range perPath {
		require.Equal(t, 1, n, "waiters watching %s", p)
	}

	require.NoError(t, holder.Unlock(ctx))
	<-acquired
	// A sync answered on every waiter's connection comes after any event
	// the server sent it before, so the count below is complete.
	for _, c := range conns {
		_, err := c.Sync("/")
		require.NoError(t, err)
	}
	require.Equal(t, int32(1), events.Load(), "one release woke one waiter")
	t.Logf("herd check: %d waiters, 1 release, %d watch events delivered", waiters, events.Load())
	close(release)
	wg.Wait()
}

func TestLock_HolderData(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	_, err := recipes.Holder(ctx, c, "/locks/data")
	require.True(t, errors.Is(err, zk.ErrNoNode))
	l := recipes.NewLock(c, "/locks/data", recipes.WithData([]byte("worker-7")))
	require.NoError(t, l.Lock(ctx))
	who, err := recipes.Holder(ctx, c, "/locks/data")
	require.NoError(t, err)
	require.Equal(t, "worker-7", string(who))
	require.NoError(t, l.Unlock(ctx))
}
