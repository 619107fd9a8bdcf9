package consensus

import (
	"github.com/hashicorp/raft"
)

// Replication is this node's Raft progress, for views (the web console):
// what Raft's Stats reports as term, last_log_index, commit_index and
// applied_index, and on the leader how far each other member's log is
// known to match its own.
type Replication struct {
	// Term is the current Raft term: ZooKeeper's epoch.
	Term uint64
	// LastLogIndex is the index of the last entry in this node's log,
	// CommitIndex the last it knows committed, AppliedIndex the last Raft
	// handed to the state machine.
	LastLogIndex, CommitIndex, AppliedIndex uint64
	// Followers, on the leader only, are the other members in id order.
	Followers []FollowerProgress
}

// FollowerProgress is what the leader knows of one member's log.
type FollowerProgress struct {
	ID       int64
	Observer bool
	// Match is the last index the member acknowledged as matching the
	// leader's log, from the responses to the leader's AppendEntries;
	// MatchKnown is false while none succeeded in this term (the member is
	// down, cut off, or has not answered yet).
	Match      uint64
	MatchKnown bool
}

// Replication returns this node's Raft progress. It reads Raft's
// counters and, on the leader, the match indexes the commit notices keep
// (commitnotice.go); it takes no lock on the state.
func (n *Node) Replication() Replication {
	r := Replication{
		Term:         n.raft.CurrentTerm(),
		LastLogIndex: n.raft.LastIndex(),
		CommitIndex:  n.raft.CommitIndex(),
		AppliedIndex: n.raft.AppliedIndex(),
	}
	nt, ok := n.transport.(*noticeTransport)
	if !ok || !n.IsLeader() {
		return r
	}
	matches := nt.notices.matches(r.Term)
	for _, p := range n.Peers() {
		id := serverID(p.ID)
		if id == n.self {
			continue
		}
		m, known := matches[id]
		r.Followers = append(r.Followers, FollowerProgress{ID: p.ID, Observer: p.Observer, Match: m, MatchKnown: known})
	}
	return r
}

// matches returns the members whose match index is known in term, the
// leader's current term (none when the notices belong to another term).
func (c *commitNotices) matches(term uint64) map[raft.ServerID]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[raft.ServerID]uint64, len(c.peers))
	if c.term != term {
		return out
	}
	for id, p := range c.peers {
		if p.match.index > 0 {
			out[id] = p.match.index
		}
	}
	return out
}
