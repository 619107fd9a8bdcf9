package consensus

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// The timeline is a short history of this node's ensemble for people
// watching it (the web console): elections, leader changes, peers lost
// and found, membership changes and snapshots. Each event is recorded
// where it happens, into a fixed ring, so it costs one small append per
// event (these are rare: none per request) and never grows.

// TimelineKind says what a TimelineEvent records.
type TimelineKind string

// The events the timeline records.
const (
	// TimelineLooking: this node lost its leader (or started) and looks
	// for one: ZAB's LOOKING, an election under way.
	TimelineLooking TimelineKind = "looking"
	// TimelineLeader: a leader was elected or became known (Leader names
	// it; Self when it is this node).
	TimelineLeader TimelineKind = "leader"
	// TimelinePeerDown and TimelinePeerUp: the leader's heartbeats to Peer
	// started failing, or work again.
	TimelinePeerDown TimelineKind = "peer-down"
	TimelinePeerUp   TimelineKind = "peer-up"
	// TimelineMembership: a configuration entry (reconfig) was applied, or
	// a snapshot brought one; Detail lists the members.
	TimelineMembership TimelineKind = "membership"
	// TimelineSnapshotTaken and TimelineSnapshotInstalled: this node took
	// a snapshot, or installed one (at start, from the leader, or a
	// restore); Zxid is the last transaction it holds.
	TimelineSnapshotTaken     TimelineKind = "snapshot"
	TimelineSnapshotInstalled TimelineKind = "snapshot-installed"
)

// TimelineEvent is one entry of the timeline.
type TimelineEvent struct {
	// Seq numbers events from 1 in the order recorded on this node.
	Seq  uint64       `json:"seq"`
	Time time.Time    `json:"time"`
	Kind TimelineKind `json:"kind"`
	// Term is the Raft term (ZooKeeper's epoch) when it was recorded.
	Term uint64 `json:"term"`
	// Leader is the leader's id (TimelineLeader); Self when it is this node.
	Leader string `json:"leader,omitempty"`
	Self   bool   `json:"self,omitempty"`
	// Peer is the member's id (TimelinePeerDown, TimelinePeerUp).
	Peer string `json:"peer,omitempty"`
	// Zxid is the snapshot's last zxid (snapshot events).
	Zxid int64 `json:"zxid,omitempty"`
	// Detail is a short text (the members of a TimelineMembership).
	Detail string `json:"detail,omitempty"`
}

// TimelineSize is how many events the timeline keeps; older ones are
// dropped.
const TimelineSize = 256

// timeline is the ring of events. The zero value is ready.
type timeline struct {
	mu   sync.Mutex
	ring [TimelineSize]TimelineEvent
	next uint64 // Seq of the next event; events next-TimelineSize.. are kept
}

// add records ev (its Seq and, when zero, its Time are filled in).
func (t *timeline) add(ev TimelineEvent) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	t.mu.Lock()
	t.next++
	ev.Seq = t.next
	t.ring[(t.next-1)%TimelineSize] = ev
	t.mu.Unlock()
}

// since returns the events with Seq > after, oldest first.
func (t *timeline) since(after uint64) []TimelineEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	first := uint64(1)
	if t.next > TimelineSize {
		first = t.next - TimelineSize + 1
	}
	first = max(first, after+1)
	if first > t.next {
		return nil
	}
	out := make([]TimelineEvent, 0, t.next-first+1)
	for s := first; s <= t.next; s++ {
		out = append(out, t.ring[(s-1)%TimelineSize])
	}
	return out
}

// Timeline returns this node's recorded events with Seq greater than
// after (0: all that are kept), oldest first.
func (n *Node) Timeline(after uint64) []TimelineEvent { return n.fsm.timeline.since(after) }

// term is the current Raft term, 0 before Raft runs.
func (n *Node) term() uint64 {
	if r := n.raftRef.Load(); r != nil {
		return r.CurrentTerm()
	}
	return 0
}

// leaderNote remembers the last leader the timeline recorded, so that a
// repeated observation of the same leader adds nothing.
type leaderNote struct {
	mu      sync.Mutex
	noted   bool
	leader  string
	term    uint64
	looking bool
}

// noteLeader records a leader observation: the leader id, "" while
// there is none.
func (n *Node) noteLeader(id raft.ServerID) {
	term := n.term()
	l := &n.leaderNote
	l.mu.Lock()
	var ev *TimelineEvent
	switch {
	case id == "" && (!l.noted || !l.looking):
		ev = &TimelineEvent{Kind: TimelineLooking, Term: term}
	case id != "" && (!l.noted || l.looking || l.leader != string(id) || l.term != term):
		ev = &TimelineEvent{Kind: TimelineLeader, Term: term, Leader: string(id), Self: id == n.self}
	}
	l.noted, l.looking, l.leader, l.term = true, id == "", string(id), term
	l.mu.Unlock()
	if ev != nil {
		n.fsm.timeline.add(*ev)
	}
}

// notePeer records the start or end of a peer's outage, as the leader's
// heartbeats see it.
func (n *Node) notePeer(id raft.ServerID, down bool) {
	kind := TimelinePeerUp
	if down {
		kind = TimelinePeerDown
	}
	n.fsm.timeline.add(TimelineEvent{Kind: kind, Term: n.term(), Peer: string(id)})
}

// samePeers reports whether two memberships list the same members alike.
func samePeers(a, b map[raft.ServerID]Peer) bool {
	if len(a) != len(b) {
		return false
	}
	for id, p := range a {
		if q, ok := b[id]; !ok || q != p {
			return false
		}
	}
	return true
}

// describeMembers is a membership in one line: "1 2 3 4(observer)".
func describeMembers(members []Peer) string {
	sorted := slices.Clone(members)
	slices.SortFunc(sorted, func(a, b Peer) int { return cmp.Compare(a.ID, b.ID) })
	ids := make([]string, 0, len(sorted))
	for _, p := range sorted {
		s := strconv.FormatInt(p.ID, 10)
		if p.Observer {
			s += "(observer)"
		}
		ids = append(ids, s)
	}
	return strings.Join(ids, " ")
}
