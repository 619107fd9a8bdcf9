package consensus

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// watchTraceFrom keeps a view of nodes[i]'s trace watched (as the console
// does on each refresh) until the test ends, and gives every node a
// status source (a follower answers the leader's asks only with one).
func watchTraceFrom(t *testing.T, nodes []*Node, i int) {
	t.Helper()
	for _, n := range nodes {
		n.SetStatusSource(func() []byte { return []byte("{}") })
	}
	nodes[i].WatchTrace() // on before this returns, whenever the goroutine runs
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			nodes[i].WatchTrace()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

// traceSees polls n's trace until find returns true for its messages.
func traceSees(t *testing.T, n *Node, what string, find func([]TraceMessage) bool) []TraceMessage {
	t.Helper()
	var msgs []TraceMessage
	require.Eventually(t, func() bool {
		msgs = n.Trace(nil, TraceSize).Messages
		return find(msgs)
	}, 20*time.Second, 50*time.Millisecond, "the trace never showed %s", what)
	return msgs
}

// A write through a follower of a three-server ensemble, seen from that
// follower's trace: its forward to the leader, the leader's AppendEntries
// carrying the write's zxid to it (a PROPOSAL, acknowledged), a later
// message raising its commit index past the entry (COMMIT), and the
// leader's reply, in that order, the forward and the proposal both
// named "create /traced". Then the leader is killed: the trace
// shows the election's votes (discovery) and the new leader's first
// messages (discovery, then synchronization or broadcast), and a write in
// the new epoch is a PROPOSAL again.
func TestTraceShowsAWriteAndAnElection(t *testing.T) {
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) { c.ElectionTimeout = 300 * time.Millisecond })
	waitAllKnowLeader(t, nodes)
	leader := leaderOf(nodes)
	fi := (leader + 1) % 3
	f := nodes[fi]
	fid, lid := int64(fi+1), int64(leader+1)
	watchTraceFrom(t, nodes, fi)
	require.Eventually(t, func() bool { return nodes[leader].trace.active() && nodes[(leader+2)%3].trace.active() },
		10*time.Second, 10*time.Millisecond, "every member records")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := f.Propose(ctx, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/traced", ACL: wire.OpenACLUnsafe}))
	require.NoError(t, err)
	zxid := a.Zxid

	var fwd, prop, commit TraceMessage
	var firstProp time.Time // the first AppendEntries carrying the write, to either follower
	traceSees(t, f, "the write's forward, proposal and commit", func(msgs []TraceMessage) bool {
		fwd, prop, commit, firstProp = TraceMessage{}, TraceMessage{}, TraceMessage{}, time.Time{}
		for _, m := range msgs {
			carries := m.Kind == TraceAppend && m.From == lid && m.FirstZxid <= zxid && zxid <= m.LastZxid && m.FirstZxid != 0
			if carries && (firstProp.IsZero() || m.Time.Before(firstProp)) {
				firstProp = m.Time
			}
			switch {
			case m.Kind == TraceForward && m.FirstZxid == zxid:
				fwd = m
			case carries && m.To == fid:
				prop = m
			case prop.Seq != 0 && m.From == lid && m.To == fid && m.Kind == TraceAppend && m.Commit >= prop.LastIndex && m.OK && commit.Seq == 0:
				commit = m
			}
		}
		return fwd.Seq != 0 && prop.Seq != 0 && commit.Seq != 0
	})
	require.Equal(t, []any{fid, lid, true, PhaseBroadcast, "REQUEST"}, []any{fwd.From, fwd.To, fwd.OK, fwd.Phase, fwd.Zab})
	require.Equal(t, "create /traced", fwd.Op, "the forward names its write")
	require.Equal(t, "create /traced", prop.Op, "the leader's proposal, read over the links, names it too")
	require.True(t, prop.OK, "the follower acknowledged the proposal")
	require.Equal(t, PhaseBroadcast, prop.Phase)
	require.Contains(t, []string{"PROPOSAL", "PROPOSAL+COMMIT"}, prop.Zab)
	require.Equal(t, PhaseBroadcast, commit.Phase)
	require.Contains(t, []string{"COMMIT", "PROPOSAL+COMMIT"}, commit.Zab)
	reply := fwd.Time.Add(time.Duration(fwd.LatencyUs) * time.Microsecond)
	// The leader may commit on the other follower's copy and reply before
	// its AppendEntries to this one leaves (Raft replicates to each
	// follower on its own, pipelined), but some proposal left first.
	require.False(t, prop.Time.Before(fwd.Time), "the proposal left after the forward")
	require.True(t, !firstProp.Before(fwd.Time) && firstProp.Before(reply), "a proposal left between the forward and its reply")
	require.True(t, !commit.Time.Before(prop.Time), "the commit came after the proposal")

	oldTerm := prop.Term
	nodes[leader].Close()
	var next int
	require.Eventually(t, func() bool {
		next = leaderOf(nodes)
		return next >= 0 && next != leader
	}, 20*time.Second, 10*time.Millisecond)
	nid := int64(next + 1)
	other := 3 - leader - next // the surviving follower's index
	newTerm := nodes[next].term()
	require.Greater(t, newTerm, oldTerm)

	var vote, first TraceMessage
	var later []TraceMessage
	traceSees(t, f, "the election and the new leader's first messages", func(msgs []TraceMessage) bool {
		vote, first, later = TraceMessage{}, TraceMessage{}, nil
		for _, m := range msgs {
			switch {
			case m.Kind == TraceVote && m.From == nid && m.Term == newTerm && m.OK:
				vote = m
			case m.From == nid && m.To == int64(other+1) && m.Term == newTerm && leaderMessage(m.Kind):
				if first.Seq == 0 {
					first = m
				} else if m.Error == "" {
					later = append(later, m)
				}
			}
		}
		return vote.Seq != 0 && first.Seq != 0 && len(later) > 0
	})
	require.Equal(t, PhaseDiscovery, vote.Phase)
	require.Equal(t, "VOTE", vote.Zab)
	require.Equal(t, PhaseDiscovery, first.Phase, "the new leader's first message to a follower")
	require.Equal(t, "NEWEPOCH", first.Zab)
	require.False(t, first.Time.Before(vote.Time))
	for _, m := range later {
		require.Contains(t, []Phase{PhaseSynchronization, PhaseBroadcast}, m.Phase, "%+v", m)
	}
}
