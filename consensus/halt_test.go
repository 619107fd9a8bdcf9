package consensus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
)

// TestHaltEndsTheWaitOfAForwardedProposal: a follower forwards a write,
// the leader commits it with the other follower, and the first follower
// halts before its own log holds the entry. Its client's wait must end
// then, not at Close: a server closing waits for those clients' replies
// before it closes the node (the hang of TestLinearizableUnderLeaderKills
// when a stopped leader's hand-over left such a write behind).
func TestHaltEndsTheWaitOfAForwardedProposal(t *testing.T) {
	// An election between finding the leader and the forwarded write (a
	// loaded machine can miss a heartbeat) can make the stalled node the
	// leader, whose write then commits without its own disk: that run
	// says nothing about Halt, so it is run again on a fresh ensemble.
	for attempt := 1; ; attempt++ {
		nodes, f, elected := haltScenario(t)
		if !elected {
			_, err := nodes[f].ProposeAsync(createAt("/after-halt")).Wait()
			require.ErrorIs(t, err, ErrShutdown, "a proposal made after Halt fails at once")
			return
		}
		require.Less(t, attempt, 3, "an election during each of 3 attempts")
		t.Logf("attempt %d: a new election during the scenario; again on a fresh ensemble", attempt)
	}
}

// haltScenario runs the test's scenario once and reports whether the term
// changed during it (the run then proves nothing).
func haltScenario(t *testing.T) (nodes []*Node, f int, elected bool) {
	disks := []*DiskFaults{{}, {}, {}}
	for _, d := range disks {
		t.Cleanup(d.Resume) // runs before the nodes close
	}
	nodes, _ = startEnsembleWith(t, 3, func(c *Config) {
		c.ElectionTimeout = testElectionTimeout
		c.Tree = datatree.Config{}
		c.Storage = Storage{DataDir: t.TempDir(), NoSync: true, Faults: disks[c.ServerID-1]}
	})
	waitAllKnowLeader(t, nodes)
	l := leaderOf(nodes)
	waitFor(t, "every node to follow the same leader", func() bool {
		for _, n := range nodes {
			if _, id := n.raft.LeaderWithID(); id != nodes[l].self {
				return false
			}
		}
		return nodes[l].IsLeader()
	})
	term := nodes[l].raft.CurrentTerm()
	f = (l + 1) % 3
	propose(t, nodes[l], &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})

	disks[f].Stall() // f receives the entry but cannot store it
	fut := nodes[f].ProposeAsync(createAt("/forwarded"))
	waitFor(t, "the leader to apply the forwarded write", func() bool {
		var found bool
		nodes[l].Read(func(st *State) { found = st.Tree.Exists("/forwarded") })
		return found
	})

	done := make(chan error, 1)
	go func() { _, err := fut.Wait(); done <- err }()
	nodes[f].Halt()
	select {
	case err := <-done:
		if err == nil && nodes[l].raft.CurrentTerm() != term {
			return nodes, f, true
		}
		require.ErrorIs(t, err, ErrShutdown)
	case <-time.After(10 * time.Second):
		t.Fatal("the forwarded proposal still waits after Halt")
	}
	return nodes, f, false
}
