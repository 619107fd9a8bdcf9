package consensus

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// snapCounter makes snapCount hold: a snapshot at most every snapCount
// applied entries. hashicorp/raft compares its log with SnapshotThreshold
// only every SnapshotInterval (two minutes by default), so on its own it
// lets any number of entries pile up in between. The counter runs on the
// apply side instead: once enough entries were applied since the last
// snapshot it asks Raft for one (Node.Snapshot) from its own goroutine,
// the FSM goroutine being the one Raft needs to take it.
//
// As ZooKeeper's SyncRequestProcessor does, the point is drawn at random in
// (snapCount/2, snapCount] for each snapshot, so that the members of an
// ensemble, which apply the same entries, do not all snapshot together.
type snapCounter struct {
	count uint64 // snapCount
	take  func() // asks Raft for a snapshot and waits for it

	// Fields below are used on the FSM goroutine only (apply, taken,
	// restored), except pending.
	roll     uint64 // entries after last at which to snapshot
	last     uint64 // index of the last snapshot (or restore)
	restored bool   // last is unknown until the next apply
	pending  atomic.Bool
	wg       sync.WaitGroup
}

func newSnapCounter(count uint64, take func()) *snapCounter {
	c := &snapCounter{count: count, take: take}
	c.reroll()
	return c
}

func (c *snapCounter) reroll() {
	half := c.count / 2
	c.roll = half + 1 + rand.Uint64N(max(c.count-half, 1))
}

// applied notes a batch of entries from first to last index.
func (c *snapCounter) applied(first, last uint64) {
	if c.restored {
		c.last, c.restored = first-1, false
	}
	if last-c.last < c.roll || !c.pending.CompareAndSwap(false, true) {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer c.pending.Store(false)
		c.take()
	}()
}

// taken notes a snapshot of the state up to index (Raft's or ours).
func (c *snapCounter) taken(index uint64) {
	c.last = index
	c.reroll()
}

// wait waits for a requested snapshot to finish (on Close).
func (c *snapCounter) wait() { c.wg.Wait() }
