package consensus

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProposeAsLeaderNeverForwards: a decision taken as the leader of one
// term (a session's expiry) is proposed only by that leader in that term.
// A follower, or the leader asked for an earlier term (an old leader
// resumed after a pause, before it learns it was deposed, has the same
// view), gets ErrNotLeader, and nothing reaches the log: the session is
// still open everywhere.
func TestProposeAsLeaderNeverForwards(t *testing.T) {
	nodes, _ := startEnsembleWith(t, 3, func(*Config) {})
	waitAllKnowLeader(t, nodes)
	leader := nodes[leaderOf(nodes)]
	follower := nodes[(leaderOf(nodes)+1)%3]
	propose(t, leader, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	term := leader.raft.CurrentTerm()
	closeCmd := func() *Command { return &Command{Kind: KindCloseSession, Session: testSession, Time: 2} }
	ctx := context.Background()

	_, err := follower.ProposeAsLeader(ctx, closeCmd(), term)
	require.ErrorIs(t, err, ErrNotLeader, "a follower does not forward it")
	_, err = leader.ProposeAsLeader(ctx, closeCmd(), term-1)
	require.ErrorIs(t, err, ErrNotLeader, "nor does a leader for a term it no longer leads")
	for i, n := range nodes {
		require.NoError(t, n.Sync(ctx))
		var open bool
		n.Read(func(st *State) { _, open = st.Sessions.Get(testSession) })
		require.True(t, open, "server %d: the session is still open", i+1)
	}

	a, err := leader.ProposeAsLeader(ctx, closeCmd(), term)
	require.NoError(t, err, "the leader of the term proposes it")
	require.NoError(t, a.Result.Err)
}
