package recipes_test

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

var worldACL = zk.WorldACL(zk.PermAll)

func TestGuardedMulti_RunsWhileHeldWithPerOpResults(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c, _ := srv.Connect(t)
	_, err := c.Create("/guarded-old", []byte("x"), 0, worldACL)
	require.NoError(t, err)
	_, err = c.Create("/guarded-set", []byte("v0"), 0, worldACL)
	require.NoError(t, err)
	l := recipes.NewLock(c, "/guarded/lock")
	_, err = l.GuardedMulti(ctx, &zk.DeleteRequest{Path: "/guarded-old", Version: -1})
	require.ErrorIs(t, err, recipes.ErrNotHeld, "before Lock")

	require.NoError(t, l.Lock(ctx))
	res, err := l.GuardedMulti(ctx,
		&zk.CreateRequest{Path: "/guarded-new", Data: []byte("n"), Acl: worldACL},
		&zk.SetDataRequest{Path: "/guarded-set", Data: []byte("v1"), Version: 0},
		&zk.DeleteRequest{Path: "/guarded-old", Version: -1},
	)
	require.NoError(t, err)
	require.Len(t, res, 3, "one result per op, the check left out")
	require.Equal(t, "/guarded-new", res[0].String)
	require.NotNil(t, res[1].Stat)
	require.Equal(t, int32(1), res[1].Stat.Version)
	require.Equal(t, "v1", getData(t, c, "/guarded-set"))
	ok, _, err := c.Exists("/guarded-old")
	require.NoError(t, err)
	require.False(t, ok)

	require.NoError(t, l.Unlock(ctx))
	_, err = l.GuardedMulti(ctx, &zk.DeleteRequest{Path: "/guarded-new", Version: -1})
	require.ErrorIs(t, err, recipes.ErrNotHeld, "after Unlock")
}

// An op that fails while the grant holds reports its own error (not a
// lost grant), changes nothing, and the results say which op failed.
func TestGuardedMulti_FailingOpChangesNothing(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c, _ := srv.Connect(t)
	_, err := c.Create("/guarded-taken", nil, 0, worldACL)
	require.NoError(t, err)
	l := recipes.NewLock(c, "/guarded/failing")
	require.NoError(t, l.Lock(ctx))
	res, err := l.GuardedMulti(ctx,
		&zk.CreateRequest{Path: "/guarded-fresh", Acl: worldACL},
		&zk.CreateRequest{Path: "/guarded-taken", Acl: worldACL},
	)
	require.ErrorIs(t, err, zk.ErrNodeExists)
	require.NotErrorIs(t, err, recipes.ErrGrantLost)
	require.Len(t, res, 2)
	require.ErrorIs(t, res[1].Error, zk.ErrNodeExists, "the second op failed")
	ok, _, err := c.Exists("/guarded-fresh")
	require.NoError(t, err)
	require.False(t, ok, "the first op was rolled back")
	require.NoError(t, l.Unlock(ctx))
}

// A grant node deleted by someone else: the server refuses the guarded
// write, even before the holder's own watch has reported the loss.
func TestGuardedMulti_NodeDeletedByOther(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	l := recipes.NewLock(cs[0], "/guarded/deleted")
	require.NoError(t, l.Lock(ctx))
	require.NoError(t, cs[1].Delete(l.Node(), -1))
	_, err := l.GuardedMulti(ctx, &zk.CreateRequest{Path: "/guarded-after-delete", Acl: worldACL})
	require.ErrorIs(t, err, recipes.ErrGrantLost)
	require.ErrorIs(t, err, zk.ErrNoNode)
	ok, _, err := cs[1].Exists("/guarded-after-delete")
	require.NoError(t, err)
	require.False(t, ok)
	<-l.Lost()
	require.ErrorIs(t, l.Unlock(ctx), recipes.ErrSessionLost)
}

// Every recipe's guarded write works while held and is refused, changing
// nothing, once its session has expired.
func TestGuardedMulti_EveryRecipeAfterExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 6)
	lock := recipes.NewLock(cs[0], "/guarded/every/lock")
	rlock := recipes.NewRWLock(cs[1], "/guarded/every/rw")
	wlock := recipes.NewRWLock(cs[2], "/guarded/every/rw2")
	el := recipes.NewElection(cs[3], "/guarded/every/election")
	rev := recipes.NewRevocableLock(cs[5], "/guarded/every/revocable")
	require.NoError(t, lock.Lock(ctx))
	require.NoError(t, rlock.RLock(ctx))
	require.NoError(t, wlock.Lock(ctx))
	require.NoError(t, el.Campaign(ctx))
	require.NoError(t, rev.Lock(ctx))
	lease, err := recipes.NewSemaphore(cs[4], "/guarded/every/sem", 2).Acquire(ctx)
	require.NoError(t, err)
	type guarded func(context.Context, ...any) ([]zk.MultiResponse, error)
	holders := []struct {
		name  string
		conn  *zk.Conn
		multi guarded
	}{
		{"lock", cs[0], lock.GuardedMulti},
		{"rwlock read", cs[1], rlock.GuardedMulti},
		{"rwlock write", cs[2], wlock.GuardedMulti},
		{"election", cs[3], el.GuardedMulti},
		{"lease", cs[4], lease.GuardedMulti},
		{"revocable", cs[5], rev.GuardedMulti},
	}
	olds := make([]int64, len(holders))
	for i, h := range holders {
		_, err := h.multi(ctx, &zk.CreateRequest{Path: everyPath(i), Data: []byte("held"), Acl: worldACL})
		require.NoError(t, err, h.name)
		olds[i] = h.conn.SessionID()
		require.NoError(t, srv.ExpireSession(ctx, olds[i]), h.name)
	}
	// Each client learns of its expiry as it reconnects, about two seconds
	// later (go-zookeeper's back-off): all at once.
	for i, h := range holders {
		eventually(t, func() bool { return h.conn.State() == zk.StateHasSession && h.conn.SessionID() != olds[i] }, h.name+"'s new session")
		_, err = h.multi(ctx, &zk.SetDataRequest{Path: everyPath(i), Data: []byte("lost"), Version: -1})
		require.ErrorIs(t, err, recipes.ErrGrantLost, h.name)
		require.Equal(t, "held", getData(t, cs[0], everyPath(i)), h.name)
	}
}

func everyPath(i int) string { return "/guarded-every-" + string(rune('a'+i)) }

// RevocableLock's Revoke rewrites the holder's node; the grant still holds,
// so guarded writes still run and the token is unchanged.
func TestGuardedMulti_RevokeKeepsTheGrant(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	l := recipes.NewRevocableLock(cs[0], "/guarded/revoke")
	require.NoError(t, l.Lock(ctx))
	before, err := l.Token(ctx)
	require.NoError(t, err)
	require.NoError(t, recipes.Revoke(ctx, cs[1], "/guarded/revoke"))
	<-l.Revoked()
	_, err = l.GuardedMulti(ctx, &zk.CreateRequest{Path: "/guarded-revoked", Acl: worldACL})
	require.NoError(t, err)
	after, err := l.Token(ctx)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.NoError(t, l.Unlock(ctx))
}
