package consensus

import (
	"sync"
	"sync/atomic"

	"github.com/hashicorp/raft"
)

// Commit notices tell followers at once that entries are committed.
//
// A follower applies an entry only once it knows the entry is committed,
// and it learns that from the LeaderCommitIndex of the leader's next
// AppendEntries. hashicorp/raft sends the next one when new entries arrive
// or after CommitTimeout; until then a follower whose client waits for a
// write it forwarded (it answers after applying the write itself, as a
// ZooKeeper follower answers after the leader's COMMIT) waits too. That
// wait was most of a forwarded write's latency, and the short CommitTimeout
// it needed kept an idle ensemble busy with empty AppendEntries.
//
// So as soon as the leader applies entries, it sends each follower an
// AppendEntries with no entries that carries the commit index, the message
// Raft's own leader sends after CommitTimeout, sooner. It names the latest
// entry that is both applied here and known to be in that follower's log,
// as matching this leader's log: PrevLogEntry and PrevLogTerm are its index
// and term, and LeaderCommitIndex is that same index. The follower treats
// it by Raft's rules: it rejects an older term, and it commits only after
// finding an entry with that index and term in its own log, which by Log
// Matching makes its log identical to the leader's up to there. A notice is
// never sent for an entry the follower has not acknowledged, so a lagging
// follower is not asked for entries it lacks.
//
// The leader learns what each follower holds from the responses to Raft's
// own replication, which it sees by wrapping the transport
// (noticeTransport). A failed notice or replication forgets what that
// follower holds until Raft's replication succeeds again, which also stops
// notices to a follower that is down.
type commitNotices struct {
	trans raft.Transport // the wrapped transport, which sends the notices
	// leading reports whether this node is Raft's leader now.
	leading func() bool

	mu sync.Mutex
	// term is the leader term the follower state belongs to: that of the
	// last AppendEntries this node sent as a leader.
	term    uint64
	header  raft.RPCHeader // as that AppendEntries carried it
	leader  []byte         // its deprecated Leader field, likewise
	applied position       // the last entry applied on this node
	peers   map[raft.ServerID]*noticePeer
	stopped bool

	stop chan struct{}
	wg   sync.WaitGroup
	sent atomic.Uint64 // notices sent, for tests
}

// position is a log entry's index and term.
type position struct{ index, term uint64 }

// noticePeer is what the leader knows of one follower.
type noticePeer struct {
	id   raft.ServerID
	addr raft.ServerAddress
	// match is the last entry the follower acknowledged (its log matches
	// this leader's up to it); zero when unknown.
	match position
	// told is the highest commit index the follower has been given.
	told uint64
	wake chan struct{}
}

func newCommitNotices(trans raft.Transport, leading func() bool) *commitNotices {
	return &commitNotices{trans: trans, leading: leading, peers: make(map[raft.ServerID]*noticePeer), stop: make(chan struct{})}
}

// replicated records the outcome of an AppendEntries Raft's replication
// sent to a follower.
func (c *commitNotices) replicated(id raft.ServerID, addr raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse, err error) {
	if args.PrevLogEntry == 0 && len(args.Entries) == 0 {
		return // a heartbeat: it names no entry
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if args.Term != c.term {
		c.term, c.header, c.leader = args.Term, args.RPCHeader, args.Leader
		for _, p := range c.peers {
			p.match, p.told = position{}, 0
		}
	}
	p := c.peerLocked(id, addr)
	if p == nil {
		return
	}
	if err != nil || !resp.Success {
		p.match = position{}
		return
	}
	last := position{args.PrevLogEntry, args.PrevLogTerm}
	if k := len(args.Entries); k > 0 {
		last = position{args.Entries[k-1].Index, args.Entries[k-1].Term}
	}
	if last.index > p.match.index {
		p.match = last
	}
	p.told = max(p.told, min(args.LeaderCommitIndex, last.index))
	c.kickLocked(p)
}

// peerLocked returns the follower's state, starting its sender the first
// time; nil once stopped.
func (c *commitNotices) peerLocked(id raft.ServerID, addr raft.ServerAddress) *noticePeer {
	if c.stopped {
		return nil
	}
	p := c.peers[id]
	if p == nil {
		p = &noticePeer{id: id, wake: make(chan struct{}, 1)}
		c.peers[id] = p
		c.wg.Add(1)
		go c.run(p)
	}
	p.addr = addr
	return p
}

// committed records that entries up to index (of term) were applied here.
func (c *commitNotices) committed(index, term uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if index <= c.applied.index {
		return
	}
	c.applied = position{index, term}
	if c.term == 0 || !c.leading() {
		return
	}
	for _, p := range c.peers {
		c.kickLocked(p)
	}
}

// target is the entry a notice to p would name, if p needs one.
func (c *commitNotices) targetLocked(p *noticePeer) (position, bool) {
	t := c.applied
	if p.match.index < t.index {
		t = p.match
	}
	return t, t.index > p.told
}

func (c *commitNotices) kickLocked(p *noticePeer) {
	if _, ok := c.targetLocked(p); ok {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// run sends p's notices, one at a time: commits that happen while one is
// on its way are carried by the next.
func (c *commitNotices) run(p *noticePeer) {
	defer c.wg.Done()
	for {
		select {
		case <-c.stop:
			return
		case <-p.wake:
		}
		req, addr, ok := c.notice(p)
		if !ok {
			continue
		}
		var resp raft.AppendEntriesResponse
		err := c.trans.AppendEntries(p.id, addr, req, &resp)
		c.answered(p, req, &resp, err)
	}
}

// notice builds the AppendEntries to send p, if it needs one.
func (c *commitNotices) notice(p *noticePeer) (*raft.AppendEntriesRequest, raft.ServerAddress, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.targetLocked(p)
	if !ok || c.term == 0 || !c.leading() {
		return nil, "", false
	}
	return &raft.AppendEntriesRequest{
		RPCHeader:         c.header,
		Term:              c.term,
		Leader:            c.leader,
		PrevLogEntry:      t.index,
		PrevLogTerm:       t.term,
		LeaderCommitIndex: t.index,
	}, p.addr, true
}

// answered records a notice's outcome.
func (c *commitNotices) answered(p *noticePeer, req *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse, err error) {
	c.sent.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.Term != c.term {
		return
	}
	if err != nil || !resp.Success {
		p.match = position{} // until Raft's replication succeeds again
		return
	}
	p.told = max(p.told, req.LeaderCommitIndex)
	c.kickLocked(p) // commits that came while it was on its way
}

// close stops the senders and waits for them.
func (c *commitNotices) close() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	c.mu.Unlock()
	close(c.stop)
	c.wg.Wait()
}

// noticeTransport is Raft's transport, wrapped so that the commit notices
// see the outcome of every AppendEntries Raft sends, pipelined ones
// included (pipeline.go).
type noticeTransport struct {
	raft.Transport
	notices *commitNotices
	// quorum, when set, counts durable copies: it hears of every
	// AppendEntries a follower accepted, and the commit index Raft sends
	// is capped at what it counts safe (durablequorum.go).
	quorum *durableQuorum
	// heartbeats holds Close until no heartbeat is being handled.
	heartbeats heartbeatGate
}

// heartbeatGate closes the path on which the transport hands heartbeats
// to Raft directly, on the connection's own goroutine rather than Raft's.
// raft.Shutdown does not wait for such a call, so one that had passed
// Raft's shutdown check could still save a new term after the node closed
// its stable store, and Raft panics when that fails ("failed to save
// current term"): a clean stop, or the lab killing one server of an
// in-process ensemble, took the whole process down. close waits for the
// handlers in flight; later heartbeats are refused.
type heartbeatGate struct {
	mu     sync.RWMutex
	closed bool
}

// wrap returns cb behind the gate.
func (g *heartbeatGate) wrap(cb func(raft.RPC)) func(raft.RPC) {
	return func(rpc raft.RPC) {
		g.mu.RLock()
		defer g.mu.RUnlock()
		if g.closed {
			rpc.Respond(nil, raft.ErrTransportShutdown)
			return
		}
		cb(rpc)
	}
}

// close waits for the heartbeats being handled and refuses the rest.
func (g *heartbeatGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// SetHeartbeatHandler gives the transport Raft's heartbeat handler behind
// the gate (see heartbeatGate).
func (t *noticeTransport) SetHeartbeatHandler(cb func(rpc raft.RPC)) {
	if cb == nil {
		t.Transport.SetHeartbeatHandler(nil)
		return
	}
	t.Transport.SetHeartbeatHandler(t.heartbeats.wrap(cb))
}

var (
	_ raft.WithPreVote = (*noticeTransport)(nil)
	_ raft.WithClose   = (*noticeTransport)(nil)
)

func (t *noticeTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	t.capCommit(args)
	err := t.Transport.AppendEntries(id, target, args, resp)
	t.replicated(id, target, args, resp, err)
	return err
}

// capCommit lowers the commit index an AppendEntries carries to what a
// majority holds on disk.
func (t *noticeTransport) capCommit(args *raft.AppendEntriesRequest) {
	if t.quorum != nil {
		args.LeaderCommitIndex = t.quorum.capCommit(args.LeaderCommitIndex)
	}
}

// replicated hands an AppendEntries' outcome to the durable-copy count
// and the commit notices.
func (t *noticeTransport) replicated(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse, err error) {
	if t.quorum != nil {
		t.quorum.replicated(id, args, resp, err)
	}
	t.notices.replicated(id, target, args, resp, err)
}

// RequestPreVote passes pre-votes through (Raft uses them only when the
// transport offers them).
func (t *noticeTransport) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return t.Transport.(raft.WithPreVote).RequestPreVote(id, target, args, resp)
}

// Close waits for the heartbeats being handled, closes the transport,
// which ends any notice on its way, and stops the notices.
func (t *noticeTransport) Close() error {
	t.heartbeats.close()
	var err error
	if c, ok := t.Transport.(raft.WithClose); ok {
		err = c.Close()
	}
	t.notices.close()
	return err
}
