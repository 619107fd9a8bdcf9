package consensus

import (
	"slices"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/metrics"
)

// A write commits once any majority holds it on disk.
//
// The leader appends to its own log while it replicates (overlapLog), so
// Raft counts the leader's copy before it is on disk, and "committed" in
// Raft's sense means: quorum-1 followers have stored it, and the leader
// has it in memory. That is one durable copy short of a majority. Until
// this file, the missing copy was always the leader's own: nothing applied
// an entry before the leader's fsync ended, so a write cost the slower of
// the leader's fsync and the fastest follower's, and a leader with a slow
// or hiccuping disk slowed every write.
//
// durableQuorum counts durable copies instead. Each voter's copy counts
// once it is on that voter's disk: the leader's when its own log says so,
// a follower's when it acknowledged an AppendEntries of the current term
// (a follower acknowledges only what it has stored). An entry may be
// acted on (applied by the leader, which answers its client, or named in
// the commit index sent to followers) once the voters whose copies count
// form a majority of the latest configuration, the leader's own copy
// included or not. So with one slow disk among three servers, writes go
// at the speed of the other two.
//
// Safety, in short (docs/zab-and-raft.md gives the full argument): Raft's
// election restriction makes any future leader hold every entry a
// majority of voters hold durably, since its voters must include one of
// them; a copy in a crashed server's memory counts for nothing, and none
// was counted. A leader that crashes before its own fsync restarts with
// the log its disk holds, and votes and campaigns with that log: shorter,
// so it cannot win against the majority holding what it acknowledged.
//
// Only the leader counts; on any other node, and for entries it stored
// itself, the local durable index decides as before.
type durableQuorum struct {
	self raft.ServerID
	// local is the last index the local log holds on disk.
	local func() uint64
	// config is Raft's latest configuration, and term Raft's current term
	// (nil before Raft exists).
	config func() raft.Configuration
	term   func() uint64
	// ahead counts batches the leader applied before its own copy was on
	// disk (zkraft_applied_before_local_sync).
	ahead *metrics.Counter

	mu   sync.Mutex
	cond *sync.Cond
	// ackTerm is the leader term acked belongs to.
	ackTerm uint64
	// acked is, per follower, the last index it acknowledged in ackTerm.
	// The acks describe this node's log only while its current term is
	// still ackTerm: no one else writes to its log in the term it leads.
	acked  map[raft.ServerID]uint64
	closed bool
}

func newDurableQuorum(self raft.ServerID, local func() uint64, ahead *metrics.Counter) *durableQuorum {
	q := &durableQuorum{self: self, local: local, ahead: ahead, acked: make(map[raft.ServerID]uint64)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// replicated records an AppendEntries a follower accepted: its log now
// holds, on disk, the leader's entries up to the last one args named.
func (q *durableQuorum) replicated(id raft.ServerID, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse, err error) {
	if err != nil || resp == nil || !resp.Success || (args.PrevLogEntry == 0 && len(args.Entries) == 0) {
		return // no news: a failure loses nothing already stored
	}
	last := args.PrevLogEntry
	if k := len(args.Entries); k > 0 {
		last = args.Entries[k-1].Index
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if args.Term != q.ackTerm {
		if args.Term < q.ackTerm {
			return
		}
		q.ackTerm = args.Term
		clear(q.acked)
	}
	if last > q.acked[id] {
		q.acked[id] = last
		q.cond.Broadcast()
	}
}

// bind gives the quorum Raft's configuration and term.
func (q *durableQuorum) bind(config func() raft.Configuration, term func() uint64) {
	q.mu.Lock()
	q.config, q.term = config, term
	q.mu.Unlock()
}

// stored wakes the waiters after the local log stored more.
func (q *durableQuorum) stored() {
	q.mu.Lock()
	q.cond.Broadcast()
	q.mu.Unlock()
}

// majorityLocked is the highest index a majority of the latest
// configuration's voters hold on disk, as far as this node knows; 0 when
// it knows of no voters. The caller holds mu.
func (q *durableQuorum) majorityLocked() uint64 {
	if q.config == nil || q.term() != q.ackTerm {
		return 0
	}
	local := q.local()
	var have []uint64
	for _, s := range q.config().Servers {
		if s.Suffrage != raft.Voter {
			continue
		}
		if s.ID == q.self {
			have = append(have, local)
		} else {
			have = append(have, q.acked[s.ID])
		}
	}
	if len(have) == 0 {
		return 0
	}
	slices.Sort(have)
	return have[(len(have)-1)/2] // the majority's lowest: n/2+1 voters hold at least this
}

// safe is the highest index that may be acted on among those Raft
// counts committed: the local durable index (Raft's commitment supplies
// the rest of the majority), or a majority's durable copies without it.
func (q *durableQuorum) safe() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return max(q.local(), q.majorityLocked())
}

// capCommit is commit lowered to what may be acted on (safe). While the
// local log keeps up, as it mostly does, that is commit itself, found
// without the lock or Raft's configuration: every AppendEntries the
// leader sends asks.
func (q *durableQuorum) capCommit(commit uint64) uint64 {
	if q.local() >= commit {
		return commit
	}
	return min(commit, q.safe())
}

// wait blocks until the committed entry index may be applied here, and
// reports whether it may (false once the node is closing).
func (q *durableQuorum) wait(index uint64) bool {
	if q.local() >= index {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed {
		if q.local() >= index {
			return true
		}
		if q.majorityLocked() >= index {
			q.ahead.Inc()
			return true
		}
		q.cond.Wait()
	}
	return q.local() >= index
}

// close wakes every waiter for good.
func (q *durableQuorum) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}
