package consensus

import (
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/metrics"
)

// This file holds consensus's part of ZooKeeper's ServerMetrics, recorded
// where the events happen and registered in the server's metrics.Set
// (Config.Metrics). ZAB's events map onto Raft's: a proposal is a command
// the leader appends, a commit an applied command, LOOKING the time a
// member of an ensemble knows no leader.

// nodeMetrics are the metrics a Node records.
type nodeMetrics struct {
	commitCount   *metrics.Counter    // commands applied while leading (ZooKeeper counts at the leader)
	proposalCount *metrics.Counter    // commands this node appended as leader
	appliedAhead  *metrics.Counter    // batches a leader applied on followers' disks before its own (zkraft_applied_before_local_sync)
	lookingCount  *metrics.Counter    // times an ensemble member found itself without a leader
	electionTime  *metrics.Summary    // ms from losing (or starting without) a leader to knowing one
	fsyncTime     *metrics.Summary    // ms to store and sync a log append (durable, forceSync=yes)
	snapshotTime  *metrics.Summary    // ms to write a snapshot
	dbInitTime    *metrics.Summary    // ms to open the stores and recover the state at start
	snapLoadTime  *metrics.Summary    // ms to load the snapshot at start
	txnsLoadTime  *metrics.Summary    // ms to replay the log after it at start
	txnsLoaded    *metrics.Summary    // log entries replayed at start
	proposalLat   *metrics.Summary    // ms from a leader's append to its commit
	proposalSize  metrics.BufferStats // bytes of the commands appended as leader

	election electionClock
}

// newNodeMetrics registers the node's metrics in set (a fresh set if nil).
func newNodeMetrics(set *metrics.Set) *nodeMetrics {
	if set == nil {
		set = metrics.NewSet()
	}
	m := &nodeMetrics{
		commitCount:   set.Counter("commit_count"),
		proposalCount: set.Counter("proposal_count"),
		appliedAhead:  set.Counter("zkraft_applied_before_local_sync"),
		lookingCount:  set.Counter("looking_count"),
		electionTime:  set.Summary("election_time", metrics.Basic),
		fsyncTime:     set.Summary("fsynctime", metrics.Basic),
		snapshotTime:  set.Summary("snapshottime", metrics.Basic),
		dbInitTime:    set.Summary("dbinittime", metrics.Basic),
		snapLoadTime:  set.Summary("startup_snap_load_time", metrics.Basic),
		txnsLoadTime:  set.Summary("startup_txns_load_time", metrics.Basic),
		txnsLoaded:    set.Summary("startup_txns_loaded", metrics.Basic),
		proposalLat:   set.Summary("proposal_latency", metrics.Advanced),
	}
	m.proposalSize.Reset()
	return m
}

// proposed records a command of size bytes appended as leader.
func (m *nodeMetrics) proposed(size int) {
	m.proposalCount.Inc()
	m.proposalSize.Add(int64(size))
}

// ProposalSizes returns the last, smallest and largest command this node
// appended as leader, in bytes; -1 each before the first (ZooKeeper's
// last/min/max_proposal_size).
func (n *Node) ProposalSizes() (last, min, max int64) { return n.metrics.proposalSize.Values() }

// electionClock turns an ensemble member's leader observations into
// looking_count and election_time. A member starts looking, as a
// ZooKeeper peer starts in LOOKING.
type electionClock struct {
	mu      sync.Mutex
	looking bool
	since   time.Time
}

// start marks the member looking from now.
func (m *nodeMetrics) startLooking(now time.Time) {
	m.election.mu.Lock()
	defer m.election.mu.Unlock()
	if !m.election.looking {
		m.election.looking, m.election.since = true, now
		m.lookingCount.Inc()
	}
}

// leaderKnown ends a looking period, recording how long it lasted.
func (m *nodeMetrics) leaderKnown(now time.Time) {
	m.election.mu.Lock()
	defer m.election.mu.Unlock()
	if m.election.looking {
		m.election.looking = false
		m.electionTime.Observe(now.Sub(m.election.since).Milliseconds())
	}
}

// watchElections feeds electionClock from Raft's leader observations; the
// returned function stops it.
func (n *Node) watchElections() (stop func()) {
	ch := make(chan raft.Observation, 16)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	n.raft.RegisterObserver(obs)
	_, id := n.raft.LeaderWithID()
	if id != "" {
		n.metrics.leaderKnown(time.Now())
	}
	n.noteLeader(id)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for o := range ch {
			d := o.Data.(raft.LeaderObservation)
			if d.LeaderID != "" {
				n.metrics.leaderKnown(time.Now())
			} else {
				n.metrics.startLooking(time.Now())
			}
			n.noteLeader(d.LeaderID)
		}
	}()
	return func() {
		n.raft.DeregisterObserver(obs)
		close(ch)
		<-done
	}
}

// countCommits adds a batch's commands to commit_count while this node
// leads.
func (n *Node) countCommits(k int) {
	if r := n.raftRef.Load(); k > 0 && r != nil && r.State() == raft.Leader {
		n.metrics.commitCount.Add(int64(k))
	}
}

// replayed records the replay of the log found at start, once over: the
// entries applied after the snapshot and how long they took.
func (m *nodeMetrics) replayed(entries uint64, took time.Duration) {
	m.txnsLoaded.Observe(int64(entries))
	m.txnsLoadTime.Observe(took.Milliseconds())
}

// startupTimes records, for a durable node, how long opening the stores
// and recovering the last snapshot took (dbinittime) and the snapshot's
// part of it (startup_snap_load_time).
func (n *Node) startupTimes(durable bool, began time.Time) {
	if !durable {
		return
	}
	n.metrics.dbInitTime.ObserveSince(began)
	if d := time.Duration(n.fsm.restoreTook.Load()); d > 0 {
		n.metrics.snapLoadTime.Observe(d.Milliseconds())
	}
}
