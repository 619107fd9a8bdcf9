package consensus

import (
	"sync"
	"sync/atomic"
	"time"
)

// The message trace records the messages this server sends to the other
// servers, for people watching replication step by step (the web
// console's "Replication, step by step"): the Raft RPCs it sends with the
// answers it gets (traceTransport), and the client writes it forwards to
// the leader with the leader's reply (forward.go). Every message is
// recorded by its sender only, once it is answered (or failed), as one
// round trip: the time it left, the time the answer took, what it
// carried and the ZAB phase it belongs to (msgphase.go).
//
// It costs nothing while nobody watches: recording is off until a view
// asks for it (Node.WatchTrace, directly or through another member over
// the forwarding links: msgexchange.go), and it stops traceHold after the
// last ask. Off, a message costs one atomic load. On, each message is
// copied into a fixed ring of TraceSize records; the ring is allocated
// the first time recording starts and never grows.

// TraceKind says what kind of message a TraceMessage records.
type TraceKind string

// The messages the trace records.
const (
	// TraceAppend is an AppendEntries that names a log position: with
	// entries (Entries > 0), or empty, carrying only the commit index
	// (Raft's own after CommitTimeout, or zkraft's commit notices).
	TraceAppend TraceKind = "append"
	// TraceHeartbeat is Raft's heartbeat: an AppendEntries with no
	// entries and no log position, which only keeps the leader's term.
	TraceHeartbeat TraceKind = "heartbeat"
	// TraceVote and TracePreVote are a candidate's RequestVote and
	// RequestPreVote; OK is whether the vote was granted.
	TraceVote    TraceKind = "vote"
	TracePreVote TraceKind = "prevote"
	// TraceSnapshot is an InstallSnapshot: LastIndex and EntryTerm are
	// the snapshot's last index and term.
	TraceSnapshot TraceKind = "snapshot"
	// TraceTimeoutNow is a leader's TimeoutNow, which makes its target
	// start an election at once (a leadership transfer).
	TraceTimeoutNow TraceKind = "timeout-now"
	// TraceForward is a client write a follower forwarded to the leader,
	// with the leader's reply; FirstIndex and FirstZxid are where the
	// write landed, once this follower applied it.
	TraceForward TraceKind = "forward"
)

// TraceMessage is one message and its answer.
type TraceMessage struct {
	// Seq numbers the sender's records from 1, in the order recorded.
	Seq uint64 `json:"seq"`
	// Time is when the message left; LatencyUs how long its answer took
	// (µs).
	Time      time.Time `json:"time"`
	LatencyUs int64     `json:"latencyUs"`
	From      int64     `json:"from"`
	To        int64     `json:"to"`
	Kind      TraceKind `json:"kind"`
	// Term is the term the message carries: ZooKeeper's epoch (for a
	// forward, the sender's current term).
	Term uint64 `json:"term"`
	// PrevIndex and PrevTerm are an AppendEntries' previous log entry;
	// Commit is the commit index it (or an InstallSnapshot) carried.
	PrevIndex uint64 `json:"prevIndex,omitempty"`
	PrevTerm  uint64 `json:"prevTerm,omitempty"`
	Commit    uint64 `json:"commit,omitempty"`
	// Entries counts the log entries carried; Commands how many of them
	// are transactions (the others, Raft's no-op and configuration
	// entries, take no zxid). FirstIndex and LastIndex are the first and
	// last entry's index, EntryTerm the last one's term.
	Entries    int    `json:"entries,omitempty"`
	Commands   int    `json:"commands,omitempty"`
	FirstIndex uint64 `json:"firstIndex,omitempty"`
	LastIndex  uint64 `json:"lastIndex,omitempty"`
	EntryTerm  uint64 `json:"entryTerm,omitempty"`
	// FirstZxid and LastZxid are the zxids of the first and last
	// transaction carried; 0 while unknown. A zxid is assigned when an
	// entry is applied (fsm.go), so they are filled in from this
	// server's own applies once those happen, while recording is on: an
	// entry applied here before recording started, or never applied (an
	// uncommitted entry a new leader overwrote), keeps 0.
	FirstZxid int64 `json:"firstZxid,omitempty"`
	LastZxid  int64 `json:"lastZxid,omitempty"`
	// OK is the answer: AppendEntries and InstallSnapshot succeeded, the
	// vote was granted, the forwarded write was committed. RespTerm is
	// the answer's term; Error says why no answer came.
	OK       bool   `json:"ok"`
	RespTerm uint64 `json:"respTerm,omitempty"`
	Error    string `json:"error,omitempty"`
	// Phase is the ZAB phase the message corresponds to and Zab the ZAB
	// message it plays the part of (msgphase.go).
	Phase Phase  `json:"phase"`
	Zab   string `json:"zab"`
	// Op names the client write carried, where the sender saw it: a
	// forward's, or an AppendEntries' first transaction's, with " +N"
	// for N more ("create /x", "setData /y +2", "createSession"; the
	// path cut to 60 bytes: msgop.go). Empty for messages without one.
	Op string `json:"op,omitempty"`

	// Unexported: what is needed to fill in the zxids later.
	firstCmd, lastCmd position // the first and last transaction entries
	proposal          uint64   // a forward's proposal number
}

// unresolved reports whether m carries transactions whose zxids are
// still unknown.
func (m *TraceMessage) unresolved() bool {
	if m.Kind == TraceForward {
		return m.proposal != 0 && m.FirstZxid == 0
	}
	return m.Commands > 0 && m.FirstZxid == 0
}

const (
	// TraceSize is how many messages a server's ring keeps; older ones
	// are overwritten.
	TraceSize = 4096
	// traceHold is how long recording stays on after the last ask: long
	// enough to record an election while the leader that relayed the
	// asks is gone.
	traceHold = 10 * time.Second
	// traceHoldBack: a record whose zxids are still unknown is not read
	// out until it is this old, giving the entries time to be applied.
	traceHoldBack = time.Second
)

// tracer is a server's message trace. A nil *tracer (a standalone node)
// records nothing.
type tracer struct {
	self int64
	// run identifies this tracer's life: a restarted server numbers its
	// records from 1 again, and readers tell the runs apart by it.
	run int64
	on  atomic.Bool
	// until is when recording stops (unix ns) unless asked again.
	until atomic.Int64
	// lastIndex is the local log's last index (the leader's, for
	// synchronization targets); term the current term.
	lastIndex, term func() uint64

	mu      sync.Mutex
	ring    []TraceMessage // TraceSize, allocated when first on
	next    uint64         // Seq of the next record
	peers   map[int64]peerPhase
	voted   uint64 // the last term this server asked votes for
	pending map[uint64]pendingForward
	zxids   atomic.Pointer[zxidCache]
	windows map[int64]traceWindow // other members' records (msgexchange.go)
	tracerOps
}

func newTracer(self int64, lastIndex, term func() uint64) *tracer {
	return &tracer{self: self, run: time.Now().UnixMicro(), lastIndex: lastIndex, term: term, next: 1}
}

// lastIndex is the local log's last index, 0 before Raft runs.
func (n *Node) lastIndex() uint64 {
	if r := n.raftRef.Load(); r != nil {
		return r.LastIndex()
	}
	return 0
}

// want turns recording on for at least d.
func (t *tracer) want(d time.Duration) {
	if t == nil {
		return
	}
	until := time.Now().Add(d).UnixNano()
	for {
		old := t.until.Load()
		if old >= until || t.until.CompareAndSwap(old, until) {
			break
		}
	}
	if t.on.Load() {
		return
	}
	t.mu.Lock()
	if t.ring == nil {
		t.ring = make([]TraceMessage, TraceSize)
		t.zxids.Store(newZxidCache())
	}
	clear(t.peers) // what was known of the peers may be stale
	t.pending = nil
	t.on.Store(true)
	t.mu.Unlock()
}

// active reports whether recording is on; off, it costs one atomic load.
func (t *tracer) active() bool {
	if t == nil || !t.on.Load() {
		return false
	}
	if time.Now().UnixNano() > t.until.Load() {
		t.on.Store(false)
		return false
	}
	return true
}

// record classifies m (a Raft RPC and its answer), numbers it and keeps
// it in the ring.
func (t *tracer) record(m TraceMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ring == nil {
		return
	}
	if m.Kind == TraceVote {
		t.voted = max(t.voted, m.Term)
	}
	if t.peers == nil {
		t.peers = map[int64]peerPhase{}
	}
	p := t.peers[m.To]
	m.Phase, m.Zab, p = classify(p, &m, t.voted == m.Term, t.lastIndex)
	if leaderMessage(m.Kind) {
		t.peers[m.To] = p
	}
	t.keepLocked(m)
}

// keepLocked numbers m and stores it; the caller holds mu.
func (t *tracer) keepLocked(m TraceMessage) {
	m.Seq = t.next
	m.From = t.self
	t.next++
	t.ring[(m.Seq-1)%TraceSize] = m
}

// read returns up to limit records with Seq > after, oldest first,
// their zxids filled in where known. It stops before the first record
// whose zxids are still unknown and younger than traceHoldBack, so that
// a reader gets it later, complete. oldest is the oldest Seq the ring
// still holds (0 when empty).
func (t *tracer) read(after uint64, limit int) (out []TraceMessage, oldest uint64) {
	if t == nil {
		return nil, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ring == nil || t.next == 1 {
		return nil, 0
	}
	oldest = 1
	if t.next-1 > TraceSize {
		oldest = t.next - TraceSize
	}
	now := time.Now()
	for s := max(oldest, after+1); s < t.next && len(out) < limit; s++ {
		m := &t.ring[(s-1)%TraceSize]
		if m.unresolved() {
			t.zxids.Load().resolve(m)
			if m.unresolved() && now.Sub(m.Time) < traceHoldBack {
				break
			}
		}
		out = append(out, *m)
	}
	return out, oldest
}
