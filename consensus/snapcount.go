package consensus

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
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
//
// The counter also counts the bytes of the entries applied since the last
// snapshot, as ZooKeeper's snapSizeLimitInKb does with its transaction
// log: an entry may be a multi of many operations, so an entry count
// alone lets a restart replay any number of them (a tree filled by multis
// of 100 creates was replayed whole at every restart, 10M creates at
// 10M znodes). A snapshot is also taken once the bytes reach a point drawn
// at random in (limit/2, limit]. The limit is snapSizeLimitInKb when it is
// configured (at or below zero: no size limit); by default it follows the
// last snapshot's size, with a floor of defaultSnapBytesFloor, so a
// restart replays at most about one snapshot's worth of log after loading
// the snapshot, and snapshots cost at most two bytes written per byte of
// log (they grow with the tree as the log does).
//
// A snapshot that comes due while the FSM replays the log it found on
// disk at start waits until that replay is over (replayUntil): the
// restart would otherwise write a snapshot of a half-built tree while
// still building it, on every server at once (a durable ensemble
// restarted at 1M znodes spent about 15% of its CPU until serving on
// such snapshots, and the applies of the replay copy the nodes the
// snapshot holds frozen). Every entry is counted as before, so the
// snapshot is taken by the batch that ends the replay.
type snapCounter struct {
	count uint64 // snapCount
	take  func() // asks Raft for a snapshot and waits for it
	// sizeLimit is the configured byte limit: 0 follows the last
	// snapshot's size (lastSize), below 0 there is none.
	sizeLimit int64
	lastSize  atomic.Int64 // bytes of the last snapshot written or restored

	// Fields below are used on the FSM goroutine only (apply, taken,
	// restored), except pending.
	roll     uint64  // entries after last at which to snapshot
	sizeFrac float64 // of the byte limit, in (1/2, 1], at which to snapshot
	bytes    uint64  // of the entries applied since the last snapshot
	last     uint64  // index of the last snapshot (or restore)
	restored bool    // last is unknown until the next apply
	// replayTo and replayTerm are the index and term of the last entry
	// of the log at start; replayTo is 0 once the replay is over.
	replayTo, replayTerm uint64
	// replayFirst and replayStart are the first entry the replay applied
	// and when; onReplayed, when set, hears how many entries it applied
	// and how long that took once it is over (startup_txns_loaded and
	// startup_txns_load_time).
	replayFirst uint64
	replayStart time.Time
	onReplayed  func(entries uint64, took time.Duration)
	pending     atomic.Bool
	wg          sync.WaitGroup

	// The quiet snapshot (snapquiet.go): quietDue says the log since the
	// last snapshot is worth one once the writes stop, lastAt is when the
	// last batch was applied (Unix ns); quit ends the watch.
	quietDue atomic.Bool
	lastAt   atomic.Int64
	quit     chan struct{}
	stopOnce sync.Once
}

// defaultSnapBytesFloor is the least byte limit when snapSizeLimitInKb
// is not configured: a small tree is not snapshot after every few
// megabytes of writes. (64 MiB is also the size ZooKeeper preallocates
// for each transaction log file.)
const defaultSnapBytesFloor = 64 << 20

func newSnapCounter(count uint64, sizeLimit int64, take func()) *snapCounter {
	c := &snapCounter{count: count, sizeLimit: sizeLimit, take: take}
	c.reroll()
	return c
}

func (c *snapCounter) reroll() {
	half := c.count / 2
	c.roll = half + 1 + rand.Uint64N(max(c.count-half, 1))
	c.sizeFrac = 1 - rand.Float64()/2
	c.bytes = 0
}

// byteLimit is the bytes of log after which a snapshot is due (the
// limit at its drawn point); 0 is none.
func (c *snapCounter) byteLimit() uint64 {
	return uint64(float64(c.fullByteLimit()) * c.sizeFrac)
}

// fullByteLimit is the byte limit before its draw; 0 is none.
func (c *snapCounter) fullByteLimit() uint64 {
	switch {
	case c.sizeLimit < 0:
		return 0
	case c.sizeLimit > 0:
		return uint64(c.sizeLimit)
	}
	return uint64(max(c.lastSize.Load(), defaultSnapBytesFloor))
}

// sized notes the size of a snapshot just written or restored.
func (c *snapCounter) sized(n int64) { c.lastSize.Store(n) }

// replayUntil notes the index and term of the last entry in the log at
// start, before Raft starts applying: until the FSM has applied that
// entry, or one of a later term, it is replaying the log and snapshots
// wait.
func (c *snapCounter) replayUntil(index, term uint64) {
	c.replayTo, c.replayTerm = index, term
}

// replayFrom calls replayUntil with the last entry of logs, the log at
// start (nothing when it is empty).
func (c *snapCounter) replayFrom(logs raft.LogStore) error {
	last, err := logs.LastIndex()
	if err != nil || last == 0 {
		return err
	}
	var l raft.Log
	if err := logs.GetLog(last, &l); err != nil {
		return err
	}
	c.replayUntil(l.Index, l.Term)
	return nil
}

// replaying reports whether a batch ending with the entry at last of
// term still belongs to the replay of the log found at start. An entry of
// a later term ends it too: a leader elected since appended it after
// every committed entry, and the old log's entries beyond it, if any,
// were never committed and are cut off.
func (c *snapCounter) replaying(last, term uint64) bool {
	if c.replayTo == 0 {
		return false
	}
	if last < c.replayTo && term <= c.replayTerm {
		return true
	}
	if c.onReplayed != nil && c.replayFirst > 0 {
		// Past the old log from the start (a snapshot from the leader
		// covered it), nothing of it was replayed.
		n := uint64(0)
		if end := min(last, c.replayTo); end >= c.replayFirst {
			n = end - c.replayFirst + 1
		}
		c.onReplayed(n, time.Since(c.replayStart))
	}
	c.replayTo = 0
	return false
}

// applied notes a batch of entries from first to last index, of size
// bytes in all, the last of term.
func (c *snapCounter) applied(first, last, term, size uint64) {
	if c.restored {
		c.last, c.restored, c.bytes = first-1, false, 0
	}
	c.bytes += size
	if c.replayTo != 0 && c.replayFirst == 0 {
		c.replayFirst, c.replayStart = first, time.Now()
	}
	due := last-c.last >= c.roll
	if limit := c.byteLimit(); limit > 0 && c.bytes >= limit {
		due = true
	}
	c.lastAt.Store(time.Now().UnixNano())
	if c.replaying(last, term) {
		return
	}
	c.quietDue.Store(c.worthQuiet(last))
	if due {
		c.request()
	}
}

// request asks for a snapshot unless one is being taken.
func (c *snapCounter) request() {
	if c.pending.CompareAndSwap(false, true) {
		c.launch()
	}
}

// launch takes a snapshot from a goroutine of its own; the caller set
// pending.
func (c *snapCounter) launch() {
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
	c.quietDue.Store(false)
	c.reroll()
}

// wait stops the quiet watch and waits for a requested snapshot to
// finish (on Close).
func (c *snapCounter) wait() {
	c.stopOnce.Do(func() {
		if c.quit != nil {
			close(c.quit)
		}
	})
	c.wg.Wait()
}
