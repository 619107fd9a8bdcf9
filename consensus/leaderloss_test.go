package consensus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startSlowEnsemble starts three in-memory nodes whose heartbeat and
// election timeout is election and whose leader lease is lease, and waits
// until every node knows the leader.
func startSlowEnsemble(t *testing.T, election, lease time.Duration) []*Node {
	t.Helper()
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) { c.ElectionTimeout, c.leaseTimeout = election, lease })
	// Elect the first leader quickly, then restore the timeouts.
	setTimeouts(t, nodes, min(election, 500*time.Millisecond))
	waitAllKnowLeader(t, nodes)
	setTimeouts(t, nodes, election)
	return nodes
}

func setTimeouts(t *testing.T, nodes []*Node, d time.Duration) {
	for _, n := range nodes {
		rc := n.raft.ReloadableConfig()
		rc.HeartbeatTimeout, rc.ElectionTimeout = d, d
		require.NoError(t, n.raft.ReloadConfig(rc))
	}
}

// When the leader's process goes away, its followers' forwarding
// connections break and cannot be dialled again: they elect a new leader
// within the leader lease instead of waiting for their heartbeat timeout,
// here a minute away.
func TestDeadLeaderIsReplacedBeforeTheHeartbeatTimeout(t *testing.T) {
	nodes := startSlowEnsemble(t, time.Minute, 500*time.Millisecond)
	old := leaderOf(nodes)
	nodes[old].fwdSrv.close() // as if its process died: every link breaks
	require.NoError(t, nodes[old].raft.Shutdown().Error())
	nodes[old].closeStores()
	for i, n := range nodes {
		if i == old {
			continue
		}
		require.Eventually(t, func() bool {
			_, id := n.raft.LeaderWithID()
			return id != "" && id != nodes[old].self
		}, 30*time.Second, 5*time.Millisecond, "server %d found no new leader", i+1)
	}
}

// A follower whose link to a live leader breaks (here the leader stops
// taking forwarding connections) suspects the leader, but the leader keeps
// reaching it within the lease: no election happens, and the timeouts
// return to normal.
func TestBrokenLinkToLiveLeaderCausesNoElection(t *testing.T) {
	nodes := startSlowEnsemble(t, 3*time.Second, 500*time.Millisecond)
	leader := leaderOf(nodes)
	term := nodes[leader].raft.CurrentTerm()
	nodes[leader].fwdSrv.close()
	for i, n := range nodes {
		if i == leader {
			continue
		}
		require.Eventually(t, n.timeouts.suspecting, 10*time.Second, time.Millisecond, "server %d never suspected the leader", i+1)
	}
	for i, n := range nodes {
		if i != leader {
			require.Eventually(t, func() bool { return !n.timeouts.suspecting() }, 20*time.Second, 5*time.Millisecond,
				"server %d kept suspecting the leader", i+1)
		}
	}
	require.True(t, nodes[leader].IsLeader())
	require.Equal(t, term, nodes[leader].raft.CurrentTerm(), "an election happened")
}

// Servers that start together elect a leader within the lease-length
// timeouts, not after Raft's heartbeat timeout: with a one-minute election
// timeout, an ensemble started from nothing has a leader well before the
// first minute is out (without lookAtStart none could stand before it).
func TestStartingEnsembleElectsBeforeTheHeartbeatTimeout(t *testing.T) {
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) { c.ElectionTimeout, c.leaseTimeout = time.Minute, 500*time.Millisecond })
	for i, n := range nodes {
		if !n.HasLeader() {
			require.Eventually(t, func() bool { return n.timeouts.suspecting() || n.HasLeader() }, 10*time.Second, time.Millisecond,
				"server %d kept Raft's one-minute timeouts at start", i+1)
		}
	}
	require.Eventually(t, func() bool {
		for _, n := range nodes {
			if !n.HasLeader() {
				return false
			}
		}
		return leaderOf(nodes) >= 0
	}, 30*time.Second, 5*time.Millisecond, "no leader within half the heartbeat timeout")
	for i, n := range nodes {
		require.Eventually(t, func() bool { return !n.timeouts.suspecting() }, 10*time.Second, 5*time.Millisecond,
			"server %d kept the short timeouts with a leader known", i+1)
		require.Equal(t, time.Minute, n.raft.ReloadableConfig().HeartbeatTimeout, "server %d", i+1)
	}
}
