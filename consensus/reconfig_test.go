package consensus

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReconfigureRefusesAStaleMembership: a membership computed from a
// configuration that another reconfig has replaced is refused by the
// leader, whichever member asks, so two servers joining at once through
// different members cannot undo each other's addition.
func TestReconfigureRefusesAStaleMembership(t *testing.T) {
	nodes := startEnsemble(t, 3)
	waitAllKnowLeader(t, nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	leader := leaderOf(nodes)
	a, b := nodes[(leader+1)%3], nodes[(leader+2)%3]

	members, base := a.Membership()
	require.Len(t, members, 3)
	require.Equal(t, int64(0), base, "the zoo.cfg's membership has version 0")
	_, baseB := b.Membership()
	require.Equal(t, base, baseB)

	zxid, err := a.Reconfigure(ctx, members, base, 1)
	require.NoError(t, err)
	require.Equal(t, zxid, a.ConfigVersion())

	// b computed its change from version 0 too: refused, nothing written.
	_, err = b.Reconfigure(ctx, members, baseB, 2)
	require.ErrorIs(t, err, ErrConfigChanged)
	_, err = nodes[leader].Reconfigure(ctx, members, base, 2)
	require.ErrorIs(t, err, ErrConfigChanged, "the leader checks its own requests too")
	require.NoError(t, b.Sync(ctx))
	_, version := b.Membership()
	require.Equal(t, zxid, version, "the refused changes wrote no config entry")

	// Computed again from the current version it goes through; -1 means
	// "whatever the membership is".
	next, err := b.Reconfigure(ctx, members, version, 3)
	require.NoError(t, err)
	require.Greater(t, next, zxid)
	_, err = a.Reconfigure(ctx, members, -1, 4)
	require.NoError(t, err)
}

// TestReconfigureOneAtATime: while the leader makes a membership change,
// another is refused with ErrReconfigInProgress (ZooKeeper's
// RECONFIGINPROGRESS), from a follower as from the leader itself.
func TestReconfigureOneAtATime(t *testing.T) {
	nodes := startEnsemble(t, 3)
	waitAllKnowLeader(t, nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	leader := nodes[leaderOf(nodes)]
	follower := nodes[(leaderOf(nodes)+1)%3]
	members, base := follower.Membership()

	leader.reconfigMu.Lock() // a change under way
	_, err := follower.Reconfigure(ctx, members, base, 1)
	require.ErrorIs(t, err, ErrReconfigInProgress)
	_, err = leader.Reconfigure(ctx, members, base, 1)
	require.ErrorIs(t, err, ErrReconfigInProgress)
	leader.reconfigMu.Unlock()

	_, err = follower.Reconfigure(ctx, members, base, 1)
	require.NoError(t, err)
}
