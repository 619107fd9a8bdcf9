package consensus

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// applyGate blocks a node's applies while armed, as a slow disk or a long
// pause would: its log gets the entries, its state does not.
type applyGate struct {
	armed   atomic.Bool
	release chan struct{}
	once    sync.Once
}

func (g *applyGate) hook(*Applied) {
	if g.armed.Load() {
		<-g.release
	}
}

func (g *applyGate) open() { g.once.Do(func() { close(g.release) }) }

// TestAwaitSyncedWaitsForTheNewEpoch: a follower synchronised in one term
// falls behind on applying an entry, the leadership moves, and in the new
// term the follower does not count as synchronised (so it admits no
// client) until it has applied what the new leader had.
func TestAwaitSyncedWaitsForTheNewEpoch(t *testing.T) {
	gate := &applyGate{release: make(chan struct{})}
	const lagging = 2 // server id of the follower whose applies block
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) {
		c.Tree = datatree.Config{ExtendedTypesEnabled: true}
		if c.ServerID == lagging {
			c.Hook = gate.hook
		}
	})
	t.Cleanup(gate.open) // runs before the nodes close: cleanups run last first
	waitAllKnowLeader(t, nodes)
	if leaderOf(nodes) == lagging-1 {
		require.NoError(t, nodes[lagging-1].HandOver())
		waitAllKnowLeader(t, nodes)
	}
	f := nodes[lagging-1]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.True(t, f.AwaitSynced(ctx), "the first call synchronises")
	require.True(t, f.AwaitSynced(ctx), "a later call in the same term returns at once")

	gate.armed.Store(true)
	old := leaderOf(nodes)
	propose(t, nodes[old], &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	propose(t, nodes[old], txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/late", ACL: wire.OpenACLUnsafe}))
	term := f.raft.CurrentTerm()
	require.NoError(t, nodes[old].HandOver())
	require.Eventually(t, func() bool { return f.HasLeader() && f.raft.CurrentTerm() > term }, 20*time.Second, 5*time.Millisecond)

	short, cancelShort := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelShort()
	require.False(t, f.AwaitSynced(short), "a follower that has not applied the old epoch's entries is not synchronised")

	gate.open()
	require.True(t, f.AwaitSynced(ctx))
	var found bool
	f.Read(func(st *State) { found = st.Tree.Exists("/late") })
	require.True(t, found, "once synchronised, the follower's state has the entry")
}

// TestSyncedThisTermWithoutAHandshake: no client asks, yet a follower
// that is behind in a new term is not synchronised while its applies are
// held back, and becomes synchronised by itself once they run (srvr and
// mntr answer "not currently serving" until then).
func TestSyncedThisTermWithoutAHandshake(t *testing.T) {
	gate := &applyGate{release: make(chan struct{})}
	const lagging = 2
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) {
		c.Tree = datatree.Config{ExtendedTypesEnabled: true}
		if c.ServerID == lagging {
			c.Hook = gate.hook
		}
	})
	t.Cleanup(gate.open)
	waitAllKnowLeader(t, nodes)
	if leaderOf(nodes) == lagging-1 {
		require.NoError(t, nodes[lagging-1].HandOver())
		waitAllKnowLeader(t, nodes)
	}
	for _, n := range nodes {
		require.Eventually(t, n.SyncedThisTerm, 10*time.Second, 5*time.Millisecond, "every member synchronises by itself")
	}
	f := nodes[lagging-1]
	gate.armed.Store(true)
	old := leaderOf(nodes)
	propose(t, nodes[old], &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	term := f.raft.CurrentTerm()
	require.NoError(t, nodes[old].HandOver())
	require.Eventually(t, func() bool { return f.HasLeader() && f.raft.CurrentTerm() > term }, 20*time.Second, 5*time.Millisecond)
	require.False(t, f.SyncedThisTerm(), "a follower whose applies are held back is not synchronised in the new term")

	gate.open()
	require.Eventually(t, f.SyncedThisTerm, 10*time.Second, 5*time.Millisecond, "it synchronises once its applies run")
}
