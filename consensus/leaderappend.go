package consensus

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
)

// A leader's log append overlaps its replication, as in ZooKeeper.
//
// hashicorp/raft's leader stores new entries in its own log (one fsync)
// and only then hands them to replication, whose followers store them (a
// second fsync) before they acknowledge. A write therefore waited for two
// fsyncs one after the other, where a ZooKeeper leader sends the proposal
// and syncs its own log at the same time. On one disk, that was most of a
// single client's write latency.
//
// overlapLog sits between Raft and the durable log. On the leader, an
// append of commands returns as soon as the entries are queued; a writer
// goroutine stores everything queued in one call (one fsync for all the
// entries that arrived while the previous fsync ran), while Raft already
// replicates them. Queued entries are served to readers (replication reads
// them back) from memory.
//
// Raft now counts the leader's own copy towards commitment before it is on
// disk, so "committed" in Raft's sense no longer means "on disk on a
// majority". Nothing acts on that early commitment: the FSM applies an
// entry (and the client's reply follows the apply), and the commit index
// sent to followers names it, only once a majority of voters holds it on
// disk, counted by durableQuorum (durablequorum.go). The leader's own copy
// counts when this log has stored it; the followers' copies may make the
// majority without it.
//
// Followers' appends, configuration entries and every append made when not
// leading wait for the disk as before: a follower acknowledges only what it
// has stored, and Raft reasons about membership from committed
// configurations. A write that fails is retried in the background
// (diskGuard behind it makes a full disk wait for space); meanwhile later
// appends fail, so a leader steps down; nothing it queued is applied
// unless a majority of other voters holds it on disk.
type overlapLog struct {
	raft.LogStore
	// leading reports whether this node is Raft's leader, and stepDown
	// asks Raft to hand its leadership over; set by bind.
	leading  func() bool
	stepDown func()
	log      *slog.Logger

	mu   sync.Mutex
	cond *sync.Cond // broadcast on every change below
	// queue holds the entries appended but not yet stored, in index
	// order; the first writing of them are being stored now.
	queue   []*raft.Log
	writing int
	// failing is the error of the last failed store while it is retried.
	failing error
	closed  bool
	// durable is the last index this log holds on disk.
	durable atomic.Uint64
	// quorum, when set, hears of every store and of the close
	// (durablequorum.go).
	quorum *durableQuorum

	stop chan struct{}
	done chan struct{}
}

// overlapRetry is how long the writer waits before it stores again after a
// failed store.
const overlapRetry = 100 * time.Millisecond

// errLogClosed fails appends once the log is closing.
var errLogClosed = errors.New("consensus: the raft log is closing")

func newOverlapLog(inner raft.LogStore, log *slog.Logger) (*overlapLog, error) {
	last, err := inner.LastIndex()
	if err != nil {
		return nil, err
	}
	o := &overlapLog{LogStore: inner, leading: func() bool { return false }, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	o.durable.Store(last)
	go o.run()
	return o, nil
}

// logCacheSize is how many of the latest entries Raft reads back from
// memory rather than from the disk (see overlapAppends).
const logCacheSize = 128

// overlapAppends puts an overlapLog in front of the durable log, and
// Raft's log cache in front of that: a follower reads every entry it
// applies back from its log, and a leader every entry it replicates after
// the entry was stored; the cache serves those reads of recent entries
// from memory instead of a pread and a checksum each (about a tenth of a
// follower's CPU per write with one client).
func (st *stores) overlapAppends(log *slog.Logger) error {
	o, err := newOverlapLog(st.logs, log)
	if err != nil {
		return err
	}
	cached, err := raft.NewLogCache(logCacheSize, o)
	if err != nil {
		o.close()
		return err
	}
	closeInner := st.close
	st.logs, st.overlap = cached, o
	st.close = func() error { o.close(); return closeInner() }
	return nil
}

// bind tells the log how to know whether this node leads, and how to
// make it stop leading.
func (o *overlapLog) bind(leading func() bool, stepDown func()) {
	o.mu.Lock()
	o.leading, o.stepDown = leading, stepDown
	o.mu.Unlock()
}

// countCopies makes q hear of every store and of the close; the caller
// does so before Raft starts.
func (o *overlapLog) countCopies(q *durableQuorum) { o.quorum = q }

// durableIndex is the last index this log holds on disk.
func (o *overlapLog) durableIndex() uint64 { return o.durable.Load() }

// StoreLogs queues logs for the writer. On the leader, an append of
// commands returns at once; anything else returns once stored.
func (o *overlapLog) StoreLogs(logs []*raft.Log) error {
	if len(logs) == 0 {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return errLogClosed
	}
	if o.failing != nil {
		return o.failing
	}
	o.queue = append(o.queue, logs...)
	o.cond.Broadcast()
	if o.leading() && !hasConfiguration(logs) {
		return nil
	}
	last := logs[len(logs)-1].Index
	for o.durable.Load() < last && !o.closed {
		o.cond.Wait() // through failures too: the writer retries them
	}
	if o.durable.Load() < last {
		return errLogClosed
	}
	return nil
}

func hasConfiguration(logs []*raft.Log) bool {
	return slices.ContainsFunc(logs, func(l *raft.Log) bool { return l.Type == raft.LogConfiguration })
}

// run is the writer: it stores everything queued, one batch at a time.
func (o *overlapLog) run() {
	defer close(o.done)
	o.mu.Lock()
	defer o.mu.Unlock()
	for {
		for len(o.queue) == 0 && !o.closed {
			o.cond.Wait()
		}
		if o.closed {
			return
		}
		batch := slices.Clone(o.queue)
		o.writing = len(batch)
		o.mu.Unlock()
		err := o.LogStore.StoreLogs(batch)
		o.mu.Lock()
		o.writing = 0
		if err != nil {
			o.failed(err)
			continue
		}
		if o.failing != nil && o.log != nil {
			o.log.Info("raft log appends work again")
		}
		o.failing = nil
		o.queue = o.queue[len(batch):]
		o.durable.Store(batch[len(batch)-1].Index)
		o.cond.Broadcast()
		if o.quorum != nil {
			o.quorum.stored()
		}
	}
}

// failed records a failed store and waits before the retry; the caller
// holds mu.
func (o *overlapLog) failed(err error) {
	if o.failing == nil && o.log != nil {
		o.log.Error("raft log append failed; retrying, and refusing new appends meanwhile", "err", err)
	}
	if o.failing == nil && o.leading() && o.stepDown != nil {
		// Raft would step down on its next append, which may never come
		// while it waits for this one: hand the leadership over now.
		o.stepDown()
	}
	o.failing = err
	o.cond.Broadcast()
	o.mu.Unlock()
	select {
	case <-time.After(overlapRetry):
	case <-o.stop:
	}
	o.mu.Lock()
}

// waitDurable blocks until the log holds index on disk, and reports
// whether it does (false once the log is closing).
func (o *overlapLog) waitDurable(index uint64) bool {
	if o.durable.Load() >= index {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.durable.Load() < index && !o.closed {
		o.cond.Wait()
	}
	return o.durable.Load() >= index
}

// drainLocked waits until nothing is queued; the caller holds mu.
func (o *overlapLog) drainLocked() error {
	for len(o.queue) > 0 && !o.closed {
		o.cond.Wait()
	}
	if len(o.queue) > 0 {
		return errLogClosed
	}
	return nil
}

// GetLog serves queued entries from memory and the rest from the disk.
func (o *overlapLog) GetLog(index uint64, out *raft.Log) error {
	o.mu.Lock()
	if n := len(o.queue); n > 0 && index >= o.queue[0].Index && index <= o.queue[n-1].Index {
		*out = *o.queue[index-o.queue[0].Index]
		o.mu.Unlock()
		return nil
	}
	o.mu.Unlock()
	return o.LogStore.GetLog(index, out)
}

// LastIndex counts queued entries.
func (o *overlapLog) LastIndex() (uint64, error) {
	o.mu.Lock()
	if n := len(o.queue); n > 0 {
		defer o.mu.Unlock()
		return o.queue[n-1].Index, nil
	}
	o.mu.Unlock()
	return o.LogStore.LastIndex()
}

// FirstIndex counts queued entries when the disk holds none.
func (o *overlapLog) FirstIndex() (uint64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, err := o.LogStore.FirstIndex()
	if err == nil && i == 0 && len(o.queue) > 0 {
		i = o.queue[0].Index
	}
	return i, err
}

// DeleteRange deletes once everything queued is stored. Deleting the tail
// (a follower dropping entries its new leader does not have) moves the
// durable index back, so that new entries at those indexes count as
// durable only once stored. Compaction, which deletes a prefix, does not.
func (o *overlapLog) DeleteRange(lo, hi uint64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.drainLocked(); err != nil {
		return err
	}
	first, err := o.LogStore.FirstIndex()
	if err != nil {
		return err
	}
	if err := o.LogStore.DeleteRange(lo, hi); err != nil {
		return err
	}
	if d := o.durable.Load(); lo > first && lo <= d && hi >= d {
		o.durable.Store(lo - 1)
	}
	return nil
}

// IsMonotonic forwards raft-wal's MonotonicLogStore.
func (o *overlapLog) IsMonotonic() bool {
	m, ok := o.LogStore.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

// close stops the writer; entries still queued are dropped: they were
// never applied here nor acknowledged to anyone.
func (o *overlapLog) close() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.closed = true
	close(o.stop)
	o.cond.Broadcast()
	o.mu.Unlock()
	<-o.done
	if o.quorum != nil {
		o.quorum.close()
	}
}
