package recipes_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// barrierWatchers returns how many sessions watch the node at p.
func barrierWatchers(srv *integration.Server, p string) int {
	return len(srv.WatchesByPath()[p])
}

func TestBarrier_RemoveReleasesAllWaiters(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const waiters = 5
	cs := clients(t, srv, waiters+1)
	const p = "/barriers/release/b"
	owner := recipes.NewBarrier(cs[0], p)
	require.NoError(t, owner.Set(ctx))
	set, err := owner.IsSet(ctx)
	require.NoError(t, err)
	require.True(t, set)

	done := make(chan error, waiters)
	for _, c := range cs[1:] {
		b := recipes.NewBarrier(c, p)
		go func() { done <- b.Wait(ctx) }()
	}
	eventually(t, func() bool { return barrierWatchers(srv, p) == waiters }, "every waiter watching the barrier")
	select {
	case err := <-done:
		t.Fatalf("a waiter passed a barrier still set (err %v)", err)
	default:
	}

	require.NoError(t, owner.Remove(ctx))
	for range waiters {
		require.NoError(t, <-done)
	}
	set, err = owner.IsSet(ctx)
	require.NoError(t, err)
	require.False(t, set)
}

func TestBarrier_NotSetPassesAtOnce(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	b := recipes.NewBarrier(clients(t, srv, 1)[0], "/barriers/never/b")
	require.NoError(t, b.Wait(ctx), "no barrier: nothing to wait for")
	require.NoError(t, b.Remove(ctx), "removing a barrier not set is no error")
	require.NoError(t, b.Set(ctx))
	require.NoError(t, b.Set(ctx), "setting it twice is no error")
	require.NoError(t, b.Remove(ctx))
	require.NoError(t, b.Wait(ctx))
}

func TestBarrier_WaitCancelled(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const p = "/barriers/cancel"
	require.NoError(t, recipes.NewBarrier(cs[0], p).Set(ctx))

	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- recipes.NewBarrier(cs[1], p).Wait(wctx) }()
	eventually(t, func() bool { return barrierWatchers(srv, p) == 1 }, "the waiter watching")
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
}

// A waiter's session expiring does not release it: the barrier is
// persistent, and the waiter watches again with its new session.
func TestBarrier_WaitSurvivesSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const p = "/barriers/expiry"
	owner := recipes.NewBarrier(cs[0], p)
	require.NoError(t, owner.Set(ctx))

	done := make(chan error, 1)
	go func() { done <- recipes.NewBarrier(cs[1], p).Wait(ctx) }()
	old := cs[1].SessionID()
	eventually(t, func() bool { return slices.Contains(srv.WatchesByPath()[p], old) }, "the waiter watching")
	require.NoError(t, srv.ExpireSession(ctx, old))
	eventually(t, func() bool {
		id := cs[1].SessionID()
		return id != old && slices.Contains(srv.WatchesByPath()[p], id)
	}, "the waiter watching again with its new session")
	select {
	case err := <-done:
		t.Fatalf("the waiter passed a barrier still set (err %v)", err)
	default:
	}
	require.NoError(t, owner.Remove(ctx))
	require.NoError(t, <-done)
}

// countingDrops connects a client that counts how often it lost its
// connection, to check that an injected fault did hit it.
func countingDrops(t *testing.T, srv *integration.Server) (*zk.Conn, *atomic.Int32) {
	var drops atomic.Int32
	c, _ := srv.Connect(t, zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type == zk.EventSession && ev.State == zk.StateDisconnected {
			drops.Add(1)
		}
	}))
	return c, &drops
}

func TestBarrier_SetWithLostReply(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c, drops := countingDrops(t, srv)
	const p = "/barriers/lost-reply"
	b := recipes.NewBarrier(c, p, recipes.WithData([]byte("gate")))
	// Create the parent first, so that the fault hits the barrier's create.
	require.NoError(t, b.Set(ctx))
	require.NoError(t, b.Remove(ctx))
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Session: c.SessionID(), Drop: server.DropReply}))
	require.NoError(t, b.Set(ctx), "the create ran; its retry finds the node")
	require.Equal(t, int32(1), drops.Load(), "the reply was lost")
	data, _, err := c.Get(p)
	require.NoError(t, err)
	require.Equal(t, "gate", string(data))
	require.NoError(t, b.Remove(ctx))
}
