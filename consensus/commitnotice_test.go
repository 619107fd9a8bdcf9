package consensus

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// A follower answers a forwarded write only after applying it, so it must
// learn that the write is committed. With Raft's periodic commit-carrying
// AppendEntries pushed an hour away, only the leader's commit notices can
// tell it: every write through a follower still completes, and every
// follower catches up with a write made on the leader.
func TestFollowersLearnCommitsFromNotices(t *testing.T) {
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) { c.ElectionTimeout, c.commitTimeout = testElectionTimeout, time.Hour })
	waitAllKnowLeader(t, nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for round := 0; round < 5; round++ {
		for i, n := range nodes {
			cmd := txnCmd(wire.OpCreate, &wire.CreateRequest{Path: pathOf(round, i), ACL: openACL})
			cmd.Txn.Session = 0 // no session to open first
			a, err := n.Propose(ctx, cmd)
			for errors.Is(err, ErrNotLeader) && ctx.Err() == nil { // an election on a loaded machine
				a, err = n.Propose(ctx, cmd)
			}
			require.NoError(t, err, "write %d through server %d", round, i+1)
			if a.Result.Err != wire.CodeNodeExists { // the retried write had been applied
				require.Zero(t, a.Result.Err)
			}
		}
	}
	leader := nodes[leaderOf(nodes)]
	last := leader.raft.LastIndex()
	for i, n := range nodes {
		require.Eventually(t, func() bool { return n.fsm.appliedIndex.Load() >= last-1 },
			10*time.Second, time.Millisecond, "server %d never applied the last write", i+1)
	}
}

func pathOf(round, server int) string {
	return "/n" + string(rune('a'+round)) + string(rune('0'+server))
}

var openACL = []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "world", ID: "anyone"}}}

// fakeTransport records the AppendEntries sent through it and answers
// them from reply.
type fakeTransport struct {
	raft.Transport
	mu    sync.Mutex
	sent  []raft.AppendEntriesRequest
	reply func(*raft.AppendEntriesRequest, *raft.AppendEntriesResponse) error
	got   chan struct{}
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{got: make(chan struct{}, 100), reply: func(_ *raft.AppendEntriesRequest, r *raft.AppendEntriesResponse) error {
		r.Success = true
		return nil
	}}
}

func (f *fakeTransport) AppendEntries(_ raft.ServerID, _ raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	f.mu.Lock()
	f.sent = append(f.sent, *args)
	reply := f.reply
	f.mu.Unlock()
	err := reply(args, resp)
	f.got <- struct{}{}
	return err
}

// next waits for the next notice.
func (f *fakeTransport) next(t *testing.T) raft.AppendEntriesRequest {
	t.Helper()
	select {
	case <-f.got:
	case <-time.After(10 * time.Second):
		t.Fatal("no notice sent")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[len(f.sent)-1]
}

// due reports whether a notice to follower id is due now: when it is
// not, the sender has nothing to send it.
func (c *commitNotices) due(id raft.ServerID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.peers[id]
	if p == nil {
		return false
	}
	_, ok := c.targetLocked(p)
	return ok && c.leading()
}

// replicate is Raft's replication of entries (from, to] of term to a
// follower, carrying commit, answered by ok.
func replicate(c *commitNotices, id raft.ServerID, from, to, term, commit uint64, ok bool) {
	args := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ID: []byte("1"), Addr: []byte("leader:1")},
		Term: term, PrevLogEntry: from, PrevLogTerm: term, LeaderCommitIndex: commit}
	for i := from + 1; i <= to; i++ {
		args.Entries = append(args.Entries, &raft.Log{Index: i, Term: term})
	}
	c.replicated(id, raft.ServerAddress(id), args, &raft.AppendEntriesResponse{Success: ok}, nil)
}

func TestCommitNoticeNamesAnEntryTheFollowerHolds(t *testing.T) {
	ft := newFakeTransport()
	leading := true
	c := newCommitNotices(ft, func() bool { return leading })
	defer c.close()

	// The follower acknowledged 1..5 with an AppendEntries that carried
	// commit 3; entries up to 7 are applied on the leader: the notice names
	// 5, the last entry the follower is known to hold, as commit.
	replicate(c, "2", 0, 5, 4, 3, true)
	c.committed(7, 4)
	n := ft.next(t)
	require.Equal(t, uint64(5), n.PrevLogEntry)
	require.Equal(t, uint64(4), n.PrevLogTerm)
	require.Equal(t, uint64(5), n.LeaderCommitIndex)
	require.Equal(t, uint64(4), n.Term)
	require.Empty(t, n.Entries)
	require.Equal(t, []byte("leader:1"), n.Addr, "the leader's own RPC header")

	// It acknowledges 6..7 (carrying commit 5) after they were applied:
	// a notice for 7 follows at once.
	replicate(c, "2", 5, 7, 4, 5, true)
	n = ft.next(t)
	require.Equal(t, uint64(7), n.PrevLogEntry)
	require.Equal(t, uint64(7), n.LeaderCommitIndex)
}

func TestCommitNoticesStopOnFailureAndWhenNotLeading(t *testing.T) {
	ft := newFakeTransport()
	var mu sync.Mutex
	leading := true
	c := newCommitNotices(ft, func() bool { mu.Lock(); defer mu.Unlock(); return leading })
	defer c.close()

	// A heartbeat names no entry: nothing to notify.
	c.replicated("2", "2", &raft.AppendEntriesRequest{Term: 4}, &raft.AppendEntriesResponse{Success: true}, nil)
	c.committed(3, 4)
	require.False(t, c.due("2"))

	// dueOrSent: the notice is due, or (on a loaded machine) already on
	// its way: the sender may take it between replicate and the check.
	dueOrSent := func(before uint64) func() bool {
		return func() bool { return c.due("2") || c.sent.Load() > before }
	}

	// A failed replication forgets what the follower holds.
	sent := c.sent.Load()
	replicate(c, "2", 0, 3, 4, 0, true)
	require.Eventually(t, dueOrSent(sent), 10*time.Second, time.Millisecond)
	replicate(c, "2", 3, 4, 4, 0, false)
	c.committed(4, 4)
	require.False(t, c.due("2"))

	// Not leading: nothing is due.
	sent = c.sent.Load()
	replicate(c, "2", 0, 4, 4, 0, true)
	require.Eventually(t, dueOrSent(sent), 10*time.Second, time.Millisecond)
	mu.Lock()
	leading = false
	mu.Unlock()
	require.False(t, c.due("2"))
}

func TestRejectedCommitNoticeStopsNotices(t *testing.T) {
	ft := newFakeTransport()
	ft.reply = func(_ *raft.AppendEntriesRequest, r *raft.AppendEntriesResponse) error { return nil }
	c := newCommitNotices(ft, func() bool { return true })
	defer c.close()
	replicate(c, "2", 0, 5, 4, 0, true)
	require.False(t, c.due("2"), "nothing applied yet")
	c.committed(5, 4)
	require.Equal(t, uint64(5), ft.next(t).LeaderCommitIndex)
	require.Eventually(t, func() bool { return c.sent.Load() >= 1 }, 10*time.Second, time.Millisecond)
	c.committed(6, 4)
	require.False(t, c.due("2"), "a notice after a rejected one")
	// A replication that succeeds makes notices due again; on a loaded
	// machine the sender may already have taken this one when the test
	// looks, so due or sent.
	sent := c.sent.Load()
	replicate(c, "2", 5, 6, 4, 0, true)
	require.Eventually(t, func() bool { return c.due("2") || c.sent.Load() > sent }, 10*time.Second, time.Millisecond)
}
