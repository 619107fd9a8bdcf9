package consensus

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// filledFSM returns an FSM holding a tree of about count znodes with data
// of assorted sizes (some larger than a snapshot chunk), sessions and the
// mixed workload.
func filledFSM(t *testing.T, count int) *fsm {
	f := newFSM(datatree.Config{ExtendedTypesEnabled: true}, nil, 1)
	index := uint64(0)
	apply := func(cmd *Command) {
		var e wire.Encoder
		cmd.Encode(&e)
		index++
		f.Apply(&raft.Log{Index: index, Term: 2, Data: e.Bytes()})
	}
	for _, cmd := range workload()[:20] {
		apply(cmd)
	}
	apply(&Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1})
	apply(createCmd("/m"))
	for i := 0; i < count; i++ {
		cmd := createCmd("/m/n" + strconv.Itoa(i))
		if i%5000 == 0 {
			cmd.Txn.Body.(*wire.CreateRequest).Data = bytes.Repeat([]byte{byte(i)}, chunkSize+i)
		}
		apply(cmd)
	}
	return f
}

// TestSnapshotStreamsThroughStore: a large-ish state goes through
// Snapshot, Persist into the in-memory snapshot store, Open and Restore,
// all in chunks, and comes back equal.
func TestSnapshotStreamsThroughStore(t *testing.T) {
	f := filledFSM(t, 20000)
	mem := newMemSnapshotStore()
	st := plainSnapshots{mem}
	metas := persistInto(t, f, st)
	require.Greater(t, metas[0].Size, int64(4*chunkSize))
	require.Greater(t, len(mem.latest.data.chunks), 4)

	// Twice: the stored snapshot can be read more than once.
	for i := 0; i < 2; i++ {
		_, rc, err := st.Open(metas[0].ID)
		require.NoError(t, err)
		g := newFSM(datatree.Config{ExtendedTypesEnabled: true}, nil, 1)
		require.NoError(t, g.Restore(rc))
		requireSameState(t, f, g)
	}
}

// persisted snapshots f into a memSink.
func persisted(t *testing.T, f *fsm) *memSink {
	t.Helper()
	snap, err := f.Snapshot()
	require.NoError(t, err)
	var sink memSink
	require.NoError(t, snap.Persist(&sink))
	return &sink
}

// persistInto snapshots f into store, the only snapshot there, and
// returns the store's listing.
func persistInto(t *testing.T, f *fsm, store raft.SnapshotStore) []*raft.SnapshotMeta {
	t.Helper()
	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink, err := store.Create(raft.SnapshotVersionMax, 9, 2, raft.Configuration{}, 1, nil)
	require.NoError(t, err)
	require.NoError(t, snap.Persist(sink))
	snap.Release()
	metas, err := store.List()
	require.NoError(t, err)
	require.Len(t, metas, 1)
	return metas
}

func requireSameState(t *testing.T, f, g *fsm) {
	t.Helper()
	require.Equal(t, f.st.Tree.NodeCount(), g.st.Tree.NodeCount())
	require.Equal(t, walk(f.st.Tree), walk(g.st.Tree))
	var a, b wire.Encoder
	f.st.Tree.Snapshot(&a)
	g.st.Tree.Snapshot(&b)
	require.True(t, bytes.Equal(a.Bytes(), b.Bytes()), "same data, ACLs and stored counters")
	require.Equal(t, f.st.Sessions.List(), g.st.Sessions.List())
	require.Equal(t, f.st.LastZxid, g.st.LastZxid)
	require.Equal(t, f.term, g.term)
	require.Equal(t, f.counter, g.counter)
}

// format1 encodes f's state as snapshots were written before the header.
func format1(f *fsm) []byte {
	var e wire.Encoder
	e.Long(int64(f.term))
	e.Int(int32(f.counter))
	e.Long(f.st.LastZxid)
	f.st.Sessions.Snapshot(&e)
	f.st.Tree.Snapshot(&e)
	e.Long(f.configVersion)
	encodePeers(&e, f.members)
	return e.Bytes()
}

func TestRestoreReadsFormat1(t *testing.T) {
	f := filledFSM(t, 3000)
	g := newFSM(datatree.Config{ExtendedTypesEnabled: true}, nil, 1)
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(format1(f)))))
	requireSameState(t, f, g)
}

func TestRestoreRejectsBadSnapshots(t *testing.T) {
	f := filledFSM(t, 100)
	sink := persisted(t, f)
	good := sink.plain()
	restore := func(b []byte) error {
		g := newFSM(datatree.Config{}, nil, 1)
		return g.Restore(io.NopCloser(bytes.NewReader(b)))
	}
	require.NoError(t, restore(good))
	for _, n := range []int{0, 3, 10, headerLen, headerLen + 30, len(good) / 2, len(good) - 1} {
		require.Error(t, restore(good[:n]), "cut at %d", n)
	}
	require.ErrorContains(t, restore(append(bytes.Clone(good), 0)), "after the state")
	bad := bytes.Clone(good)
	bad[7] = 9 // format
	require.ErrorContains(t, restore(bad), "format 9")
	bad = bytes.Clone(good)
	bad[0] = 1 // magic
	require.ErrorContains(t, restore(bad), "not a zkraft snapshot")
	bad = bytes.Clone(good)
	bad[8] = 0x80 // negative length
	require.Error(t, restore(bad))
}

// TestFollowerCatchesUpBySnapshot: a member of an in-memory ensemble that
// comes back empty after the leader compacted its log past what the member
// has gets the state by InstallSnapshot, streamed from the leader's
// in-memory snapshot store into the member's Restore.
func TestFollowerCatchesUpBySnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an ensemble")
	}
	var peers []Peer
	for i := 1; i <= 3; i++ {
		peers = append(peers, Peer{ID: int64(i), RaftAddr: freeAddr(t), ForwardAddr: freeAddr(t)})
	}
	start := func(id int64) *Node {
		nd, err := Start(context.Background(), Config{ServerID: id, Peers: peers,
			ElectionTimeout: testElectionTimeout, SnapshotThreshold: 1 << 30, trailingLogs: 10})
		require.NoError(t, err)
		return nd
	}
	nodes := make([]*Node, 3)
	for i := range nodes {
		nodes[i] = start(int64(i + 1))
	}
	t.Cleanup(func() {
		for _, nd := range nodes {
			if nd != nil {
				nd.Close()
			}
		}
	})
	require.Eventually(t, func() bool { return leaderOf(nodes) >= 0 }, 20*time.Second, 5*time.Millisecond)
	leader := nodes[leaderOf(nodes)]
	lagging := (leaderOf(nodes) + 1) % 3
	ctx := context.Background()
	_, err := leader.Propose(ctx, &Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1})
	require.NoError(t, err)
	_, err = leader.Propose(ctx, createCmd("/m"))
	require.NoError(t, err)
	require.NoError(t, nodes[lagging].Close())
	nodes[lagging] = nil

	// Enough entries that the snapshot is several chunks, then a
	// snapshot that compacts all but the last 10 entries.
	fillParallel(t, leader, 2000)
	require.NoError(t, leader.Snapshot())
	first, err := leader.stores.logs.FirstIndex()
	require.NoError(t, err)
	require.Greater(t, first, uint64(1000), "the leader's log no longer holds what the member lacks")

	keepTracing(t, leader) // the console's step-by-step view watches
	nodes[lagging] = start(int64(lagging + 1))
	fillParallel(t, leader, 10) // and entries after the snapshot
	want := leader.LastZxid()
	require.Eventually(t, func() bool { return nodes[lagging].LastZxid() == want }, 20*time.Second, 5*time.Millisecond)
	require.NotEqual(t, "0", nodes[lagging].Stats()["last_snapshot_index"], "caught up by InstallSnapshot")
	// The leader's trace shows the install, as ZAB's SNAP while it
	// synchronizes the member.
	traceSees(t, leader, "the InstallSnapshot", func(ms []TraceMessage) bool {
		for _, m := range ms {
			if m.Kind == TraceSnapshot && m.To == int64(lagging+1) && m.OK {
				require.Equal(t, PhaseSynchronization, m.Phase)
				require.Equal(t, "SNAP", m.Zab)
				require.GreaterOrEqual(t, m.LastIndex, first-1, "the snapshot covers the compacted log")
				return true
			}
		}
		return false
	})
	var a, b []string
	leader.Read(func(st *State) { a = walk(st.Tree) })
	nodes[lagging].Read(func(st *State) { b = walk(st.Tree) })
	require.Equal(t, a, b)
}

// keepTracing keeps n's message trace recording until the test ends, as
// an open step-by-step view does by polling.
func keepTracing(t *testing.T, n *Node) {
	// Recording is on before this returns: on a loaded machine the
	// goroutine may first run after what the test wants recorded.
	n.WatchTrace()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			n.WatchTrace()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

// fillParallel creates count more znodes under /m with many in flight.
func fillParallel(t *testing.T, n *Node, count int) {
	base := int(time.Now().UnixNano() % 1e9)
	futs := make([]*Future, count)
	for i := range futs {
		cmd := createCmd("/m/c" + strconv.Itoa(base+i))
		cmd.Txn.Body.(*wire.CreateRequest).Data = bytes.Repeat([]byte{'y'}, 2000)
		futs[i] = n.ProposeAsync(cmd)
	}
	for _, f := range futs {
		waitCreated(t, f)
	}
}
