package integration

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// others returns the indexes of a 3-node cluster other than i.
func others(i int) []int { return []int{(i + 1) % 3, (i + 2) % 3} }

func TestPartition_IsolatedLeaderStepsDownAndRejoins(t *testing.T) {
	c := StartCluster(t, 3)
	old := c.Leader()
	majority := others(old)
	cl, _ := c.Connect(t)
	acl := zk.WorldACL(zk.PermAll)
	_, err := cl.Create("/p", []byte("before"), 0, acl)
	require.NoError(t, err)

	start := time.Now()
	c.Partition([]int{old}, majority)
	newLeader := c.WaitForLeaderAmong(majority...)
	elected := time.Since(start)
	c.WaitForRole(old, "looking")
	t.Logf("partition: new leader after %v (tick %v), old leader looking after %v", elected.Round(time.Millisecond), ClusterTick, time.Since(start).Round(time.Millisecond))

	// The majority carries on; the client moves there if it was on the old
	// leader, which drops it within two ticks of losing its quorum.
	if c.serverOf(cl.SessionID()) == old {
		waitSessionMoved(t, c, cl, old)
	}
	_, err = cl.Set("/p", []byte("during"), -1)
	require.NoError(t, err)
	// The cut-off server serves no one: a handshake gets no answer.
	requireRefused(t, c.Servers[old].Addr())

	c.Heal()
	c.WaitForRole(old, "follower")
	require.Equal(t, newLeader, c.Leader(), "the majority's leader keeps leading")
	back, _ := c.Connect(t, c.Servers[old].Addr())
	_, err = back.Sync("/p")
	require.NoError(t, err)
	data, _, err := back.Get("/p")
	require.NoError(t, err)
	require.Equal(t, "during", string(data), "the healed server caught up")
}

func TestPartition_MinorityFollowerDropsClientsWhoMoveOn(t *testing.T) {
	c := StartCluster(t, 3)
	leader := c.Leader()
	lonely := (leader + 1) % 3
	cl, events := c.Connect(t, c.Servers[lonely].Addr(), c.Servers[leader].Addr(), c.Servers[(leader+2)%3].Addr())
	for !c.Servers[lonely].HasSession(cl.SessionID()) {
		// go-zookeeper shuffles its list: reconnect until it sits on the lonely follower.
		c.Servers[c.serverOf(cl.SessionID())].DropConnection(cl.SessionID())
		waitState(t, events, zk.StateHasSession)
	}
	sid := cl.SessionID()
	_, err := cl.Create("/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	c.Partition([]int{lonely}, others(lonely))
	c.WaitForRole(lonely, "looking")
	// The follower without quorum drops its client, which resumes its
	// session on the majority with its ephemeral.
	waitSessionMoved(t, c, cl, lonely)
	require.Equal(t, sid, cl.SessionID())
	ok, _, err := cl.Exists("/e")
	require.NoError(t, err)
	require.True(t, ok)
	c.Heal()
}

// serverOf returns the index of the server holding the session's connection.
func (c *Cluster) serverOf(sid int64) int {
	for i, s := range c.Servers {
		if s != nil && s.HasSession(sid) {
			return i
		}
	}
	return -1
}

// requireRefused asserts a server closes a new client's handshake unanswered.
func requireRefused(t *testing.T, addr string) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = nc.Write(wire.AppendFrame(nil, &wire.ConnectRequest{TimeOut: 4000, Passwd: make([]byte, 16)}))
	require.NoError(t, err)
	_, err = wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
	require.Error(t, err, "a server without quorum must not create sessions")
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "closed, not left hanging")
}

func TestPartition_ReadOnlyModeServesReadsWithoutQuorum(t *testing.T) {
	c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) { cfg.ReadOnlyMode = true }))
	leader := c.Leader()
	lonely := (leader + 1) % 3
	w, _ := c.Connect(t)
	_, err := w.Create("/ro", []byte("data"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = w.Sync("/ro")
	require.NoError(t, err)
	back, _ := c.Connect(t, c.Servers[lonely].Addr())
	_, err = back.Sync("/ro") // the lonely follower has applied /ro
	require.NoError(t, err)

	c.Partition([]int{lonely}, others(lonely))
	c.WaitForRole(lonely, "looking")
	addr := c.Servers[lonely].Addr()
	require.Equal(t, "ro", fourLetterWord(t, addr, "isro"))
	require.Contains(t, fourLetterWord(t, addr, "srvr"), "Mode: read-only\n")

	// A client that does not accept read-only service is refused...
	requireRefused(t, addr)
	// ...one that does is served reads, and writes get NOTREADONLY.
	rc, err := dialRaw(addr)
	require.NoError(t, err)
	defer rc.Close()
	resp, err := rc.Handshake(wire.ConnectRequest{TimeOut: 4000, Passwd: make([]byte, 16), ReadOnly: true, HasReadOnly: true})
	require.NoError(t, err)
	require.True(t, resp.ReadOnly && resp.HasReadOnly, "the server says it is read-only")
	require.NotZero(t, resp.SessionID)
	var got wire.GetDataResponse
	r, err := rc.Call(wire.OpGetData, &wire.PathWatchRequest{Path: "/ro"}, &got)
	require.NoError(t, err)
	require.Equal(t, wire.CodeOK, r.Hdr.Err)
	require.Equal(t, "data", string(got.Data))
	r, err = rc.Call(wire.OpCreate, &wire.CreateRequest{Path: "/nope", ACL: wire.OpenACLUnsafe}, nil)
	require.NoError(t, err)
	require.Equal(t, wire.CodeNotReadOnly, r.Hdr.Err)
	r, err = rc.Call(wire.OpSync, &wire.PathRequest{Path: "/"}, nil)
	require.NoError(t, err)
	require.Equal(t, wire.CodeNotReadOnly, r.Hdr.Err)

	// When the quorum is back the read-only client is dropped.
	c.Heal()
	c.WaitForRole(lonely, "follower")
	_, closed, _ := rc.WaitClosed(10 * time.Second)
	require.True(t, closed, "read-only connections end when the quorum returns")
	require.Equal(t, "rw", fourLetterWord(t, addr, "isro"))
}

// TestPartition_KillDoesNotWaitForStuckSyncs kills a leader that cannot
// commit (both followers' disks have stopped answering) while a sync on
// it waits for a write it appended: the kill ends the sync instead of
// waiting out its 30 s timeout (which once made
// TestLinearizableUnderLeaderKills take 32 s). The followers' stalled
// disks, rather than a partition, keep the leader in its role while the
// two requests reach it: heartbeats still answer, so no lease runs out,
// however loaded the machine (a cut-off leader steps down within its
// lease, two thirds of a second at ZooKeeper's default tick, and did so
// once in make test before the sync arrived).
func TestPartition_KillDoesNotWaitForStuckSyncs(t *testing.T) {
	disks := diskFaults(3)
	c := StartCluster(t, 3, WithDiskFaults(disks...))
	leader := c.Leader()
	addr := c.Servers[leader].Addr()
	writer, _ := c.Connect(t, addr)
	syncer, _ := c.Connect(t, addr)
	for _, f := range others(leader) {
		disks[f].Stall()
		t.Cleanup(disks[f].Resume)
	}

	go writer.Create("/never", nil, 0, zk.WorldACL(zk.PermAll)) // appended, never committed
	waitOutstanding(t, addr, 1)
	go syncer.Sync("/") // waits for the create's index to be applied
	waitOutstanding(t, addr, 2)
	require.Equal(t, "leader", c.Servers[leader].Role(), "the leader kept its role with both requests on it")

	killed := make(chan struct{})
	go func() { c.Kill(leader); close(killed) }()
	select {
	case <-killed:
	case <-time.After(15 * time.Second): // a hang detector, well under syncTimeout
		dumpGoroutines(t)
		t.Fatal("Kill waited for the stuck sync")
	}
}

// waitOutstanding waits until the server at addr reports at least n
// requests in progress (srvr's Outstanding).
func waitOutstanding(t *testing.T, addr string, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		stats, ok := zk.FLWSrvr([]string{addr}, time.Second)
		if ok && stats[0].Outstanding >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never had %d requests outstanding", addr, n)
		}
		time.Sleep(5 * time.Millisecond) // poll interval of the condition above
	}
}
