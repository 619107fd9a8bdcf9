package consensus

import (
	"context"
	"sync"
	"sync/atomic"
)

// epochSync records the Raft term in which this node last caught up with
// its leader. ZAB has a synchronisation phase: after an election, a
// follower serves clients only once the new leader has brought it up to
// date with every proposal the leader kept from the previous epoch. Raft
// has no such phase: a follower may hold entries of the previous term in
// its log without knowing whether they are committed, and applies them
// only once the new leader commits an entry of its own term. Until then
// its state misses writes that are, in fact, committed.
//
// A client that wrote just before the leader died sees exactly that gap:
// its reply was lost, it reconnects, reads, and finds no trace of a write
// that appears moments later (a protected create found missing and made
// twice, leaving an orphan node that blocks a lock's line for the rest of
// the session). AwaitSynced closes the gap for handshakes.
type epochSync struct {
	mu   sync.Mutex    // one synchronisation at a time
	term atomic.Uint64 // the last term synchronised in; 0 before the first
}

// AwaitSynced waits until this node has applied every entry its leader
// had when this node first synchronised with it in the current term, or
// ctx ends, and reports whether it has. The first call of a term costs a
// round trip to the leader (a Sync) and the wait for the entries; later
// calls in the same term return at once. Call it after AwaitLeader.
func (n *Node) AwaitSynced(ctx context.Context) bool {
	term := n.raft.CurrentTerm()
	if n.epochSync.term.Load() >= term {
		return true
	}
	n.epochSync.mu.Lock()
	defer n.epochSync.mu.Unlock()
	if n.epochSync.term.Load() >= term {
		return true // another handshake synchronised meanwhile
	}
	if err := n.Sync(ctx); err != nil {
		return false
	}
	// Entries of term (and of every term before it) that the leader had
	// when the sync reached it are applied here. Recording term rather
	// than the term after the sync is conservative: should the leadership
	// have moved meanwhile, the next call synchronises again.
	n.epochSync.term.Store(term)
	return true
}
