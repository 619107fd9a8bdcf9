package consensus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// testCounterBase starts every term a few commands short of the rollover.
const testCounterBase = rolloverAt - 6

// zxidLog records every zxid a node applies, in order.
type zxidLog struct {
	mu    sync.Mutex
	zxids []int64
}

func (z *zxidLog) hook(a *Applied) {
	z.mu.Lock()
	z.zxids = append(z.zxids, a.Zxid)
	z.mu.Unlock()
}

func (z *zxidLog) all() []int64 {
	z.mu.Lock()
	defer z.mu.Unlock()
	return append([]int64(nil), z.zxids...)
}

// requireRolledOver checks that zxids only grow, that no counter wrapped
// below the terms' starting point, and that at least epochs terms were
// used; it returns how many terms it saw.
func requireRolledOver(t *testing.T, zxids []int64, epochs int) int {
	t.Helper()
	seen := map[int64]bool{}
	for i, z := range zxids {
		if i > 0 {
			require.Greater(t, z, zxids[i-1], "#%d: zxid 0x%x after 0x%x", i, z, zxids[i-1])
		}
		counter := uint32(z)
		require.Greater(t, counter, uint32(testCounterBase), "#%d: counter of 0x%x wrapped", i, z)
		seen[z>>32] = true
	}
	require.GreaterOrEqual(t, len(seen), epochs, "terms used: %d", len(seen))
	t.Logf("%d zxids in %d terms, from 0x%x to 0x%x", len(zxids), len(seen), zxids[0], zxids[len(zxids)-1])
	return len(seen)
}

// plainCreate creates a persistent node outside any session.
func plainCreate(path string) *Command {
	return &Command{Kind: KindTxn, Txn: &datatree.Txn{Time: 1_700_000_000_000, Op: wire.OpCreate,
		Body: &wire.CreateRequest{Path: path, ACL: wire.OpenACLUnsafe}}}
}

// writeUntilApplied proposes a create of a new path through n until one
// is applied, retrying while the leader changes (the way clients retry),
// and returns its zxid.
func writeUntilApplied(t *testing.T, n *Node, name string) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a, err := n.Propose(ctx, plainCreate(fmt.Sprintf("/%s-%d", name, attempt)))
		cancel()
		if err == nil {
			require.NoError(t, a.Result.Err)
			return a.Zxid
		}
		require.True(t, errors.Is(err, ErrNotLeader) || errors.Is(err, ErrTermExhausted), "write %s: %v", name, err)
		require.True(t, time.Now().Before(deadline), "write %s still fails: %v", name, err)
		t.Logf("write %s: %v; retrying", name, err)
		waitLeading(t, n)
	}
}

// waitLeading waits until n knows a leader again.
func waitLeading(t *testing.T, n *Node) {
	t.Helper()
	require.Eventually(t, func() bool { return n.HasLeader() || n.IsLeader() }, 10*time.Second, time.Millisecond)
}

func TestFSMNeverWrapsTheCounter(t *testing.T) {
	var seen zxidLog
	f := newFSM(datatree.Config{}, seen.hook, 1)
	f.setCounter(7, maxCounter-1)
	entry := func(index, term uint64, path string) *raft.Log {
		var e wire.Encoder
		plainCreate(path).Encode(&e)
		return &raft.Log{Index: index, Term: term, Type: raft.LogCommand, Data: e.Bytes()}
	}
	f.ApplyBatch([]*raft.Log{entry(1, 7, "/last")})
	resp := f.ApplyBatch([]*raft.Log{entry(2, 7, "/late-1"), entry(3, 7, "/late-2"), entry(4, 8, "/next")})

	require.Equal(t, int64(7)<<32|maxCounter, seen.all()[0], "the last counter of the term is used")
	require.ErrorIs(t, resp[0].(error), ErrTermExhausted, "no counter left for a command of term 7")
	require.ErrorIs(t, resp[1].(error), ErrTermExhausted)
	require.Equal(t, int64(8)<<32|1, resp[2].(*Applied).Zxid, "the next term starts again at 1")
	require.Equal(t, []int64{7<<32 | maxCounter, 8<<32 | 1}, seen.all(), "refused entries are not applied")
	_, err := f.st.Tree.Stat("/late-1")
	require.Error(t, err, "a refused create changed the tree")
	require.Equal(t, int64(8)<<32|1, f.st.LastZxid)
}

func TestStandaloneRollsOverToANewTerm(t *testing.T) {
	var seen zxidLog
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Hook: seen.hook, counterBase: testCounterBase})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	first := n.Epoch()
	var last int64
	for i := 0; i < 20; i++ {
		z := writeUntilApplied(t, n, fmt.Sprintf("s%d", i))
		require.Greater(t, z, last)
		last = z
	}
	require.Greater(t, n.Epoch(), first+1, "the standalone server started new terms")
	require.Equal(t, "standalone", n.Role())
	requireRolledOver(t, seen.all(), 3)
}

func TestEnsembleRollsOverToANewTerm(t *testing.T) {
	logs := make([]*zxidLog, 3)
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) {
		c.ElectionTimeout, c.counterBase = testElectionTimeout, testCounterBase
		logs[c.ServerID-1] = &zxidLog{}
		c.Hook = logs[c.ServerID-1].hook
	})
	waitAllKnowLeader(t, nodes)
	first := nodes[leaderOf(nodes)].Epoch()
	var last int64
	for i := 0; i < 30; i++ {
		// Through each server in turn: the leader's own writes and the
		// followers' forwarded ones both cross the rollover.
		z := writeUntilApplied(t, nodes[i%3], fmt.Sprintf("e%d", i))
		require.Greater(t, z, last, "write %d", i)
		last = z
	}
	// Bursts through every server: commands of the old term are still in
	// flight when the gate closes, and must be applied in order or not at
	// all, never with a wrapped zxid.
	for round := 0; round < 3; round++ {
		var futs []*Future
		for i := 0; i < 12; i++ {
			futs = append(futs, nodes[i%3].ProposeAsync(plainCreate(fmt.Sprintf("/b%d-%d", round, i))))
		}
		for i, f := range futs {
			if _, err := f.Wait(); err != nil {
				require.True(t, errors.Is(err, ErrNotLeader) || errors.Is(err, ErrTermExhausted), "burst %d #%d: %v", round, i, err)
			}
		}
		waitAllKnowLeader(t, nodes)
	}
	waitAllKnowLeader(t, nodes)
	lead := nodes[leaderOf(nodes)]
	require.Greater(t, lead.Epoch(), first+1, "new terms started")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, n := range nodes {
		// The last burst may have started one more term: a sync that
		// meets the hand-over is asked again.
		require.Eventually(t, func() bool { return n.Sync(ctx) == nil }, 10*time.Second, time.Millisecond)
	}
	want := logs[0].all()
	requireRolledOver(t, want, 3)
	for i, l := range logs[1:] {
		got := l.all()
		common := min(len(got), len(want))
		require.GreaterOrEqual(t, common, 30)
		require.Equal(t, want[:common], got[:common], "server %d applied other zxids", i+2)
	}
}

// A single voter with an observer has no one to hand over to: it stands
// for election again over its own peer port.
func TestSingleVoterWithObserverRollsOver(t *testing.T) {
	peers := []Peer{
		{ID: 1, RaftAddr: freeAddr(t), ForwardAddr: freeAddr(t)},
		{ID: 2, RaftAddr: freeAddr(t), ForwardAddr: freeAddr(t), Observer: true},
	}
	var seen zxidLog
	nodes := make([]*Node, 2)
	for i := range nodes {
		cfg := Config{ServerID: int64(i + 1), Peers: peers, ElectionTimeout: testElectionTimeout, counterBase: testCounterBase}
		if i == 0 {
			cfg.Hook = seen.hook
		}
		nd, err := Start(context.Background(), cfg)
		require.NoError(t, err)
		t.Cleanup(func() { nd.Close() })
		nodes[i] = nd
	}
	waitAllKnowLeader(t, nodes)
	first := nodes[0].Epoch()
	var last int64
	for i := 0; i < 16; i++ {
		z := writeUntilApplied(t, nodes[i%2], fmt.Sprintf("o%d", i))
		require.Greater(t, z, last, "write %d", i)
		last = z
	}
	require.True(t, nodes[0].IsLeader(), "the only voter leads again")
	require.Greater(t, nodes[0].Epoch(), first+1)
	requireRolledOver(t, seen.all(), 3)
}
