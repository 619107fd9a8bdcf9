package integration

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

func TestE2E_ContainerAndTTLReapedOnFakeClock(t *testing.T) {
	s := StartServer(t, WithFakeClock(), WithConfig(func(c *server.Config) { c.ExtendedTypesEnabled = true }))
	c, _ := s.Connect(t)
	acl := zk.WorldACL(zk.PermAll)

	_, err := c.CreateContainer("/box", nil, zk.FlagContainer, acl)
	require.NoError(t, err)
	_, err = c.Create("/box/item", nil, 0, acl)
	require.NoError(t, err)
	_, err = c.CreateTTL("/ttl", nil, zk.FlagTTL, acl, 90*time.Second)
	require.NoError(t, err)
	_, err = c.Create("/never-used", nil, 0, acl)
	require.NoError(t, err)

	// A container with a child and a fresh TTL node survive a pass.
	advanceKeepingAlive(t, s, c, 60*time.Second)
	for _, p := range []string{"/box", "/ttl"} {
		ok, _, err := c.Exists(p)
		require.NoError(t, err)
		require.True(t, ok, "%s survives the first pass", p)
	}

	_, _, boxW, err := c.ExistsW("/box")
	require.NoError(t, err)
	_, _, ttlW, err := c.ExistsW("/ttl")
	require.NoError(t, err)
	require.NoError(t, c.Delete("/box/item", -1))
	advanceKeepingAlive(t, s, c, 60*time.Second)
	require.Equal(t, zk.EventNodeDeleted, waitEvent(t, boxW).Type, "empty container reaped")
	require.Equal(t, zk.EventNodeDeleted, waitEvent(t, ttlW).Type, "expired TTL node reaped")
	ok, _, err := c.Exists("/never-used")
	require.NoError(t, err)
	require.True(t, ok, "plain nodes are never reaped")
}

// advanceKeepingAlive moves the fake clock by d in one-second steps with a
// request from c after each, so c's session stays alive (every request
// touches it before its reply) while timers due in between fire.
func advanceKeepingAlive(t *testing.T, s *Server, c *zk.Conn, d time.Duration) {
	t.Helper()
	for step := time.Duration(0); step < d; step += time.Second {
		s.Clock.Advance(time.Second)
		_, _, err := c.Exists("/")
		require.NoError(t, err)
	}
}

// pausableDialer lets a test hold a client's reconnect until it is allowed.
type pausableDialer struct {
	mu     sync.Mutex
	paused bool
	resume chan struct{}
}

func (d *pausableDialer) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paused, d.resume = true, make(chan struct{})
}

func (d *pausableDialer) unpause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.paused {
		d.paused = false
		close(d.resume)
	}
}

func (d *pausableDialer) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	wait := d.resume
	paused := d.paused
	d.mu.Unlock()
	if paused {
		<-wait
	}
	return net.DialTimeout(network, address, timeout)
}

func TestE2E_ReconnectKeepsSessionAndResetsWatches(t *testing.T) {
	s := StartServer(t)
	d := &pausableDialer{}
	c, events := s.Connect(t, zk.WithDialer(d.dial))
	writer, _ := s.Connect(t)
	acl := zk.WorldACL(zk.PermAll)
	_, err := c.Create("/eph", nil, zk.FlagEphemeral, acl)
	require.NoError(t, err)
	_, err = writer.Create("/data", []byte("v1"), 0, acl)
	require.NoError(t, err)
	_, err = writer.Create("/kept", []byte("v1"), 0, acl)
	require.NoError(t, err)
	_, _, changedW, err := c.GetW("/data")
	require.NoError(t, err)
	_, _, keptW, err := c.GetW("/kept")
	require.NoError(t, err)
	_, _, createdW, err := c.ExistsW("/later")
	require.NoError(t, err)
	sid := c.SessionID()

	// Cut the connection and change things while the client is away.
	d.pause()
	require.True(t, s.DropConnection(sid))
	waitState(t, events, zk.StateDisconnected)
	_, err = writer.Set("/data", []byte("v2"), -1)
	require.NoError(t, err)
	_, err = writer.Create("/later", nil, 0, acl)
	require.NoError(t, err)
	d.unpause()
	waitState(t, events, zk.StateHasSession)
	require.Equal(t, sid, c.SessionID(), "same session after reconnect")

	// SetWatches fires the watches whose nodes changed while away...
	require.Equal(t, zk.EventNodeDataChanged, waitEvent(t, changedW).Type)
	require.Equal(t, zk.EventNodeCreated, waitEvent(t, createdW).Type)
	// ...and re-registers the others on the server.
	_, err = writer.Set("/kept", []byte("v2"), -1)
	require.NoError(t, err)
	require.Equal(t, zk.EventNodeDataChanged, waitEvent(t, keptW).Type)
	ok, st, err := writer.Exists("/eph")
	require.NoError(t, err)
	require.True(t, ok, "ephemeral survives a reconnect")
	require.Equal(t, sid, st.EphemeralOwner)
}

func TestE2E_DigestACLAndSuper(t *testing.T) {
	const superDigest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU=" // password "test"
	s := StartServer(t, WithConfig(func(c *server.Config) { c.SuperDigest = superDigest }))
	owner, _ := s.Connect(t)
	require.NoError(t, owner.AddAuth("digest", []byte("alice:secret")))
	_, err := owner.Create("/private", []byte("s"), 0, zk.DigestACL(zk.PermAll, "alice", "secret"))
	require.NoError(t, err)
	_, _, err = owner.Get("/private")
	require.NoError(t, err)

	stranger, _ := s.Connect(t)
	_, _, err = stranger.Get("/private")
	require.ErrorIs(t, err, zk.ErrNoAuth)
	_, err = stranger.Set("/private", nil, -1)
	require.ErrorIs(t, err, zk.ErrNoAuth)
	acl, _, err := stranger.GetACL("/private")
	require.ErrorIs(t, err, zk.ErrNoAuth, "getACL needs READ or ADMIN")
	require.Nil(t, acl)

	_, err = owner.Create("/creator", nil, 0, zk.AuthACL(zk.PermAll))
	require.NoError(t, err, "auth scheme expands to the caller's digest id")
	_, err = stranger.Create("/creator2", nil, 0, zk.AuthACL(zk.PermAll))
	require.ErrorIs(t, err, zk.ErrInvalidACL, "auth scheme without an authenticated id")

	admin, _ := s.Connect(t)
	require.NoError(t, admin.AddAuth("digest", []byte("super:test")))
	data, _, err := admin.Get("/private")
	require.NoError(t, err, "super bypasses ACLs")
	require.Equal(t, "s", string(data))
}

func TestE2E_MultiIsAllOrNothing(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	acl := zk.WorldACL(zk.PermAll)
	res, err := c.Multi(
		&zk.CreateRequest{Path: "/m", Data: []byte("x"), Acl: acl},
		&zk.CreateRequest{Path: "/m/a", Acl: acl},
		&zk.SetDataRequest{Path: "/m", Data: []byte("y"), Version: 0},
		&zk.CheckVersionRequest{Path: "/m", Version: 1},
	)
	require.NoError(t, err)
	require.Len(t, res, 4)
	require.Equal(t, "/m/a", res[1].String)

	res, err = c.Multi(
		&zk.CreateRequest{Path: "/m/b", Acl: acl},
		&zk.DeleteRequest{Path: "/m/missing", Version: -1},
		&zk.SetDataRequest{Path: "/m", Data: []byte("z"), Version: -1},
	)
	require.ErrorIs(t, err, zk.ErrNoNode)
	require.Len(t, res, 3)
	require.NoError(t, res[0].Error)
	require.ErrorIs(t, res[1].Error, zk.ErrNoNode)
	require.Error(t, res[2].Error)
	ok, _, err := c.Exists("/m/b")
	require.NoError(t, err)
	require.False(t, ok, "a failed multi changes nothing")
}
