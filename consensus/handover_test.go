package consensus

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testports"
)

// freeAddr returns a loopback address free now that no other test process
// of the run hands out (see package testports).
func freeAddr(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", testports.Free(t))
}

// testElectionTimeout is the ensembles' Raft timeout in these tests. With
// 100 ms a loaded 2-core machine re-elected under them (a hand-over timed
// out, a follower caught up from a new leader's log instead of a snapshot).
const testElectionTimeout = 500 * time.Millisecond

// startEnsemble starts n in-memory nodes that form one ensemble over TCP.
func startEnsemble(t *testing.T, n int) []*Node {
	t.Helper()
	nodes, _ := startEnsembleWith(t, n, func(c *Config) { c.ElectionTimeout = testElectionTimeout })
	return nodes
}

// startEnsembleWith starts n in-memory nodes that form one ensemble over
// TCP, each configured by edit, and returns them with their peers.
func startEnsembleWith(t *testing.T, n int, edit func(*Config)) ([]*Node, []Peer) {
	t.Helper()
	var peers []Peer
	for i := 1; i <= n; i++ {
		peers = append(peers, Peer{ID: int64(i), RaftAddr: freeAddr(t), ForwardAddr: freeAddr(t)})
	}
	nodes := make([]*Node, n)
	for i := range nodes {
		cfg := Config{ServerID: int64(i + 1), Peers: peers}
		edit(&cfg)
		nd, err := Start(context.Background(), cfg)
		require.NoError(t, err)
		t.Cleanup(func() { nd.Close() })
		nodes[i] = nd
	}
	return nodes, peers
}

// waitAllKnowLeader waits until there is a leader and every node knows one.
func waitAllKnowLeader(t *testing.T, nodes []*Node) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, n := range nodes {
			if !n.HasLeader() {
				return false
			}
		}
		return leaderOf(nodes) >= 0
	}, 20*time.Second, 5*time.Millisecond)
}

func leaderOf(nodes []*Node) int {
	for i, n := range nodes {
		if n.IsLeader() {
			return i
		}
	}
	return -1
}

func TestHandOverMakesAFollowerLead(t *testing.T) {
	nodes := startEnsemble(t, 3)
	require.Eventually(t, func() bool { return leaderOf(nodes) >= 0 }, 20*time.Second, 5*time.Millisecond)
	old := leaderOf(nodes)
	follower := (old + 1) % 3
	require.ErrorIs(t, nodes[follower].HandOver(), ErrNotLeading)

	// HandOver succeeds only once the old leader has seen a newer term
	// from the follower it picked, so the ensemble is not left leaderless
	// for an election timeout.
	require.NoError(t, nodes[old].HandOver())
	require.False(t, nodes[old].IsLeader())
	require.Eventually(t, func() bool { l := leaderOf(nodes); return l >= 0 && l != old }, 20*time.Second, 5*time.Millisecond)
}

func TestHandOverStandalone(t *testing.T) {
	require.ErrorIs(t, startNode(t, nil).HandOver(), ErrNotLeading)
}
