package consensus

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
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
	// turn lets one synchronisation run at a time; a caller waits for it
	// only as long as its context allows (see lock).
	turn     chan struct{}
	makeTurn sync.Once
	term     atomic.Uint64 // the last term synchronised in; 0 before the first
	// background is set while syncInBackground's goroutine runs.
	background atomic.Bool
}

// lock waits for the turn to synchronise, or for ctx to end (false): a
// handshake must not wait beyond its own deadline behind the background
// synchronisation, which may wait for a lagging FSM for much longer.
func (e *epochSync) lock(ctx context.Context) bool {
	e.makeTurn.Do(func() { e.turn = make(chan struct{}, 1) })
	select {
	case e.turn <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (e *epochSync) unlock() { <-e.turn }

// syncAttemptTimeout bounds one background synchronisation: the leader's
// answer and the wait for its entries. A follower still catching up when
// it passes asks the leader again, for a newer index.
const syncAttemptTimeout = 10 * time.Second

// syncInBackground synchronises with the current leader unless that is
// done or under way, so that SyncedThisTerm turns true without a client's
// handshake asking for it: srvr, mntr and the AdminServer answer "not
// currently serving" until it does. Called whenever a leader becomes
// known (watchLeader).
func (n *Node) syncInBackground() {
	if !n.epochSync.background.CompareAndSwap(false, true) {
		return
	}
	n.background.Add(1)
	go func() {
		defer n.background.Done()
		for {
			n.syncWhileBehind()
			n.epochSync.background.Store(false)
			// A leader that became known after the last check found the
			// flag still set and left the work to this goroutine.
			if !n.behindLeader() || !n.epochSync.background.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}

// behindLeader reports whether this node runs, knows a leader and has not
// synchronised with it in the current term.
func (n *Node) behindLeader() bool {
	return n.running() == nil && n.HasLeader() && n.epochSync.term.Load() < n.raft.CurrentTerm()
}

func (n *Node) syncWhileBehind() {
	for n.behindLeader() {
		ctx, cancel := context.WithTimeout(context.Background(), syncAttemptTimeout)
		ok := n.AwaitSynced(ctx)
		cancel()
		if !ok {
			time.Sleep(heldPollInterval) // the leader did not answer: ask again shortly
		}
	}
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
	if !n.epochSync.lock(ctx) {
		return false // another synchronisation outlasted ctx
	}
	defer n.epochSync.unlock()
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

// AwaitFresh waits until this node has applied everything the leader had
// when asked, retrying while no leader can be reached, until ctx ends; it
// reports whether it got there.
//
// A session that comes back after losing its connection may have lost
// the outcome of a write with it: the write was on its way to a leader
// that died, and the next leader may commit it or not. A server that
// still takes the dead leader for the leader (it has not noticed yet)
// would answer the session's reads from a state that lacks the write even
// if it is committed, and a client that looks for its own write before
// writing again (a protected create, as Curator and recipes.Lock do) would
// write twice. ZooKeeper's followers serve nobody until they have
// synchronised with a live leader; here a resumed session's handshake
// syncs with the leader instead, which fails while the leader is dead and
// succeeds once the next one has committed what it holds.
func (n *Node) AwaitFresh(ctx context.Context) bool {
	for {
		wake := n.leaderKnown.wait()
		if n.Sync(ctx) == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-wake:
		case <-time.After(heldPollInterval):
		}
	}
}
