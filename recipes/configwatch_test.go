package recipes_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// nextConfig receives the next update, failing the test if the channel
// closes or ctx ends first.
func nextConfig(ctx context.Context, t *testing.T, ch <-chan recipes.ConfigUpdate) recipes.ConfigUpdate {
	t.Helper()
	select {
	case u, ok := <-ch:
		require.True(t, ok, "the channel closed")
		return u
	case <-ctx.Done():
		t.Fatal("no config update")
		return recipes.ConfigUpdate{}
	}
}

// requireClosed drains ch until it is closed.
func requireClosed(ctx context.Context, t *testing.T, ch <-chan recipes.ConfigUpdate) {
	t.Helper()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-ctx.Done():
			t.Fatal("the channel was not closed")
		}
	}
}

// requireData checks that u is an existing node holding data.
func requireData(t *testing.T, u recipes.ConfigUpdate, data string) {
	t.Helper()
	require.True(t, u.Exists, "exists")
	require.NotNil(t, u.Stat)
	require.Equal(t, data, string(u.Data))
}

// hookConn connects a client whose session events run *hook, if set, on
// the client's own connection loop: what the hook does happens before the
// client reconnects.
func hookConn(t *testing.T, srv *integration.Server) (*zk.Conn, *atomic.Pointer[func(zk.Event)]) {
	var hook atomic.Pointer[func(zk.Event)]
	c, _ := srv.Connect(t, zk.WithEventCallback(func(ev zk.Event) {
		if fn := hook.Load(); fn != nil && ev.Type == zk.EventSession {
			(*fn)(ev)
		}
	}))
	return c, &hook
}

func TestConfigWatch_InitialUpdatesDeleteRecreate(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	watcher, writer := cs[0], cs[1]
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := recipes.WatchConfig(wctx, watcher, "/config/app")

	u := nextConfig(ctx, t, ch)
	require.False(t, u.Exists, "no node yet")
	require.Nil(t, u.Data)
	require.Nil(t, u.Stat)

	_, err := writer.Create("/config", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = writer.Create("/config/app", []byte("v1"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	first := nextConfig(ctx, t, ch)
	requireData(t, first, "v1")

	for i := 2; i <= 4; i++ {
		st, err := writer.Set("/config/app", []byte(fmt.Sprintf("v%d", i)), -1)
		require.NoError(t, err)
		u := nextConfig(ctx, t, ch)
		requireData(t, u, fmt.Sprintf("v%d", i))
		require.Equal(t, st.Version, u.Stat.Version)
	}

	require.NoError(t, writer.Delete("/config/app", -1))
	u = nextConfig(ctx, t, ch)
	require.False(t, u.Exists, "deleted")

	_, err = writer.Create("/config/app", []byte("v1"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	u = nextConfig(ctx, t, ch)
	requireData(t, u, "v1")
	require.NotEqual(t, first.Stat.Czxid, u.Stat.Czxid, "a new node with the same data is a new update")

	cancel()
	requireClosed(ctx, t, ch)
}

// TestConfigWatch_DeliversLatestValue changes the node many times while
// the receiver is not reading: updates may be merged, but arrive in order
// and end with the final value, delivered once.
func TestConfigWatch_DeliversLatestValue(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	watcher, writer := cs[0], cs[1]
	_, err := writer.Create("/latest", []byte("start"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	ch := recipes.WatchConfig(ctx, watcher, "/latest")
	requireData(t, nextConfig(ctx, t, ch), "start")

	const changes = 50
	for i := 1; i <= changes; i++ {
		_, err := writer.Set("/latest", []byte(fmt.Sprint(i)), -1)
		require.NoError(t, err)
	}
	version, seen := int32(0), 0
	for {
		u := nextConfig(ctx, t, ch)
		require.True(t, u.Exists)
		require.Greater(t, u.Stat.Version, version, "updates arrive in order, each once")
		version = u.Stat.Version
		seen++
		if string(u.Data) == fmt.Sprint(changes) {
			break
		}
	}
	t.Logf("%d changes arrived as %d updates", changes, seen)

	// The final value is not delivered again: the next update is the next
	// change.
	_, err = writer.Set("/latest", []byte("after"), -1)
	require.NoError(t, err)
	requireData(t, nextConfig(ctx, t, ch), "after")
}

// TestConfigWatch_SurvivesSessionExpiry expires the watcher's session
// and changes the node before the client has a new session: the watcher
// reads it on the new session, then keeps watching there.
func TestConfigWatch_SurvivesSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	watcher, hook := hookConn(t, srv)
	writer := clients(t, srv, 1)[0]
	_, err := writer.Create("/expiry", []byte("v1"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	ch := recipes.WatchConfig(ctx, watcher, "/expiry")
	requireData(t, nextConfig(ctx, t, ch), "v1")

	changed := make(chan error, 1)
	var once atomic.Bool
	fn := func(ev zk.Event) {
		if ev.State == zk.StateExpired && once.CompareAndSwap(false, true) {
			_, err := writer.Set("/expiry", []byte("v2"), -1) // before the watch is set again
			changed <- err
		}
	}
	hook.Store(&fn)
	old := watcher.SessionID()
	require.NoError(t, srv.ExpireSession(ctx, old))

	requireData(t, nextConfig(ctx, t, ch), "v2")
	require.NoError(t, <-changed)
	require.NotEqual(t, old, watcher.SessionID(), "a new session")

	_, err = writer.Set("/expiry", []byte("v3"), -1)
	require.NoError(t, err)
	requireData(t, nextConfig(ctx, t, ch), "v3")
	require.NoError(t, writer.Delete("/expiry", -1))
	require.False(t, nextConfig(ctx, t, ch).Exists)
}

// TestConfigWatch_SurvivesConnectionLoss drops the watcher's connection
// and changes the node while it is disconnected: go-zookeeper sets the
// watch again when it reconnects, and the change is delivered.
func TestConfigWatch_SurvivesConnectionLoss(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	watcher, hook := hookConn(t, srv)
	writer := clients(t, srv, 1)[0]
	_, err := writer.Create("/conn", []byte("v1"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	ch := recipes.WatchConfig(ctx, watcher, "/conn")
	requireData(t, nextConfig(ctx, t, ch), "v1")

	changed := make(chan error, 1)
	var once atomic.Bool
	fn := func(ev zk.Event) {
		if ev.State == zk.StateDisconnected && once.CompareAndSwap(false, true) {
			_, err := writer.Set("/conn", []byte("v2"), -1) // while disconnected
			changed <- err
		}
	}
	hook.Store(&fn)
	sid := watcher.SessionID()
	require.True(t, srv.DropConnection(sid))

	requireData(t, nextConfig(ctx, t, ch), "v2")
	require.NoError(t, <-changed)
	require.Equal(t, sid, watcher.SessionID(), "the same session")
	_, err = writer.Set("/conn", []byte("v3"), -1)
	require.NoError(t, err)
	requireData(t, nextConfig(ctx, t, ch), "v3")
}

func TestConfigWatch_ClosesWhenClientCloses(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	watcher := clients(t, srv, 1)[0]
	ch := recipes.WatchConfig(ctx, watcher, "/closing")
	require.False(t, nextConfig(ctx, t, ch).Exists)
	watcher.Close()
	requireClosed(ctx, t, ch)
}
