package recipes_test

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// recvView receives the next value of a live view, failing if it closes
// or nothing comes.
func recvView[T any](t *testing.T, ctx context.Context, view <-chan T) T {
	t.Helper()
	select {
	case v, ok := <-view:
		require.True(t, ok, "view closed early")
		return v
	case <-ctx.Done():
		t.Fatal("the view reported nothing")
	}
	var zero T
	return zero
}

// drainView waits for a view to close.
func drainView[T any](view <-chan T) {
	for range view {
	}
}

func TestGroup_JoinMembersLeave(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 4)
	members, err := recipes.Members(ctx, cs[3], "/group/basic")
	require.NoError(t, err)
	require.Empty(t, members, "no group yet")

	var ms []*recipes.Membership
	for i, name := range []string{"carol", "alice", "bob"} {
		m, err := recipes.JoinGroup(ctx, cs[i], "/group/basic", name, []byte("data of "+name))
		require.NoError(t, err)
		require.Equal(t, "/group/basic/"+name, m.Path())
		require.NotNil(t, m.Lost())
		ms = append(ms, m)
	}
	for _, c := range cs {
		members, err := recipes.Members(ctx, c, "/group/basic")
		require.NoError(t, err)
		require.Equal(t, []string{"alice", "bob", "carol"}, members, "every client sees every member")
	}
	data, err := recipes.MemberData(ctx, cs[3], "/group/basic", "bob")
	require.NoError(t, err)
	require.Equal(t, "data of bob", string(data))
	_, err = recipes.MemberData(ctx, cs[3], "/group/basic", "dave")
	require.ErrorIs(t, err, zk.ErrNoNode)

	_, err = recipes.JoinGroup(ctx, cs[3], "/group/basic", "alice", nil)
	require.ErrorIs(t, err, zk.ErrNodeExists, "names are unique")
	_, err = recipes.JoinGroup(ctx, cs[3], "/group/basic", "a/b", nil)
	require.ErrorIs(t, err, zk.ErrInvalidPath, "a name is one path element")

	require.NoError(t, ms[2].Leave(ctx))
	require.ErrorIs(t, ms[2].Leave(ctx), recipes.ErrNotHeld)
	require.Nil(t, ms[2].Lost())
	members, err = recipes.Members(ctx, cs[3], "/group/basic")
	require.NoError(t, err)
	require.Equal(t, []string{"alice", "carol"}, members)

	// The name is free again.
	m, err := recipes.JoinGroup(ctx, cs[3], "/group/basic", "bob", nil)
	require.NoError(t, err)
	for _, m := range []*recipes.Membership{ms[0], ms[1], m} {
		require.NoError(t, m.Leave(ctx))
	}
	members, err = recipes.Members(ctx, cs[3], "/group/basic")
	require.NoError(t, err)
	require.Empty(t, members)
}

func TestGroup_WatchMembers(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 4)
	vctx, stop := context.WithCancel(ctx)
	defer stop()
	view := recipes.WatchMembers(vctx, cs[3], "/group/watch")
	require.Empty(t, recvView(t, ctx, view), "no group yet")

	a, err := recipes.JoinGroup(ctx, cs[0], "/group/watch", "a", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, recvView(t, ctx, view))
	b, err := recipes.JoinGroup(ctx, cs[1], "/group/watch", "b", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, recvView(t, ctx, view))
	c, err := recipes.JoinGroup(ctx, cs[2], "/group/watch", "c", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, recvView(t, ctx, view))

	require.NoError(t, a.Leave(ctx))
	require.Equal(t, []string{"b", "c"}, recvView(t, ctx, view), "a left")

	// b's session expires: it drops out of the view and is told so.
	lost := b.Lost()
	require.NoError(t, srv.ExpireSession(ctx, cs[1].SessionID()))
	require.Equal(t, []string{"c"}, recvView(t, ctx, view), "b expired")
	<-lost
	require.ErrorIs(t, b.Leave(ctx), recipes.ErrSessionLost)

	// The view keeps working across the watcher's own session expiry.
	require.NoError(t, srv.ExpireSession(ctx, cs[3].SessionID()))
	eventually(t, func() bool { s := cs[3].SessionID(); return s != 0 && cs[3].State() == zk.StateHasSession }, "watcher's new session")
	require.NoError(t, c.Leave(ctx))
	require.Empty(t, recvView(t, ctx, view), "c left")

	stop()
	drainView(view)
}

func TestGroup_MemberDeletedByOtherIsLost(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	m, err := recipes.JoinGroup(ctx, cs[0], "/group/deleted", "m", nil)
	require.NoError(t, err)
	require.NoError(t, cs[1].Delete(m.Path(), -1))
	<-m.Lost()
	// Someone else took the name: leaving must not remove their node.
	other, err := recipes.JoinGroup(ctx, cs[1], "/group/deleted", "m", nil)
	require.NoError(t, err)
	require.ErrorIs(t, m.Leave(ctx), recipes.ErrSessionLost)
	members, err := recipes.Members(ctx, cs[0], "/group/deleted")
	require.NoError(t, err)
	require.Equal(t, []string{"m"}, members)
	require.NoError(t, other.Leave(ctx))
}

func TestGroup_LostJoinReply(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	_, err := c.Create("/group", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = c.Create("/group/lost", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Session: c.SessionID(), Drop: server.DropReply}))

	m, err := recipes.JoinGroup(ctx, c, "/group/lost", "m", []byte("x"))
	require.NoError(t, err, "the create that lost its reply is recognised as ours")
	members, err := recipes.Members(ctx, c, "/group/lost")
	require.NoError(t, err)
	require.Equal(t, []string{"m"}, members)
	require.NoError(t, m.Leave(ctx))
}

func TestGroup_WatchEndsWhenClientCloses(t *testing.T) {
	if raceEnabled {
		// As TestElection_ObserveEndsWhenClientCloses: closing a client that
		// holds a watch can trip go-zookeeper v1.0.4's own lastZxid race
		// (seen once under a loaded make test); `make test` runs this
		// without -race.
		t.Skip("go-zookeeper v1.0.4 races with itself here under -race; runs in make test's race-free pass")
	}
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	member := clients(t, srv, 1)[0]
	m, err := recipes.JoinGroup(ctx, member, "/group/close", "m", nil)
	require.NoError(t, err)
	watcher, _ := srv.Connect(t)
	view := recipes.WatchMembers(ctx, watcher, "/group/close")
	require.Equal(t, []string{"m"}, recvView(t, ctx, view))
	watcher.Close()
	drainView(view)
	require.NoError(t, m.Leave(ctx))
}
