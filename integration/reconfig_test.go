package integration

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

const superDigest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU=" // password "test"

func TestReconfig_RemoveAndReaddAServer(t *testing.T) {
	c := startReconfigCluster(t)
	leader := c.Leader()
	victim := (leader + 1) % 3
	victimID := int64(victim + 1)
	line := c.cfgs[victim].Servers[victimID]

	plain, _ := c.Connect(t)
	_, err := plain.IncrementalReconfig(nil, []string{"1"}, -1)
	require.ErrorIs(t, err, zk.ErrNoAuth, "reconfig needs WRITE on /zookeeper/config")

	// The admin talks to a server that stays, through any of them.
	admin, _ := c.Connect(t, c.Servers[leader].Addr(), c.Servers[(leader+2)%3].Addr())
	require.NoError(t, admin.AddAuth("digest", []byte("super:test")))
	_, err = admin.IncrementalReconfig(nil, []string{"1"}, 12345)
	require.ErrorIs(t, err, zk.ErrBadVersion, "curConfigId must match")

	st, err := admin.IncrementalReconfig(nil, []string{strconv.FormatInt(victimID, 10)}, -1)
	require.NoError(t, err)
	data, _, err := admin.Get("/zookeeper/config")
	require.NoError(t, err)
	require.NotContains(t, string(data), serverKey(victimID)+"=", "the removed server is gone from the membership")
	require.Contains(t, string(data), fmt.Sprintf("version=%x", st.Mzxid), "the version is the reconfig's zxid")
	require.Contains(t, fourLetterWord(t, c.Servers[c.Leader()].Addr(), "mntr"), "zk_quorum_size\t2\n")

	// Writes go on with two members; then the server is added back and catches up.
	_, err = admin.Create("/while-out", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	// As in ZooKeeper, a joining server's line names its client port too.
	_, err = admin.IncrementalReconfig([]string{serverKey(victimID) + "=" + line + ";" + c.Servers[victim].Addr()}, nil, st.Mzxid)
	require.NoError(t, err)
	c.WaitForRole(victim, "follower")
	back, _ := c.Connect(t, c.Servers[victim].Addr())
	_, err = back.Sync("/")
	require.NoError(t, err)
	ok, _, err := back.Exists("/while-out")
	require.NoError(t, err)
	require.True(t, ok, "the re-added server caught up")
	data, _, err = back.Get("/zookeeper/config")
	require.NoError(t, err)
	require.Contains(t, string(data), serverKey(victimID)+"=", "every member sees the new membership")
	require.Contains(t, fourLetterWord(t, c.Servers[c.Leader()].Addr(), "mntr"), "zk_quorum_size\t3\n")
}

// startReconfigCluster starts three servers that allow reconfig by the
// super user (password "test").
func startReconfigCluster(t *testing.T) *Cluster {
	return StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) {
		cfg.ReconfigEnabled = true
		cfg.SuperDigest = superDigest
	}))
}

func serverKey(id int64) string { return "server." + strconv.FormatInt(id, 10) }

func TestReconfig_NewMembersThroughAFollower(t *testing.T) {
	c := startReconfigCluster(t)
	leader := c.Leader()
	follower := (leader + 1) % 3
	admin, _ := c.Connect(t, c.Servers[follower].Addr())
	require.NoError(t, admin.AddAuth("digest", []byte("super:test")))

	// Keep every member but turn the third server into an observer.
	lines := c.cfgs[0].Servers
	third := (leader + 2) % 3
	var members []string
	for id := int64(1); id <= 3; id++ {
		line := lines[id]
		if id == int64(third+1) {
			line += ":observer"
		}
		members = append(members, serverKey(id)+"="+line)
	}
	_, err := admin.Reconfig(members, -1)
	require.NoError(t, err, "a follower forwards reconfig to the leader")
	c.WaitForRole(third, "observer")
	data, _, err := admin.Get("/zookeeper/config")
	require.NoError(t, err)
	require.Contains(t, string(data), fmt.Sprintf("server.%d=%s:observer", third+1, lines[int64(third+1)]))
	require.Contains(t, fourLetterWord(t, c.Servers[c.Leader()].Addr(), "mntr"), "zk_synced_observers\t1\n")
}

func TestReconfig_NewServerJoins(t *testing.T) {
	c := startReconfigCluster(t)
	admin, _ := c.Connect(t)
	require.NoError(t, admin.AddAuth("digest", []byte("super:test")))
	_, err := admin.Create("/before-join", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	s4, line4 := startJoiner(t, c, 4)
	_, err = admin.IncrementalReconfig([]string{line4}, nil, -1)
	require.NoError(t, err)
	waitRole(t, s4, "follower")
	newcomer, _ := connectTo(t, []string{s4.Addr()})
	_, err = newcomer.Sync("/")
	require.NoError(t, err)
	data, _, err := newcomer.Get("/before-join")
	require.NoError(t, err, "the newcomer has the ensemble's data")
	require.Equal(t, "x", string(data))
	_, err = newcomer.Create("/via-newcomer", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Contains(t, fourLetterWord(t, c.Servers[c.Leader()].Addr(), "mntr"), "zk_quorum_size\t4\n")
}

// startJoiner starts server id, not yet a member: as with ZooKeeper, its
// zoo.cfg lists the ensemble and itself. It returns the server and the
// joining line a reconfig adds it with (server.N=...;clientAddr).
func startJoiner(t *testing.T, c *Cluster, id int64) (*server.Server, string) {
	t.Helper()
	line := fmt.Sprintf("127.0.0.1:%d:%d", FreePort(t), FreePort(t))
	cfg := c.cfgs[0]
	cfg.ServerID = id
	cfg.DataDir = t.TempDir()
	cfg.Servers = map[int64]string{id: line}
	for i, l := range c.cfgs[0].Servers {
		cfg.Servers[i] = l
	}
	s, err := server.New(cfg, server.WithNetwork(c.Net.For(int(id-1))))
	require.NoError(t, err)
	require.NoError(t, s.Start(context.Background()))
	t.Cleanup(func() { s.Close() })
	return s, serverKey(id) + "=" + line + ";" + s.Addr()
}

// waitRole waits until s has role.
func waitRole(t *testing.T, s *server.Server, role string) {
	t.Helper()
	require.Eventually(t, func() bool { return s.Role() == role }, 20*time.Second, 10*time.Millisecond)
}

// TestReconfig_ConcurrentJoinsBothStay: two servers join at once, each
// through a different follower (as zkserver container's joiners do when a
// StatefulSet scales up in parallel). Each reconfig is computed from its
// follower's view of the membership; neither may undo the other. As in
// ZooKeeper, a reconfig made while another runs may be refused with
// RECONFIGINPROGRESS (code -14), and its caller tries again.
func TestReconfig_ConcurrentJoinsBothStay(t *testing.T) {
	c := startReconfigCluster(t)
	leader := c.Leader()
	s4, line4 := startJoiner(t, c, 4)
	s5, line5 := startJoiner(t, c, 5)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	start := make(chan struct{})
	for i, line := range []string{line4, line5} {
		admin, _ := c.Connect(t, c.Servers[(leader+1+i)%3].Addr())
		require.NoError(t, admin.AddAuth("digest", []byte("super:test")))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = joinRetrying(admin, line)
		}()
	}
	close(start) // both at once
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	waitRole(t, s4, "follower")
	waitRole(t, s5, "follower")
	for i := range c.Servers {
		data, _ := configOf(t, c, i)
		require.Equal(t, 5, strings.Count(string(data), "server."), "server %d: %s", i+1, data)
	}
	require.Contains(t, fourLetterWord(t, c.Servers[c.Leader()].Addr(), "mntr"), "zk_quorum_size\t5\n")
}

// joinRetrying adds line, again while another reconfig is in progress.
func joinRetrying(admin *zk.Conn, line string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := admin.IncrementalReconfig([]string{line}, nil, -1)
		if err == nil || !strings.Contains(err.Error(), "-14") || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond) // back-off before retrying the refused reconfig
	}
}

// TestReconfig_RemoveTheLeaderAndAddItBack walks through docs/zab-and-raft.md's
// reconfig with the leader as the server removed, from a client on a
// follower, as ZooKeeper 3.8 runs it: /zookeeper/config then lists the two
// members left with version=<zxid of the reconfig> on both, the removed
// server says that it was removed, and once added back it follows again
// with every write made while it was out.
func TestReconfig_RemoveTheLeaderAndAddItBack(t *testing.T) {
	c := startReconfigCluster(t)
	old := c.Leader()
	oldID := int64(old + 1)
	line := c.cfgs[old].Servers[oldID]
	admin, _ := c.Connect(t, c.Servers[(old+1)%3].Addr())
	require.NoError(t, admin.AddAuth("digest", []byte("super:test")))
	_, err := admin.Create("/before", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	st, err := admin.IncrementalReconfig(nil, []string{strconv.FormatInt(oldID, 10)}, -1)
	require.NoError(t, err, "removing the leader through a follower")
	c.WaitForRole(old, "removed")
	stays := []int{(old + 1) % 3, (old + 2) % 3}
	for _, i := range stays {
		data, cst := configOf(t, c, i)
		require.Equal(t, 2, strings.Count(string(data), "server."), "server %d: %s", i+1, data)
		require.NotContains(t, string(data), serverKey(oldID)+"=")
		require.True(t, strings.HasSuffix(string(data), fmt.Sprintf("\nversion=%x", st.Mzxid)), "server %d: %s", i+1, data)
		require.Equal(t, st.Mzxid, cst.Mzxid, "the config's version is its mzxid, as in ZooKeeper")
		require.Equal(t, int32(-1), cst.Version, "ZooKeeper leaves the config znode's Stat version at -1")
	}
	require.Contains(t, fourLetterWord(t, c.Servers[old].Addr(), "srvr"), "a reconfig removed it from the ensemble")
	require.Contains(t, fourLetterWord(t, c.Servers[c.Leader()].Addr(), "mntr"), "zk_quorum_size\t2\n")

	for i := 0; i < 5; i++ {
		_, err = admin.Create(fmt.Sprintf("/while-out-%d", i), nil, 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	st2, err := admin.IncrementalReconfig([]string{serverKey(oldID) + "=" + line + ";" + c.Servers[old].Addr()}, nil, st.Mzxid)
	require.NoError(t, err)
	c.WaitForRole(old, "follower")
	require.Contains(t, fourLetterWord(t, c.Servers[old].Addr(), "srvr"), "Mode: follower\n")
	back, _ := c.Connect(t, c.Servers[old].Addr())
	_, err = back.Sync("/")
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		ok, _, err := back.Exists(fmt.Sprintf("/while-out-%d", i))
		require.NoError(t, err)
		require.True(t, ok, "the re-added server has the writes made while it was out")
	}
	for i := range c.Servers {
		data, cst := configOf(t, c, i)
		require.Equal(t, 3, strings.Count(string(data), "server."), "server %d: %s", i+1, data)
		require.Equal(t, st2.Mzxid, cst.Mzxid)
	}
	_, err = back.Create("/via-the-old-leader", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
}

// configOf reads /zookeeper/config from server i after a sync.
func configOf(t *testing.T, c *Cluster, i int) ([]byte, *zk.Stat) {
	t.Helper()
	cl, _ := c.Connect(t, c.Servers[i].Addr())
	defer cl.Close()
	_, err := cl.Sync("/zookeeper/config")
	require.NoError(t, err)
	data, st, err := cl.Get("/zookeeper/config")
	require.NoError(t, err)
	return data, st
}

// TestReconfig_TheServerRemovedAnswersItsClient: a client on the leader
// removes the leader. As with ZooKeeper, whose removed server applies the
// reconfig before it leaves, the client gets the new membership; then the
// removed server drops it and it moves to a server that stays.
func TestReconfig_TheServerRemovedAnswersItsClient(t *testing.T) {
	c := startReconfigCluster(t)
	old := c.Leader()
	oldID := int64(old + 1)
	stays := []int{(old + 1) % 3, (old + 2) % 3}
	admin, _ := c.Connect(t, c.Servers[old].Addr(), c.Servers[stays[0]].Addr(), c.Servers[stays[1]].Addr())
	for !c.Servers[old].HasSession(admin.SessionID()) {
		admin.Close()
		admin, _ = c.Connect(t, c.Servers[old].Addr(), c.Servers[stays[0]].Addr(), c.Servers[stays[1]].Addr())
	}
	require.NoError(t, admin.AddAuth("digest", []byte("super:test")))

	data, err := admin.IncrementalReconfig(nil, []string{strconv.FormatInt(oldID, 10)}, -1)
	require.NoError(t, err)
	want, _ := configOf(t, c, stays[0])
	require.Equal(t, fmt.Sprintf("version=%x", data.Mzxid), string(want[strings.LastIndex(string(want), "\n")+1:]))
	waitSessionMoved(t, c, admin, old)
	got, st, err := admin.Get("/zookeeper/config")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	require.Equal(t, data.Mzxid, st.Mzxid)
}
