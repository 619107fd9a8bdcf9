package consensus

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/wire"
)

// quorumFixture is a durableQuorum over a configuration and term the test
// sets, with the local durable index in local.
type quorumFixture struct {
	q     *durableQuorum
	local atomic.Uint64
	term  atomic.Uint64
	conf  raft.Configuration
}

func newQuorumFixture(servers ...raft.Server) *quorumFixture {
	f := &quorumFixture{conf: raft.Configuration{Servers: servers}}
	f.term.Store(1)
	f.q = newDurableQuorum("1", f.local.Load, metrics.NewSet().Counter("ahead"))
	f.q.bind(func() raft.Configuration { return f.conf }, f.term.Load)
	return f
}

func voters(ids ...raft.ServerID) []raft.Server {
	var out []raft.Server
	for _, id := range ids {
		out = append(out, raft.Server{ID: id, Suffrage: raft.Voter})
	}
	return out
}

// ack records that follower id accepted an AppendEntries of term whose
// last entry is last.
func (f *quorumFixture) ack(id raft.ServerID, term, last uint64) {
	f.q.replicated(id, &raft.AppendEntriesRequest{Term: term, Entries: []*raft.Log{{Index: last, Term: term}}},
		&raft.AppendEntriesResponse{Success: true}, nil)
}

func TestDurableQuorumCountsAnyMajority(t *testing.T) {
	f := newQuorumFixture(voters("1", "2", "3")...)
	f.ack("2", 1, 5)
	require.Zero(t, f.q.safe(), "one copy of three is not a majority")
	f.ack("3", 1, 4)
	require.Equal(t, uint64(4), f.q.safe(), "both followers hold 4 on disk: the leader's own copy is not needed")
	f.local.Store(6)
	require.Equal(t, uint64(6), f.q.safe(), "the local copy plus Raft's commitment")
	f.q.replicated("3", &raft.AppendEntriesRequest{Term: 1, PrevLogEntry: 9}, &raft.AppendEntriesResponse{Success: false}, nil)
	f.q.replicated("3", &raft.AppendEntriesRequest{Term: 1, PrevLogEntry: 9}, nil, net.ErrClosed)
	f.local.Store(0)
	require.Equal(t, uint64(4), f.q.safe(), "a refusal or a failed call takes away no stored copy")
	f.q.replicated("3", &raft.AppendEntriesRequest{Term: 1, PrevLogEntry: 7}, &raft.AppendEntriesResponse{Success: true}, nil)
	require.Equal(t, uint64(5), f.q.safe(), "an accepted AppendEntries with no entries vouches for its PrevLogEntry")
	require.Equal(t, uint64(5), f.q.capCommit(9), "a commit index beyond the majority's copies is lowered")
	f.local.Store(9)
	require.Equal(t, uint64(9), f.q.capCommit(9), "one the local log holds passes (Raft's commitment does the rest)")
}

func TestDurableQuorumCountsVotersOnly(t *testing.T) {
	servers := append(voters("1", "2", "3", "4", "5"), raft.Server{ID: "6", Suffrage: raft.Nonvoter})
	f := newQuorumFixture(servers...)
	f.ack("6", 1, 9)
	f.ack("2", 1, 9)
	require.Zero(t, f.q.safe(), "an observer's copy does not count")
	f.ack("3", 1, 8)
	require.Zero(t, f.q.safe(), "two of five voters")
	f.ack("4", 1, 7)
	require.Equal(t, uint64(7), f.q.safe(), "three of five voters hold 7")
}

func TestDurableQuorumForgetsOtherTerms(t *testing.T) {
	f := newQuorumFixture(voters("1", "2", "3")...)
	f.ack("2", 1, 5)
	f.ack("3", 1, 5)
	require.Equal(t, uint64(5), f.q.safe())
	f.term.Store(2)
	require.Zero(t, f.q.safe(), "acks of an earlier term say nothing of the log once the term moved on")
	f.ack("2", 2, 6)
	f.ack("3", 1, 9) // late, from the earlier term
	require.Zero(t, f.q.safe())
	f.ack("3", 2, 6)
	require.Equal(t, uint64(6), f.q.safe())
}

func TestDurableQuorumWaitWakesOnAcks(t *testing.T) {
	f := newQuorumFixture(voters("1", "2", "3")...)
	res := make(chan bool, 1)
	go func() { res <- f.q.wait(3) }()
	f.ack("2", 1, 3)
	select {
	case <-res:
		t.Fatal("applied with a single durable copy")
	case <-time.After(50 * time.Millisecond): // a moment for a wrong wake-up to show
	}
	f.ack("3", 1, 3)
	require.True(t, <-res)
	require.Equal(t, int64(1), f.q.ahead.Value())

	go func() { res <- f.q.wait(4) }()
	f.local.Store(4)
	f.q.stored()
	require.True(t, <-res, "the local copy (with Raft's commitment) suffices")
	require.Equal(t, int64(1), f.q.ahead.Value(), "not ahead of the local disk")

	go func() { res <- f.q.wait(9) }()
	f.q.close()
	require.False(t, <-res, "a closing node applies nothing it cannot count")
}

// switchNetwork is TCP with a switch that cuts a node off from everyone.
type switchNetwork struct{ cut atomic.Bool }

func (s *switchNetwork) Listen(addr string) (net.Listener, error) {
	ln, err := TCP{}.Listen(addr)
	return &switchListener{Listener: ln, nw: s}, err
}

func (s *switchNetwork) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	if s.cut.Load() {
		return nil, net.ErrClosed
	}
	return TCP{}.Dial(addr, timeout)
}

type switchListener struct {
	net.Listener
	nw *switchNetwork
}

func (l *switchListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || !l.nw.cut.Load() {
			return c, err
		}
		c.Close()
	}
}

// createTestNode is testSession's create of path.
func createTestNode(path string) *Command {
	return txnCmd(wire.OpCreate, &wire.CreateRequest{Path: path, ACL: wire.OpenACLUnsafe})
}

// durableEnsemble starts three durable nodes whose log disks and links
// the test controls, and returns them with a way to start node i again.
func durableEnsemble(t *testing.T) (nodes []*Node, disks []*DiskFaults, nets []*switchNetwork, restart func(i int) *Node) {
	disks = []*DiskFaults{{}, {}, {}}
	nets = []*switchNetwork{{}, {}, {}}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	for _, d := range disks {
		t.Cleanup(d.Resume) // runs before the nodes close
	}
	cfgs := make([]Config, 3)
	nodes, _ = startEnsembleWith(t, 3, func(c *Config) {
		i := c.ServerID - 1
		c.ElectionTimeout = testElectionTimeout
		c.Tree = datatree.Config{ExtendedTypesEnabled: true}
		c.Storage = Storage{DataDir: dirs[i], Faults: disks[i]}
		c.Network = nets[i]
		cfgs[i] = *c
	})
	restart = func(i int) *Node {
		cfg := cfgs[i]
		cfg.Storage.Faults = nil
		nd, err := Start(context.Background(), cfg)
		require.NoError(t, err)
		t.Cleanup(func() { nd.Close() })
		return nd
	}
	waitAllKnowLeader(t, nodes)
	return nodes, disks, nets, restart
}

func nodeHas(n *Node, path string) bool {
	var found bool
	n.Read(func(st *State) { found = st.Tree.Exists(path) })
	return found
}

// TestLeaderReplicatesWhileItsDiskStalls: with the leader's log disk
// stalled, writes commit on the followers' disks and every server,
// the leader included, applies them. The leader then crashes with those
// appends still unsynced: it comes back with the log its disk holds,
// cannot lead with it, and the write it acknowledged survives on the
// others and comes back to it.
func TestLeaderReplicatesWhileItsDiskStalls(t *testing.T) {
	nodes, disks, nets, restart := durableEnsemble(t)
	l := leaderOf(nodes)
	propose(t, nodes[l], &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})

	disks[l].Stall()
	want := nodes[l].raft.LastIndex() + 1 // the index of /stalled
	for _, path := range []string{"/stalled", "/stalled2"} {
		a, err := nodes[l].ProposeAsync(createTestNode(path)).Wait()
		require.NoError(t, err, "a write completes while the leader's disk is stalled")
		require.NoError(t, a.Result.Err)
	}
	for i, n := range nodes {
		require.Eventually(t, func() bool { return nodeHas(n, "/stalled2") }, 10*time.Second, time.Millisecond,
			"server %d applies what the two followers hold on disk", i+1)
	}
	require.Less(t, nodes[l].stores.overlap.durableIndex(), want, "the leader's own copy is still not on disk")
	require.Positive(t, nodes[l].metrics.appliedAhead.Value())

	// The crash: the stalled appends are never written.
	require.NoError(t, nodes[l].Close())
	nets[l].cut.Store(true)
	back := restart(l)
	require.Less(t, back.raft.LastIndex(), want, "the restarted server has only what its disk held")
	require.False(t, nodeHas(back, "/stalled"), "and serves no state its log lacks")
	others := []*Node{nodes[(l+1)%3], nodes[(l+2)%3]}
	require.Eventually(t, func() bool { return leaderOf(others) >= 0 }, 20*time.Second, 5*time.Millisecond)
	require.False(t, back.IsLeader())
	for _, n := range others {
		require.True(t, nodeHas(n, "/stalled2"))
	}

	nets[l].cut.Store(false)
	_, err := others[leaderOf(others)].ProposeAsync(createTestNode("/after")).Wait()
	require.NoError(t, err)
	require.Eventually(t, func() bool { return nodeHas(back, "/stalled2") && nodeHas(back, "/after") }, 20*time.Second,
		5*time.Millisecond, "the restarted server gets back what it acknowledged")
	require.False(t, back.IsLeader(), "a server that lacked acknowledged entries did not win an election")
}

// TestWritesWaitForAMajorityOfDisks: with the leader's disk and one
// follower's stalled, only one disk holds a new entry: no server applies
// it, and no follower is told it is committed. Once the other follower's
// disk answers, two copies are on disk and the write completes, the
// leader's own disk still stalled.
func TestWritesWaitForAMajorityOfDisks(t *testing.T) {
	nodes, disks, _, _ := durableEnsemble(t)
	l := leaderOf(nodes)
	slow, fast := (l+1)%3, (l+2)%3
	propose(t, nodes[l], &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})

	disks[l].Stall()
	disks[slow].Stall()
	want := nodes[l].raft.LastIndex() + 1
	fut := nodes[l].ProposeAsync(createTestNode("/one-copy"))
	require.Eventually(t, func() bool { return nodes[fast].raft.LastIndex() >= want }, 10*time.Second, time.Millisecond,
		"the follower with a working disk stores it")
	require.Eventually(t, func() bool { return nodes[l].raft.CommitIndex() >= want }, 10*time.Second, time.Millisecond,
		"Raft counts it committed (the leader's copy in memory, one on disk)")
	// A second entry carries Raft's commit index to the fast follower.
	fut2 := nodes[l].ProposeAsync(createTestNode("/one-copy2"))
	require.Eventually(t, func() bool { return nodes[fast].raft.LastIndex() >= want+1 }, 10*time.Second, time.Millisecond)
	for i, n := range nodes {
		require.False(t, nodeHas(n, "/one-copy"), "server %d applied an entry only one disk holds", i+1)
		if i != l {
			require.Less(t, n.raft.CommitIndex(), want, "server %d was told it is committed", i+1)
		}
	}

	disks[slow].Resume()
	var wg sync.WaitGroup
	for _, f := range []*Future{fut, fut2} {
		wg.Add(1)
		go func() { defer wg.Done(); a, err := f.Wait(); require.NoError(t, err); require.NoError(t, a.Result.Err) }()
	}
	wg.Wait()
	for i, n := range nodes {
		require.Eventually(t, func() bool { return nodeHas(n, "/one-copy2") }, 10*time.Second, time.Millisecond,
			"server %d applies it once two disks hold it", i+1)
	}
	require.Less(t, nodes[l].stores.overlap.durableIndex(), want, "the leader's disk never answered")
}

// TestLeaderSnapshotAheadOfItsDisk: a leader whose disk stalls applies
// writes on its followers' disks, and a snapshot it takes then holds them
// while its log does not. Crashed and restarted, it starts from a log
// that ends before its snapshot, and must still store the entries that
// follow the snapshot (raft-wal appends only the next index).
func TestLeaderSnapshotAheadOfItsDisk(t *testing.T) {
	nodes, disks, _, restart := durableEnsemble(t)
	l := leaderOf(nodes)
	propose(t, nodes[l], &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	disks[l].Stall()
	want := nodes[l].raft.LastIndex() + 1
	a, err := nodes[l].ProposeAsync(createTestNode("/in-snapshot")).Wait()
	require.NoError(t, err)
	require.NoError(t, a.Result.Err)
	go nodes[l].raft.Snapshot() // its compaction waits for the stalled disk
	require.Eventually(t, func() bool {
		metas, err := nodes[l].stores.snaps.List()
		return err == nil && len(metas) > 0 && metas[0].Index >= want
	}, 10*time.Second, 5*time.Millisecond, "the leader snapshots what it applied")
	require.Less(t, nodes[l].stores.overlap.durableIndex(), want)
	require.NoError(t, nodes[l].Close())

	back := restart(l)
	require.True(t, nodeHas(back, "/in-snapshot"), "the snapshot holds the write a majority stored")
	// Its snapshot makes its log as up to date as the others', so it may
	// even lead again.
	all := []*Node{back, nodes[(l+1)%3], nodes[(l+2)%3]}
	require.Eventually(t, func() bool { return leaderOf(all) >= 0 }, 20*time.Second, 5*time.Millisecond)
	for i := range 3 {
		a, err := all[leaderOf(all)].ProposeAsync(createTestNode(fmt.Sprintf("/after%d", i))).Wait()
		require.NoError(t, err)
		require.NoError(t, a.Result.Err)
	}
	require.Eventually(t, func() bool { return nodeHas(back, "/after2") }, 20*time.Second, 5*time.Millisecond,
		"the restarted server stores and applies what follows its snapshot")
}
