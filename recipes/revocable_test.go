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
)

// revNodes lists a revocable lock directory.
func revNodes(t *testing.T, c *zk.Conn, dir string) []string {
	t.Helper()
	kids, _, err := c.Children(dir)
	require.NoError(t, err)
	return kids
}

// revClosed waits until ch is closed, failing the test if ctx ends first.
func revClosed(t *testing.T, ctx context.Context, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("%s: not closed", what)
	}
}

// TestRevocableLock_WaiterAsksHolderToRelease is the pattern: a waiter
// asks, the holder hears it, releases, and the waiter gets the lock.
func TestRevocableLock_WaiterAsksHolderToRelease(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/revocable/ask"
	cs := clients(t, srv, 2)
	holder := recipes.NewRevocableLock(cs[0], dir, recipes.WithData([]byte("holder")))
	waiter := recipes.NewRevocableLock(cs[1], dir, recipes.WithData([]byte("waiter")))
	require.Nil(t, holder.Revoked(), "not held")
	require.NoError(t, holder.Lock(ctx))
	asked := holder.Revoked()
	require.NotNil(t, asked)
	require.True(t, stillWaiting(asked), "no one asked yet")

	// The holder releases when asked, as a worker would.
	released := make(chan error, 1)
	go func() {
		select {
		case <-asked:
			released <- holder.Unlock(ctx)
		case <-ctx.Done():
			released <- ctx.Err()
		}
	}()

	got := make(chan error, 1)
	go func() { got <- waiter.Lock(ctx) }()
	eventually(t, func() bool { return len(revNodes(t, cs[1], dir)) == 2 }, "waiter queued")
	require.True(t, stillWaiting(got), "the holder has not been asked yet")

	require.NoError(t, recipes.Revoke(ctx, cs[1], dir))
	require.NoError(t, <-released)
	require.NoError(t, <-got, "the waiter gets the lock once the holder lets go")
	who, err := recipes.Holder(ctx, cs[0], dir)
	require.NoError(t, err)
	require.Equal(t, "waiter", string(who))
	require.True(t, stillWaiting(waiter.Revoked()), "the new hold starts unrevoked")
	require.NoError(t, waiter.Unlock(ctx))
	require.Nil(t, waiter.Revoked())
	require.Empty(t, revNodes(t, cs[0], dir))
}

// TestRevocableLock_RevokeKeepsHolderData checks that a request leaves the
// node's data (the holder's identity) alone and survives reentrant holds,
// and that a hold taken afresh is unrevoked.
func TestRevocableLock_RevokeKeepsHolderData(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/revocable/data"
	cs := clients(t, srv, 2)
	l := recipes.NewRevocableLock(cs[0], dir, recipes.WithData([]byte("worker-3")))
	require.ErrorIs(t, recipes.Revoke(ctx, cs[1], "/revocable/missing"), recipes.ErrNotHeld)
	require.ErrorIs(t, recipes.Revoke(ctx, cs[1], dir), recipes.ErrNotHeld, "directory without holder")

	ok, err := l.TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	first := l.Revoked()
	require.NoError(t, recipes.Revoke(ctx, cs[1], dir))
	revClosed(t, ctx, first, "Revoked")
	require.NoError(t, recipes.Revoke(ctx, cs[1], dir), "asking twice is fine")
	who, err := recipes.Holder(ctx, cs[1], dir)
	require.NoError(t, err)
	require.Equal(t, "worker-3", string(who), "the request keeps the holder's data")

	require.NoError(t, l.Lock(ctx), "reentrant")
	require.Equal(t, first, l.Revoked(), "one hold, one request")
	require.NoError(t, l.Unlock(ctx))
	require.Equal(t, first, l.Revoked(), "still held once")
	require.NoError(t, l.Unlock(ctx))
	require.Nil(t, l.Revoked())
	require.ErrorIs(t, l.Unlock(ctx), recipes.ErrNotHeld)

	require.NoError(t, l.Lock(ctx))
	require.True(t, stillWaiting(l.Revoked()), "a fresh hold is not revoked")
	require.NoError(t, l.Unlock(ctx))
}

// TestRevocableLock_OnlyTheHolderIsAsked checks that Revoke targets the
// holder, not a waiter, and that a plain Lock shares the directory.
func TestRevocableLock_OnlyTheHolderIsAsked(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/revocable/holder"
	cs := clients(t, srv, 3)
	holder := recipes.NewRevocableLock(cs[0], dir)
	require.NoError(t, holder.Lock(ctx))
	plain := recipes.NewLock(cs[1], dir)
	ok, err := plain.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "Lock and RevocableLock exclude each other")

	waiter := recipes.NewRevocableLock(cs[2], dir)
	got := make(chan error, 1)
	go func() { got <- waiter.Lock(ctx) }()
	eventually(t, func() bool { return len(revNodes(t, cs[0], dir)) == 2 }, "waiter queued")
	require.NoError(t, recipes.Revoke(ctx, cs[1], dir))
	revClosed(t, ctx, holder.Revoked(), "the holder's Revoked")
	require.NoError(t, holder.Unlock(ctx))
	require.NoError(t, <-got)
	require.True(t, stillWaiting(waiter.Revoked()), "the request was for the holder only")
	require.NoError(t, waiter.Unlock(ctx))
}

func TestRevocableLock_CancelledWaiterLeavesNoNode(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/revocable/cancel"
	cs := clients(t, srv, 2)
	holder := recipes.NewRevocableLock(cs[0], dir)
	require.NoError(t, holder.Lock(ctx))
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	waiter := recipes.NewRevocableLock(cs[1], dir)
	require.ErrorIs(t, waiter.Lock(wctx), context.DeadlineExceeded)
	require.Nil(t, waiter.Revoked())
	require.Len(t, revNodes(t, cs[0], dir), 1, "the waiter removed its node")
	require.NoError(t, holder.Unlock(ctx))
}

func TestRevocableLock_HolderSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/revocable/expiry"
	cs := clients(t, srv, 2)
	holder, waiter := recipes.NewRevocableLock(cs[0], dir), recipes.NewRevocableLock(cs[1], dir)
	require.NoError(t, holder.Lock(ctx))
	lost, asked := holder.Lost(), holder.Revoked()
	got := make(chan error, 1)
	go func() { got <- waiter.Lock(ctx) }()
	eventually(t, func() bool { return len(revNodes(t, cs[1], dir)) == 2 }, "waiter queued")

	require.NoError(t, srv.ExpireSession(ctx, cs[0].SessionID()))
	revClosed(t, ctx, lost, "Lost")
	require.True(t, stillWaiting(asked), "a lost hold is not a revoked one")
	require.NoError(t, <-got)
	require.ErrorIs(t, holder.Unlock(ctx), recipes.ErrSessionLost)
	require.Nil(t, holder.Revoked())
	require.NoError(t, waiter.Unlock(ctx))
}

// TestRevocableLock_MutualExclusion has contenders on their own clients
// take the lock while others keep asking for it.
func TestRevocableLock_MutualExclusion(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/revocable/mutex"
	const contenders, rounds = 5, 6
	var holders, maxHolders, total atomic.Int32
	var wg sync.WaitGroup
	for _, c := range clients(t, srv, contenders) {
		l := recipes.NewRevocableLock(c, dir)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if err := recipes.Revoke(ctx, c, dir); err != nil && !errors.Is(err, recipes.ErrNotHeld) {
					t.Error(err)
					return
				}
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
	require.Equal(t, int32(1), maxHolders.Load())
	require.Equal(t, int32(contenders*rounds), total.Load())
}
