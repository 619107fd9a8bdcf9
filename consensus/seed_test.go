package consensus

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// seedState is a small state as an import hands it over: a tree with a
// node, a session and ZooKeeper's last zxid in epoch 7.
func seedState(t *testing.T) State {
	t.Helper()
	tree := datatree.New(datatree.Config{})
	res := tree.Apply(&datatree.Txn{Zxid: 0x700000041, Time: 5, Op: wire.OpCreate,
		Body: &wire.CreateRequest{Path: "/imported", Data: []byte("x"), ACL: wire.OpenACLUnsafe}})
	require.NoError(t, res.Err)
	sessions := session.NewTable()
	sessions.Add(0x0100000000000009, 30000)
	return State{Tree: tree, Sessions: sessions, LastZxid: 0x700000042}
}

// A seeded standalone directory starts with the seeded state, and its
// first write gets a zxid above the seeded one, in a later epoch. Seed
// never writes over zkraft data.
func TestSeedStandalone(t *testing.T) {
	dir := t.TempDir()
	storage := Storage{DataDir: dir}
	require.NoError(t, Seed(storage, 3, nil, seedState(t)))
	require.ErrorIs(t, Seed(storage, 3, nil, seedState(t)), ErrHasData)
	reports, err := Verify(dir, "")
	require.NoError(t, err)
	require.NotEmpty(t, reports)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 3, Storage: storage})
	require.NoError(t, err)
	defer n.Close()
	require.Equal(t, int64(0x700000042), n.LastZxid())
	require.Len(t, n.Sessions(), 1)
	a, err := n.Propose(ctx, &Command{Kind: KindTxn, Txn: &datatree.Txn{Time: 6, Op: wire.OpCreate,
		Body: &wire.CreateRequest{Path: "/new", ACL: wire.OpenACLUnsafe}}})
	require.NoError(t, err)
	require.Greater(t, a.Zxid, int64(0x700000042))
	require.Greater(t, a.Zxid>>32, int64(7), "a later epoch")
}

// Every member of an ensemble seeded with the same state elects a leader
// and serves the state; a write reaches all of them.
func TestSeedEnsemble(t *testing.T) {
	var peers []Peer
	for i := 1; i <= 3; i++ {
		peers = append(peers, Peer{ID: int64(i), RaftAddr: freeAddr(t), ForwardAddr: freeAddr(t)})
	}
	st := seedState(t)
	var nodes []*Node
	for _, p := range peers {
		storage := Storage{DataDir: t.TempDir()}
		require.NoError(t, Seed(storage, p.ID, peers, st))
		n, err := Start(context.Background(), Config{ServerID: p.ID, Peers: peers, Storage: storage, ElectionTimeout: testElectionTimeout})
		require.NoError(t, err)
		t.Cleanup(func() { n.Close() })
		nodes = append(nodes, n)
	}
	waitAllKnowLeader(t, nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, err := nodes[leaderOf(nodes)].Propose(ctx, &Command{Kind: KindTxn, Txn: &datatree.Txn{Time: 6, Op: wire.OpCreate,
		Body: &wire.CreateRequest{Path: "/new", ACL: wire.OpenACLUnsafe}}})
	require.NoError(t, err)
	require.Greater(t, a.Zxid, int64(0x700000042))
	for _, n := range nodes {
		require.Eventually(t, func() bool {
			found := false
			n.Read(func(s *State) { found = s.Tree.Exists("/new") && s.Tree.Exists("/imported") })
			return found
		}, 10*time.Second, 5*time.Millisecond)
	}
}
