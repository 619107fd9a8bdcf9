package integration

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/server"
)

func diskFaults(n int) []*consensus.DiskFaults {
	out := make([]*consensus.DiskFaults, n)
	for i := range out {
		out[i] = &consensus.DiskFaults{}
	}
	return out
}

// waitCond polls cond until it holds or 20 s pass.
func waitCond(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // poll interval of the condition above
	}
}

func epochOf(zxid int64) int64 { return zxid >> 32 }

// createEpoch creates path and returns the epoch of its zxid.
func createEpoch(t *testing.T, c *zk.Conn, path string) int64 {
	t.Helper()
	_, err := c.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, path)
	_, st, err := c.Get(path)
	require.NoError(t, err)
	return epochOf(st.Czxid)
}

// TestFollowerWithFullDiskDoesNotDisturbEnsemble: a follower whose log disk
// is full holds no election and slows nobody down; the ensemble keeps
// committing in the same epoch, the follower refuses writes (NOTREADONLY)
// but serves reads, and catches up by itself once it has space again.
func TestFollowerWithFullDiskDoesNotDisturbEnsemble(t *testing.T) {
	disks := diskFaults(3)
	c := StartCluster(t, 3, WithDiskFaults(disks...))
	leader := c.WaitForLeader()
	f := (leader + 1) % 3
	lc, _ := c.Connect(t, c.Servers[leader].Addr())
	fc, _ := c.Connect(t, c.Servers[f].Addr())
	epoch := createEpoch(t, lc, "/before")
	_, err := fc.Sync("/")
	require.NoError(t, err)

	disks[f].SetFull(true)
	for i := 0; i < 30; i++ {
		require.Equal(t, epoch, createEpoch(t, lc, fmt.Sprintf("/w-%02d", i)), "same epoch: no election")
	}
	waitCond(t, "the follower to find its disk full", func() bool { return c.Servers[f].DiskState().Full })
	_, err = fc.Create("/refused", nil, 0, zk.WorldACL(zk.PermAll))
	require.ErrorContains(t, err, "-119")
	_, _, err = fc.Get("/before")
	require.NoError(t, err, "the follower still serves reads")
	require.Equal(t, leader, c.Leader())

	disks[f].SetFull(false)
	waitCond(t, "the follower to take writes again", func() bool { return !c.Servers[f].DiskState().Full })
	_, err = fc.Sync("/")
	require.NoError(t, err)
	kids, _, err := fc.Children("/")
	require.NoError(t, err)
	require.Len(t, kids, 32, "/zookeeper, /before and the 30 writes: caught up")
	require.Equal(t, epoch, createEpoch(t, fc, "/after"))
}

// TestLeaderWithFullDiskStepsAside: a leader whose log disk is full gives
// up leadership once, a member with room leads, and the ensemble then
// commits in one epoch (no election storm); the old leader catches up when
// it has space again. The log is raft-wal here (forceSync=yes), so its
// reopen after a full disk is exercised too.
func TestLeaderWithFullDiskStepsAside(t *testing.T) {
	disks := diskFaults(3)
	c := StartCluster(t, 3, WithDiskFaults(disks...), WithServerConfig(func(cfg *server.Config) { cfg.ForceSync = true }))
	old := c.WaitForLeader()
	var others []string
	var otherIdx []int
	for i, s := range c.Servers {
		if i != old {
			others, otherIdx = append(others, s.Addr()), append(otherIdx, i)
		}
	}
	cl, _ := c.Connect(t, others...)
	createEpoch(t, cl, "/before")

	disks[old].SetFull(true)
	// The first write reaches the full leader, which steps down; retry
	// until a new leader commits it.
	waitCond(t, "a write to commit under a new leader", func() bool {
		_, err := cl.Create("/first", nil, 0, zk.WorldACL(zk.PermAll))
		return err == nil || errors.Is(err, zk.ErrNodeExists)
	})
	now := c.WaitForLeaderAmong(otherIdx...)
	require.NotEqual(t, old, now)
	// The old leader replicated /first while its own append was failing,
	// so the new leader may commit it with the old epoch in its zxid, as a
	// new ZooKeeper leader commits the old epoch's proposals. Every write
	// after it carries the new epoch.
	_, st, err := cl.Get("/first")
	require.NoError(t, err)
	epoch := createEpoch(t, cl, "/w-00")
	require.LessOrEqual(t, epochOf(st.Czxid), epoch)
	for i := 1; i < 30; i++ {
		require.Equal(t, epoch, createEpoch(t, cl, fmt.Sprintf("/w-%02d", i)), "one epoch after the hand-over")
	}
	require.True(t, c.Servers[old].DiskState().Full)

	disks[old].SetFull(false)
	waitCond(t, "the old leader to take writes again", func() bool { return !c.Servers[old].DiskState().Full })
	oc, _ := c.Connect(t, c.Servers[old].Addr())
	_, err = oc.Sync("/")
	require.NoError(t, err)
	kids, _, err := oc.Children("/")
	require.NoError(t, err)
	require.Len(t, kids, 33, "/zookeeper, /before, /first and the 30 writes")
}
