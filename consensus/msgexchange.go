package consensus

import (
	"sort"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// The members' message traces travel like the peer figures (status.go),
// over the forwarding links and only while a view asks for them:
//
//   - a view calls WatchTrace; on a follower, its watched touch carries
//     touchTrace after touchWatched (older leaders read past it), and the
//     leader then records too;
//   - while the leader records, each fwdStatusAsk ends with a trace
//     section: 1, then a window (the latest traceWindowSize records) of
//     every member the leader holds, its own fresh; older followers
//     ignore it. A follower that reads one records for traceHold and keeps
//     the others' windows;
//   - such a follower's fwdStatus ends with its own window (older leaders
//     read past it).
//
// So one view sees every member's messages: its own server's straight
// from the ring, the others' a round or two later. A window is the
// latest records, not the ones since the last round: a member that sends
// more than traceWindowSize messages between two rounds (each
// statusEvery) loses the older ones from the other members' views; Trace
// counts them as missed.

// touchTrace follows touchWatched in a touch frame when the view that is
// watched wants the message trace.
const touchTrace int32 = 2

const (
	// traceWindowSize is how many of its latest records a member sends
	// each round.
	traceWindowSize = 1024
	// traceMaxMembers bounds the windows a node keeps.
	traceMaxMembers = 64
)

// traceWindow is a member's latest records, as last received.
type traceWindow struct {
	run    int64
	oldest uint64 // the oldest Seq its ring held
	msgs   []TraceMessage
	at     time.Time // when the member sent them
}

// TraceCursor is where a reader is in one member's records: the run
// (a member's records are numbered afresh when it restarts) and the Seq
// of the last record it has.
type TraceCursor struct {
	Run int64
	Seq uint64
}

// TraceMember is one member's part of a Trace.
type TraceMember struct {
	ID int64 `json:"id"`
	// Run and Next are the cursor to pass next time.
	Run  int64  `json:"run"`
	Next uint64 `json:"next"`
	// Missed counts the records between the cursor passed and the ones
	// returned that the member no longer holds (its ring, or its window,
	// moved past them before this reader asked).
	Missed uint64 `json:"missed"`
	// AgeMs is how old the member's records are (0 for this server's own).
	AgeMs int64 `json:"ageMs"`
}

// Trace is the ensemble's messages after a reader's cursors.
type Trace struct {
	// Recording is whether this server records now.
	Recording bool          `json:"recording"`
	Members   []TraceMember `json:"members"`
	// Messages are the members' records after the cursors, by time.
	Messages []TraceMessage `json:"messages"`
}

// WatchTrace says a view of the message trace is watched: for the next
// traceHold this server records the messages it sends, and every member
// that hears of it does too (the leader, and through the leader the
// other followers); their records reach this server over the forwarding
// links for Trace. A view calls it on each refresh. On a standalone node
// it does nothing: it sends no messages.
func (n *Node) WatchTrace() {
	if n.fwdCli == nil {
		return
	}
	n.traceForwardOps()
	n.trace.want(traceHold)
	n.watchPeers(true)
}

// Trace returns every member's records after the cursors in after (by
// member id; a missing one means from the start), at most limit of each.
func (n *Node) Trace(after map[int64]TraceCursor, limit int) Trace {
	out := Trace{Recording: n.trace.active(), Members: []TraceMember{}, Messages: []TraceMessage{}}
	if n.trace == nil {
		return out
	}
	self := n.trace.self
	cur := after[self]
	if cur.Run != n.trace.run {
		cur = TraceCursor{Run: n.trace.run}
	}
	msgs, oldest := n.trace.read(cur.Seq, limit)
	out.add(self, cur, oldest, msgs, 0)
	now := time.Now()
	for _, w := range n.trace.windowsOf() {
		c := after[w.id]
		if c.Run != w.run {
			c = TraceCursor{Run: w.run}
		}
		var picked []TraceMessage
		for _, m := range w.msgs {
			if m.Seq > c.Seq && len(picked) < limit {
				picked = append(picked, m)
			}
		}
		out.add(w.id, c, w.oldest, picked, max(now.Sub(w.at).Milliseconds(), 0))
	}
	sort.SliceStable(out.Messages, func(i, j int) bool { return out.Messages[i].Time.Before(out.Messages[j].Time) })
	return out
}

// add appends a member's records read after cursor c.
func (t *Trace) add(id int64, c TraceCursor, oldest uint64, msgs []TraceMessage, age int64) {
	tm := TraceMember{ID: id, Run: c.Run, Next: c.Seq, AgeMs: age}
	if len(msgs) > 0 {
		if first := msgs[0].Seq; c.Seq > 0 && first > c.Seq+1 {
			tm.Missed = first - c.Seq - 1
		}
		tm.Next = msgs[len(msgs)-1].Seq
	} else if oldest > c.Seq+1 && c.Seq > 0 {
		tm.Missed = oldest - c.Seq - 1
		tm.Next = oldest - 1
	}
	t.Members = append(t.Members, tm)
	t.Messages = append(t.Messages, msgs...)
}

// idWindow is a member's window with its id.
type idWindow struct {
	id int64
	traceWindow
}

// windowsOf returns the other members' windows held, by id.
func (t *tracer) windowsOf() []idWindow {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]idWindow, 0, len(t.windows))
	for id, w := range t.windows {
		if id != t.self {
			out = append(out, idWindow{id, w})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// ownWindow is this server's latest records.
func (t *tracer) ownWindow() traceWindow {
	t.mu.Lock()
	from := uint64(0)
	if t.next-1 > traceWindowSize {
		from = t.next - 1 - traceWindowSize
	}
	t.mu.Unlock()
	msgs, oldest := t.read(from, traceWindowSize)
	return traceWindow{run: t.run, oldest: oldest, msgs: msgs, at: time.Now()}
}

// storeWindow keeps member id's window unless a newer one is held.
func (t *tracer) storeWindow(id int64, w traceWindow) {
	if id == t.self {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.windows == nil {
		t.windows = map[int64]traceWindow{}
	}
	old, ok := t.windows[id]
	if ok && old.run == w.run && old.at.After(w.at) {
		return
	}
	if !ok && len(t.windows) >= traceMaxMembers {
		return
	}
	t.windows[id] = w
}

// encodeTraceAsk ends a fwdStatusAsk with the trace section, while the
// leader records.
func (n *Node) encodeTraceAsk(e *wire.Encoder) {
	if !n.trace.active() {
		return
	}
	wins := n.trace.windowsOf()
	e.Int(1)
	e.Int(int32(len(wins) + 1))
	now := time.Now()
	all := append([]idWindow{{n.trace.self, n.trace.ownWindow()}}, wins...)
	for _, w := range all {
		e.Long(w.id)
		e.Long(now.Sub(w.at).Milliseconds())
		encodeWindow(e, w.traceWindow)
	}
	for _, w := range all { // after every window: older followers stop before
		encodeWindowOps(e, w.msgs)
	}
}

// readTraceAsk reads the trace section of a fwdStatusAsk, if any: this
// follower records too, and keeps the others' windows.
func (n *Node) readTraceAsk(d *wire.Decoder, now time.Time) {
	if n.trace == nil || d.Remaining() < 4 || d.Int() != 1 {
		return
	}
	n.traceForwardOps()
	n.trace.want(traceHold)
	k := d.Count(20)
	got := make([]idWindow, 0, min(k, traceMaxMembers))
	for i := 0; i < k && i < traceMaxMembers && d.Err() == nil; i++ {
		id, age := d.Long(), d.Long()
		w := decodeWindow(d)
		if d.Err() == nil {
			w.at = now.Add(-time.Duration(age) * time.Millisecond)
			got = append(got, idWindow{id, w})
		}
	}
	if len(got) == k && d.Err() == nil && d.Remaining() > 0 { // a newer leader's ops
		for i := range got {
			decodeWindowOps(d, got[i].msgs)
		}
	}
	for _, w := range got {
		n.trace.storeWindow(w.id, w.traceWindow)
	}
}

// encodeTraceAnswer ends a follower's fwdStatus with its window, while
// it records.
func (n *Node) encodeTraceAnswer(e *wire.Encoder) {
	if n.trace.active() {
		w := n.trace.ownWindow()
		encodeWindow(e, w)
		encodeWindowOps(e, w.msgs) // older leaders stop before
	}
}

// readTraceAnswer reads the window ending a fwdStatus, if any.
func (n *Node) readTraceAnswer(id int64, d *wire.Decoder) {
	if n.trace == nil || d.Remaining() == 0 {
		return
	}
	w := decodeWindow(d)
	if d.Err() == nil && d.Remaining() > 0 { // a newer follower's ops
		decodeWindowOps(d, w.msgs)
	}
	if d.Err() == nil {
		w.at = time.Now()
		n.trace.storeWindow(id, w)
	}
}

// encodeWindow writes a window: run, oldest, then the records.
func encodeWindow(e *wire.Encoder, w traceWindow) {
	e.Long(w.run)
	e.Long(int64(w.oldest))
	e.Int(int32(len(w.msgs)))
	for i := range w.msgs {
		encodeTraceMessage(e, &w.msgs[i])
	}
}

// decodeWindow reads what encodeWindow wrote (at most traceWindowSize
// records).
func decodeWindow(d *wire.Decoder) traceWindow {
	w := traceWindow{run: d.Long(), oldest: uint64(d.Long())}
	k := d.Count(8 * 14)
	if k > traceWindowSize {
		d.Fail(errTraceWindow)
		return w
	}
	w.msgs = make([]TraceMessage, 0, d.Prealloc(k, 8*14))
	for i := 0; i < k && d.Err() == nil; i++ {
		w.msgs = append(w.msgs, decodeTraceMessage(d))
	}
	return w
}
