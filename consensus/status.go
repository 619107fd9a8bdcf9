package consensus

import (
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/wire"
)

// Peer figures for views (the web console): every member can show the
// figures of the whole ensemble, gathered over the forwarding links that
// already join each follower to the leader, and only while someone
// watches.
//
// The figures themselves are opaque here: the server encodes them
// (SetStatusSource). While a view on the leader calls WatchPeers, or a
// follower says in its touches that a view on it does, the leader sends
// each follower, every statusPeriod (half a tick), a fwdStatusAsk carrying
// every member's latest figures it holds (its own, fresh); a follower keeps
// that table and answers with its own figures (fwdStatus). So the leader
// holds figures at most a period old, and followers one round older: a
// member whose figures are more than two ticks old was not heard from.
//
// Compatibility with servers that predate it: a follower sends fwdStatus
// only in answer to a fwdStatusAsk, so only to a leader that knows the
// frame; the "watched" mark rides at the end of a touch frame, which an
// older leader reads past; an older follower ignores a fwdStatusAsk. With
// nobody watching, none of it runs and the links carry what they did.

// PeerStatus is another member's figures as this node last heard them.
type PeerStatus struct {
	ID int64
	// Data is what the member's status source returned.
	Data []byte
	// At is when the member produced them (the time they reached the
	// leader, less nothing; on a follower, less the age the leader gave).
	At time.Time
}

const (
	// statusEvery is how often, at most, the leader gathers figures while
	// watched: half a tick, so that a view can tell a member not heard
	// from within two ticks (statusPeriod), but at most once a second.
	statusEvery = time.Second
	// statusEveryMin bounds statusPeriod from below for very short ticks.
	statusEveryMin = 50 * time.Millisecond
	// statusFirstGap is how soon after the first ask of a gathering the
	// leader asks again, carrying the answers to the first: a page
	// opened on a follower shows every member within a second.
	statusFirstGap = 100 * time.Millisecond
	// statusInterest is how long one WatchPeers (or a watched touch)
	// keeps the gathering going.
	statusInterest = 3 * time.Second
	// touchWatched is the trailing field of a touch frame that says the
	// sender's view is watched.
	touchWatched int32 = 1
	// statusMaxData bounds one member's figures in a table.
	statusMaxData = 64 << 10
)

// peerStatus is a node's part of the exchange. The zero value is ready.
type peerStatus struct {
	mu     sync.Mutex
	source func() []byte
	table  map[int64]PeerStatus
	// until is when the leader stops gathering unless asked again;
	// asking is true while its loop runs.
	until  time.Time
	asking bool
	// wantSent is when this follower last told the leader it is watched,
	// traceSent when it last asked for the message trace.
	wantSent, traceSent time.Time
	// answering and telling are true while a follower's answer, or its
	// watched touch, is on its way.
	answering, telling atomic.Bool
	// viewedSince is when views of this node began watching without a
	// gap of statusInterest, viewedUntil when that interest ends.
	viewedSince, viewedUntil time.Time
}

// statusPeriod is how often the leader gathers the members' figures while
// watched: half a tick (Raft's heartbeat timeout here), within
// statusEveryMin and statusEvery.
func (n *Node) statusPeriod() time.Duration {
	if n.timeouts == nil {
		return statusEvery
	}
	return min(max(n.timeouts.base.ElectionTimeout/2, statusEveryMin), statusEvery)
}

// PeersWatchedSince is when the current watching of this node's views
// began (see WatchPeers): figures older than that were gathered for an
// earlier view, and a view may call members "loading" rather than
// unreachable for a while after it. Zero when no view watches.
func (n *Node) PeersWatchedSince() time.Time {
	st := &n.status
	st.mu.Lock()
	defer st.mu.Unlock()
	if time.Now().After(st.viewedUntil) {
		return time.Time{}
	}
	return st.viewedSince
}

// noteViewed records that a view watches now.
func (st *peerStatus) noteViewed() {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now()
	if now.After(st.viewedUntil) {
		st.viewedSince = now
	}
	st.viewedUntil = now.Add(statusInterest)
}

// SetStatusSource sets what produces this member's figures for the other
// members' views (called while someone watches, at most once per
// statusEvery; it must not block for long). Set it before Start returns
// to the caller's clients.
func (n *Node) SetStatusSource(fn func() []byte) {
	n.status.mu.Lock()
	n.status.source = fn
	n.status.mu.Unlock()
}

// WatchPeers says a view of this node is watched now: for the next
// statusInterest the ensemble gathers every member's figures, which
// PeerStatuses returns. A view calls it on each refresh. On a standalone
// node it does nothing.
func (n *Node) WatchPeers() {
	n.status.noteViewed()
	n.watchPeers(false)
}

// watchPeers starts or extends the gathering; trace asks the members to
// record their messages too (msgexchange.go).
func (n *Node) watchPeers(trace bool) {
	if n.fwdCli == nil {
		return
	}
	if n.leading() {
		n.watchPeersHere(n.fwdSrv)
		return
	}
	st := &n.status
	st.mu.Lock()
	last := &st.wantSent
	if trace {
		last = &st.traceSent
	}
	due := time.Since(*last) >= n.statusPeriod()/2
	if due {
		*last = time.Now()
	}
	st.mu.Unlock()
	if due && st.telling.CompareAndSwap(false, true) {
		go func() {
			defer st.telling.Store(false)
			var e wire.Encoder
			e.Int(fwdTouch)
			encodeIDs(&e, nil)
			e.Int(touchWatched)
			if trace {
				e.Int(touchTrace)
			}
			n.fwdCli.send(e.Bytes(), func() {})
		}()
	}
}

// PeerStatuses returns the other members' latest figures this node holds,
// by id (none until someone watched: see WatchPeers).
func (n *Node) PeerStatuses() []PeerStatus {
	st := &n.status
	st.mu.Lock()
	out := make([]PeerStatus, 0, len(st.table))
	for id, p := range st.table {
		if id != int64ID(n.self) {
			out = append(out, p)
		}
	}
	st.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// store keeps a member's figures, unless newer ones are held.
func (st *peerStatus) store(id int64, data []byte, at time.Time) {
	if len(data) > statusMaxData {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.table == nil {
		st.table = map[int64]PeerStatus{}
	}
	if old, ok := st.table[id]; ok && old.At.After(at) {
		return
	}
	st.table[id] = PeerStatus{ID: id, Data: data, At: at}
}

// watchPeersHere extends the leader's gathering over fs's links, starting
// its loop when it does not run (and fs is not closing).
func (n *Node) watchPeersHere(fs *forwardServer) {
	st := &n.status
	st.mu.Lock()
	defer st.mu.Unlock()
	st.until = time.Now().Add(statusInterest)
	if st.asking {
		return
	}
	// Under fs.mu, so that the loop is counted in n.background before a
	// Close, which closes fs before it waits for n.background, can wait.
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.closed {
		return
	}
	st.asking = true
	n.background.Add(1)
	go n.gather(fs)
}

// gather runs on the leader while someone watches: every statusPeriod it
// sends each follower the table, which asks for their figures. The second
// ask follows the first after statusFirstGap, so that the followers' first
// answers reach every other follower at once.
func (n *Node) gather(fs *forwardServer) {
	defer n.background.Done()
	period := n.statusPeriod()
	tick := time.NewTimer(min(statusFirstGap, period))
	defer tick.Stop()
	st := &n.status
	for {
		st.mu.Lock()
		if !n.leading() || time.Now().After(st.until) {
			st.asking = false
			st.mu.Unlock()
			return
		}
		st.mu.Unlock()
		fs.broadcast(n.statusAskFrame())
		select {
		case <-tick.C:
			tick.Reset(period)
		case <-fs.stop:
			st.mu.Lock()
			st.asking = false
			st.mu.Unlock()
			return
		}
	}
}

// statusAskFrame encodes a fwdStatusAsk: this node's own figures, fresh,
// then those of every other member it holds, each with its age in ms.
func (n *Node) statusAskFrame() []byte {
	st := &n.status
	st.mu.Lock()
	source := st.source
	st.mu.Unlock()
	self := int64ID(n.self)
	if source != nil {
		st.store(self, source(), time.Now())
	}
	now := time.Now()
	var e wire.Encoder
	e.Int(fwdStatusAsk)
	e.Long(0)
	st.mu.Lock()
	e.Int(int32(len(st.table)))
	for _, p := range st.table {
		e.Long(p.ID)
		e.Long(now.Sub(p.At).Milliseconds())
		e.Buffer(p.Data)
	}
	st.mu.Unlock()
	n.encodeTraceAsk(&e)
	return frameBytes(e.Bytes())
}

// broadcast queues frame on every follower's connection; a connection
// whose previous one is still queued skips this one.
func (fs *forwardServer) broadcast(frame []byte) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, asks := range fs.conns {
		select {
		case asks <- frame:
		default:
		}
	}
}

// statusAsked takes the table of a fwdStatusAsk read from nc (the caller
// holds c.mu) and answers with this member's figures, on the same
// connection.
func (c *forwardClient) statusAsked(nc net.Conn, d *wire.Decoder) {
	n := c.n
	now := time.Now()
	k := d.Count(20)
	for i := 0; i < k && d.Err() == nil; i++ {
		id, age, data := d.Long(), d.Long(), d.Buffer()
		if d.Err() == nil && id != int64ID(n.self) {
			n.status.store(id, data, now.Add(-time.Duration(age)*time.Millisecond))
		}
	}
	n.readTraceAsk(d, now)
	st := &n.status
	st.mu.Lock()
	source := st.source
	st.mu.Unlock()
	if source == nil || !st.answering.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer st.answering.Store(false)
		var e wire.Encoder
		e.Int(fwdStatus)
		e.Long(int64ID(n.self))
		e.Buffer(source())
		n.encodeTraceAnswer(&e)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.conn != nc { // the leader that asked is gone
			return
		}
		nc.SetWriteDeadline(time.Now().Add(n.linkTime))
		if _, err := nc.Write(frameBytes(e.Bytes())); err != nil {
			c.dropLocked(ErrNotLeader)
			go c.linkLost()
		}
	}()
}

// int64ID is a member's Raft id as its myid (0 if it is not a number).
func int64ID(id raft.ServerID) int64 {
	v, _ := strconv.ParseInt(string(id), 10, 64)
	return v
}
