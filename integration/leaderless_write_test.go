package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// TestEnsemble_WriteOnFollowerWaitsOutLeaderCrash replays the exchange that
// made Apache Curator's InterProcessMutex fail ("Path cannot be null")
// while a leader was SIGKILLed: on a follower, right after the leader
// died, a getChildren succeeds and the create2 of a protected
// EPHEMERAL_SEQUENTIAL lock node follows. The follower knew no reachable
// leader and closed the connection instead of answering; Curator's
// protected-mode retry (getChildren finds nothing, create loses the
// connection again) then returns null. A ZooKeeper follower serves no
// client until the new leader is there, so the create, once a read
// succeeded, is answered: here it must wait for the new leader and succeed.
func TestEnsemble_WriteOnFollowerWaitsOutLeaderCrash(t *testing.T) {
	leaderlessWrite(t, false)
}

// TestEnsemble_WriteOnFollowerWaitsOutLeaderCrashAndRestart is the same
// with the dead leader restarted at once, as zkbench -kills does: Raft on
// the follower still names it leader for a while, and the restarted
// process, not leading, refused the forwarded create. That refusal used
// to close the client's connection as well.
func TestEnsemble_WriteOnFollowerWaitsOutLeaderCrashAndRestart(t *testing.T) {
	leaderlessWrite(t, true)
}

func leaderlessWrite(t *testing.T, restart bool) {
	// ZooKeeper's default tick: a follower drops its clients after two
	// leaderless ticks (server/leadership.go), which a loaded machine's
	// election can outlast with the harness's short tick.
	c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) {
		cfg.TickTime = 2 * time.Second
		cfg.MaxSessionTimeout = 8 * time.Second
	}))
	setup, _ := c.Connect(t)
	_, err := setup.Create("/locks", nil, 0, openACL)
	require.NoError(t, err)
	leader := c.Leader()
	follower := (leader + 1) % 3
	raw, err := connectRaw(c.Servers[follower].Addr(), 4000)
	require.NoError(t, err)
	defer raw.Close()

	c.Kill(leader) // a crash: the others notice when its heartbeats stop
	killed := time.Now()
	if restart {
		c.Restart(leader)
	}

	var kids wire.GetChildrenResponse
	r, err := raw.Call(wire.OpGetChildren, &wire.GetChildrenRequest{Path: "/locks"}, &kids)
	require.NoError(t, err, "the follower serves the read")
	require.Equal(t, wire.CodeOK, r.Hdr.Err)
	require.Empty(t, kids.Children)

	const prefix = "/locks/_c_0f8e4a52-2b44-4c7c-9c5e-6a1b3e0d7f21-lock-"
	var created wire.Create2Response
	r, err = raw.Call(wire.OpCreate2, &wire.CreateRequest{Path: prefix, ACL: wire.OpenACLUnsafe,
		Flags: wire.FlagEphemeralSequential}, &created)
	require.NoError(t, err, "the create must be answered, not the connection closed (%v after the kill)", time.Since(killed))
	require.Equal(t, wire.CodeOK, r.Hdr.Err)
	require.True(t, strings.HasPrefix(created.Path, prefix), "created %q", created.Path)
	require.Equal(t, raw.Session.SessionID, created.Stat.EphemeralOwner)
	t.Logf("create answered %v after the leader's crash", time.Since(killed))

	r, err = raw.Call(wire.OpGetChildren, &wire.GetChildrenRequest{Path: "/locks"}, &kids)
	require.NoError(t, err)
	require.Equal(t, []string{created.Path[len("/locks/"):]}, kids.Children)
}
