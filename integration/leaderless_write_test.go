package integration

import (
	"fmt"
	"strings"
	"sync"
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
	// Several clients, so that several proposals are in flight on the
	// follower's link at once: a refusal of one used to be followed by a
	// stale refusal of the next that failed it while it was resent.
	const clients = 4
	raws := make([]*rawClient, clients)
	for i := range raws {
		raw, err := connectRaw(c.Servers[follower].Addr(), 4000)
		require.NoError(t, err)
		defer raw.Close()
		raws[i] = raw
	}

	c.Kill(leader) // a crash: the others notice when its heartbeats stop
	killed := time.Now()
	if restart {
		c.Restart(leader)
	}

	const prefix = "/locks/_c_0f8e4a52-2b44-4c7c-9c5e-6a1b3e0d7f21-lock-"
	created := make([]wire.Create2Response, clients)
	errs := make([]error, clients)
	codes := make([]wire.Code, clients)
	var wg sync.WaitGroup
	for i, raw := range raws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var kids wire.GetChildrenResponse
			if _, errs[i] = raw.Call(wire.OpGetChildren, &wire.GetChildrenRequest{Path: "/locks"}, &kids); errs[i] != nil {
				errs[i] = fmt.Errorf("the follower must serve the read: %w", errs[i])
				return
			}
			r, err := raw.Call(wire.OpCreate2, &wire.CreateRequest{Path: prefix, ACL: wire.OpenACLUnsafe,
				Flags: wire.FlagEphemeralSequential}, &created[i])
			if err != nil {
				errs[i] = fmt.Errorf("the create must be answered, not the connection closed (%v after the kill): %w", time.Since(killed), err)
				return
			}
			codes[i] = r.Hdr.Err
		}()
	}
	wg.Wait()
	var want []string
	for i, raw := range raws {
		require.NoError(t, errs[i], "client %d", i)
		require.Equal(t, wire.CodeOK, codes[i], "client %d", i)
		require.True(t, strings.HasPrefix(created[i].Path, prefix), "created %q", created[i].Path)
		require.Equal(t, raw.Session.SessionID, created[i].Stat.EphemeralOwner)
		want = append(want, created[i].Path[len("/locks/"):])
	}
	t.Logf("creates answered %v after the leader's crash", time.Since(killed))

	var kids wire.GetChildrenResponse
	_, err = raws[0].Call(wire.OpGetChildren, &wire.GetChildrenRequest{Path: "/locks"}, &kids)
	require.NoError(t, err)
	require.ElementsMatch(t, want, kids.Children, "each create applied once")
}
