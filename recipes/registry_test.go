package recipes_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

func instance(id string, port int) recipes.Instance {
	return recipes.Instance{ID: id, Address: "10.0.0." + id[len(id)-1:], Port: port,
		Payload: map[string]string{"zone": "eu-" + id}}
}

// registryOwner returns the session owning an instance's node, and its
// creation zxid, or zeros if it does not exist.
func registryOwner(t *testing.T, c *zk.Conn, p string) (owner, czxid int64) {
	t.Helper()
	ok, st, err := c.Exists(p)
	require.NoError(t, err)
	if !ok {
		return 0, 0
	}
	return st.EphemeralOwner, st.Czxid
}

func TestRegistry_RoundTrip(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 3)
	got, err := recipes.Instances(ctx, cs[2], "/services", "api")
	require.NoError(t, err)
	require.Empty(t, got, "no such service yet")

	b, a := instance("b2", 8080), instance("a1", 9090)
	rb, err := recipes.Register(ctx, cs[0], "/services", "api", b)
	require.NoError(t, err)
	require.Equal(t, "/services/api/b2", rb.Path())
	ra, err := recipes.Register(ctx, cs[1], "/services", "api", a)
	require.NoError(t, err)

	for _, c := range cs {
		got, err := recipes.Instances(ctx, c, "/services", "api")
		require.NoError(t, err)
		require.Equal(t, []recipes.Instance{a, b}, got, "sorted by ID, as registered")
	}
	// The node holds the instance as JSON, for clients in other languages.
	data, _, err := cs[2].Get("/services/api/a1")
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(data, &raw))
	require.Equal(t, "a1", raw["id"])
	require.Equal(t, float64(9090), raw["port"])

	_, err = recipes.Register(ctx, cs[2], "/services", "api", instance("a1", 1))
	require.ErrorIs(t, err, zk.ErrNodeExists, "an ID is registered once")
	_, err = recipes.Register(ctx, cs[2], "/services", "api", recipes.Instance{})
	require.ErrorIs(t, err, zk.ErrInvalidPath, "an instance needs an ID")

	require.NoError(t, ra.Deregister(ctx))
	require.ErrorIs(t, ra.Deregister(ctx), recipes.ErrNotHeld)
	got, err = recipes.Instances(ctx, cs[2], "/services", "api")
	require.NoError(t, err)
	require.Equal(t, []recipes.Instance{b}, got)
	require.NoError(t, rb.Deregister(ctx))
	got, err = recipes.Instances(ctx, cs[2], "/services", "api")
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestRegistry_WatchInstances(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 3)
	vctx, stop := context.WithCancel(ctx)
	defer stop()
	view := recipes.WatchInstances(vctx, cs[2], "/services", "web")
	require.Empty(t, recvView(t, ctx, view), "no such service yet")

	a, b := instance("a1", 80), instance("b2", 81)
	ra, err := recipes.Register(ctx, cs[0], "/services", "web", a)
	require.NoError(t, err)
	require.Equal(t, []recipes.Instance{a}, recvView(t, ctx, view))
	rb, err := recipes.Register(ctx, cs[1], "/services", "web", b)
	require.NoError(t, err)
	require.Equal(t, []recipes.Instance{a, b}, recvView(t, ctx, view))
	require.NoError(t, ra.Deregister(ctx))
	require.Equal(t, []recipes.Instance{b}, recvView(t, ctx, view))

	// An instance that is not JSON is skipped.
	_, err = cs[2].Create("/services/web/junk", []byte("not json"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, rb.Deregister(ctx))
	require.Empty(t, recvView(t, ctx, view))

	stop()
	drainView(view)
}

func TestRegistry_ReRegistersAfterSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	inst := instance("x9", 7000)
	r, err := recipes.Register(ctx, cs[0], "/services", "jobs", inst)
	require.NoError(t, err)
	old := cs[0].SessionID()
	owner, _ := registryOwner(t, cs[1], r.Path())
	require.Equal(t, old, owner)

	require.NoError(t, srv.ExpireSession(ctx, old))
	eventually(t, func() bool {
		owner, _ := registryOwner(t, cs[1], r.Path())
		return owner != 0 && owner != old && owner == cs[0].SessionID()
	}, "the instance registered again on the client's new session")
	got, err := recipes.Instances(ctx, cs[1], "/services", "jobs")
	require.NoError(t, err)
	require.Equal(t, []recipes.Instance{inst}, got)
	select {
	case <-r.Lost():
		t.Fatal("the registration was kept, not lost")
	default:
	}

	require.NoError(t, r.Deregister(ctx))
	owner, _ = registryOwner(t, cs[1], r.Path())
	require.Zero(t, owner, "deregistered")
}

func TestRegistry_SurvivesReconnectAndDeletion(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	r, err := recipes.Register(ctx, cs[0], "/services", "db", instance("p1", 5432))
	require.NoError(t, err)
	sid := cs[0].SessionID()
	_, czxid := registryOwner(t, cs[1], r.Path())

	// Drop the registered client's connection: it reconnects (after a
	// second) to the same session, and the node is the same node. Nothing
	// is sent on the client meanwhile, and nothing before its watches are
	// set again: go-zookeeper v1.0.4 races (under -race) between setting
	// them and reading replies.
	watched := func() bool { return slices.Contains(srv.WatchesByPath()[r.Path()], sid) }
	eventually(t, watched, "the registration watching its node")
	require.True(t, srv.DropConnection(sid))
	eventually(t, func() bool { return !srv.HasSession(sid) && !watched() }, "connection dropped")
	eventually(t, func() bool { return srv.HasSession(sid) && watched() }, "reconnected, watch set again")
	require.Equal(t, sid, cs[0].SessionID())
	owner, czxid2 := registryOwner(t, cs[1], r.Path())
	require.Equal(t, sid, owner)
	require.Equal(t, czxid, czxid2, "not registered again")

	// Its watch survived the reconnect: when an operator deletes the
	// node, the registration puts it back.
	require.NoError(t, cs[1].Delete(r.Path(), -1))
	eventually(t, func() bool {
		owner, c := registryOwner(t, cs[1], r.Path())
		return owner == sid && c != czxid
	}, "the instance registered again")
	require.NoError(t, r.Deregister(ctx))
}

func TestRegistry_LostRegisterReply(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	_, err := c.Create("/services", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = c.Create("/services/lost", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Session: c.SessionID(), Drop: server.DropReply}))

	inst := instance("r1", 1)
	r, err := recipes.Register(ctx, c, "/services", "lost", inst)
	require.NoError(t, err, "the create that lost its reply is recognised as ours")
	got, err := recipes.Instances(ctx, c, "/services", "lost")
	require.NoError(t, err)
	require.Equal(t, []recipes.Instance{inst}, got)
	require.NoError(t, r.Deregister(ctx))
}

func TestRegistry_IDTakenByAnotherIsLost(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	r, err := recipes.Register(ctx, cs[0], "/services", "q", instance("i1", 1))
	require.NoError(t, err)

	// Another client takes the ID in one step: the registration cannot
	// put its node back, and says so.
	theirs, err := json.Marshal(instance("i1", 2))
	require.NoError(t, err)
	_, err = cs[1].Multi(&zk.DeleteRequest{Path: r.Path(), Version: -1},
		&zk.CreateRequest{Path: r.Path(), Data: theirs, Flags: zk.FlagEphemeral, Acl: zk.WorldACL(zk.PermAll)})
	require.NoError(t, err)
	<-r.Lost()
	require.ErrorIs(t, r.Deregister(ctx), recipes.ErrSessionLost)
	got, err := recipes.Instances(ctx, cs[0], "/services", "q")
	require.NoError(t, err)
	require.Equal(t, []recipes.Instance{instance("i1", 2)}, got, "their node is left alone")
}

func TestRegistry_ClientClosedEndsTheRegistration(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c, _ := srv.Connect(t)
	watcher := clients(t, srv, 1)[0]
	r, err := recipes.Register(ctx, c, "/services", "closing", instance("c1", 1))
	require.NoError(t, err)
	view := recipes.WatchInstances(ctx, watcher, "/services", "closing")
	require.Len(t, recvView(t, ctx, view), 1)

	c.Close()
	<-r.Lost()
	require.Empty(t, recvView(t, ctx, view), "gone with its session")
	require.ErrorIs(t, r.Deregister(ctx), recipes.ErrSessionLost)
}
