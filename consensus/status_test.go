package consensus

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPeerStatusOnlyWhileWatched runs a three-node ensemble whose members
// produce figures: nobody asks for them until a view on a follower
// watches; then the follower holds both others' figures (the leader's
// and, through the leader, the other follower's), and the leader its
// followers'; once nobody watches, the gathering stops.
func TestPeerStatusOnlyWhileWatched(t *testing.T) {
	nodes := startEnsemble(t, 3)
	waitAllKnowLeader(t, nodes)
	var calls [3]atomic.Int64
	for i, n := range nodes {
		n.SetStatusSource(func() []byte { calls[i].Add(1); return []byte(fmt.Sprintf("figures of %d", i+1)) })
	}
	leader := leaderOf(nodes)
	follower := (leader + 1) % 3
	// Nobody watches: for longer than a gathering round, nothing happens.
	time.Sleep(statusEvery + statusEvery/4)
	for i, n := range nodes {
		require.Zero(t, calls[i].Load(), "node %d produced figures nobody watched", i+1)
		require.Empty(t, n.PeerStatuses())
	}

	require.Eventually(t, func() bool {
		nodes[follower].WatchPeers()
		return len(nodes[follower].PeerStatuses()) == 2 && len(nodes[leader].PeerStatuses()) == 2
	}, 10*time.Second, 50*time.Millisecond)
	for _, p := range nodes[follower].PeerStatuses() {
		require.Equal(t, fmt.Sprintf("figures of %d", p.ID), string(p.Data))
		require.WithinDuration(t, time.Now(), p.At, 5*time.Second)
	}
	require.Eventually(t, func() bool {
		nodes[leader].status.mu.Lock()
		defer nodes[leader].status.mu.Unlock()
		return !nodes[leader].status.asking
	}, 2*statusInterest+2*statusEvery, 50*time.Millisecond, "the leader stops gathering once nobody watches")
	before := [3]int64{calls[0].Load(), calls[1].Load(), calls[2].Load()}
	time.Sleep(statusEvery + statusEvery/4) // a round's length: no more figures
	require.Equal(t, before, [3]int64{calls[0].Load(), calls[1].Load(), calls[2].Load()})
}
