package recipes

import (
	"bytes"
	"context"
	"errors"
	"path"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Election is one candidate in a leader election shared by every client
// that uses the same directory (Curator's LeaderLatch, kazoo's Election).
// Each candidate creates an ephemeral sequential node in it; the lowest
// leads, and every other watches only the node just ahead of it, so when a
// leader goes exactly one candidate wakes up, and candidates lead in the
// order they entered.
//
// The candidate's identity, which anyone can read with Leader or
// CurrentLeader, is the data given WithData.
//
// As with any ZooKeeper election, a leader whose session expires learns it
// only when its client next hears from the server, possibly after the
// next candidate has taken over: a leader should stop acting as one as
// soon as Lost is closed, and should not rely on being the only one
// without fencing its work (for instance by the leader node's zxid).
type Election struct {
	conn *zk.Conn
	dir  string
	opt  options

	camp sync.Mutex // one campaign at a time
	mu   sync.Mutex // guards h
	h    heldNode   // held once while leading
}

// NewElection returns a candidate in the election in dir (created if
// missing). Options: WithData (the candidate's identity), WithACL.
func NewElection(conn *zk.Conn, dir string, opts ...Option) *Election {
	return &Election{conn: conn, dir: dir, opt: buildOptions(opts)}
}

// electionPrefix names candidate nodes ("n-0000000007" after the
// protected tag), as in the ZooKeeper documentation's election recipe.
const electionPrefix = "n-"

// Campaign enters the election and blocks until this candidate leads or
// ctx ends. It returns at once if it already leads. On cancellation it
// removes its node, leaving the line, and returns ctx.Err(); if its
// session expires while it waits, it returns ErrSessionLost. Once it
// leads, Lost reports the loss of leadership.
func (e *Election) Campaign(ctx context.Context) error {
	e.camp.Lock()
	defer e.camp.Unlock()
	if e.leading() {
		return nil
	}
	node, err := contend(ctx, e.conn, e.dir, electionPrefix, e.opt, predecessor, true)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.h.take(e.conn, node)
	e.mu.Unlock()
	return nil
}

// leading reports whether we lead; a lost leadership is forgotten so that
// Campaign enters afresh.
func (e *Election) leading() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.h.forgetIfLost(e.conn)
	return e.h.held()
}

// IsLeader reports whether this candidate leads and has not lost it.
func (e *Election) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.h.held() {
		return false
	}
	select {
	case <-e.h.lost():
		return false
	default:
		return true
	}
}

// Resign gives up leadership: it deletes the leader's node, and the next
// candidate in line leads. It returns ErrNotHeld if this candidate does
// not lead, and ErrSessionLost if it had lost leadership meanwhile (see
// Lost). To leave the line while waiting, cancel Campaign's context.
func (e *Election) Resign(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.h.release(ctx, e.conn) // held once: this deletes the node
}

// Lost returns a channel closed when the leader loses leadership without
// resigning: its session expired (as soon as the client learns it), the
// client was closed, or someone deleted its node. It returns nil when this
// candidate does not lead.
func (e *Election) Lost() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.h.lost()
}

// Node returns the path of the candidate's node while it leads, else "".
func (e *Election) Node() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.h.path
}

// Leader returns the identity (WithData) of the election's current
// leader, or zk.ErrNoNode if there is no candidate. See CurrentLeader.
func (e *Election) Leader(ctx context.Context) ([]byte, error) {
	return CurrentLeader(ctx, e.conn, e.dir)
}

// Observe is ObserveLeader on this candidate's election.
func (e *Election) Observe(ctx context.Context) <-chan LeaderInfo {
	return ObserveLeader(ctx, e.conn, e.dir)
}

// CurrentLeader returns the identity (the data given WithData) of the
// leader of the election in dir, for candidates and observers alike, or
// zk.ErrNoNode if there is no candidate.
func CurrentLeader(ctx context.Context, conn *zk.Conn, dir string) ([]byte, error) {
	for {
		kids, err := children(ctx, conn, dir)
		if err != nil {
			return nil, err
		}
		kids = withPrefix(kids, electionPrefix)
		if len(kids) == 0 {
			return nil, zk.ErrNoNode
		}
		sortBySequence(kids)
		data, _, err := conn.Get(path.Join(dir, kids[0]))
		switch {
		case err == nil:
			return data, nil
		case errors.Is(err, zk.ErrNoNode): // it just left: ask again
		case !retryable(err):
			return nil, err
		default:
			if err := pause(ctx, conn); err != nil {
				return nil, err
			}
		}
	}
}

// LeaderInfo is an election's leader as reported by ObserveLeader.
type LeaderInfo struct {
	// Node is the path of the leader's node, or "" when there is no
	// candidate at all.
	Node string
	// Data is the leader's identity (what it passed WithData).
	Data []byte
}

// ObserveLeader is a live view of the election in dir: it sends the
// current leader at once and again each time the leadership changes
// (a LeaderInfo with an empty Node when there is no candidate), until ctx
// ends or the client is closed, and then closes the channel. A reader
// that falls behind gets the latest leader, not every intermediate one.
//
// It watches the leader's node only, not the line of candidates (a new
// candidate, queueing behind, never changes the leader), so candidates
// coming and going do not wake observers.
func ObserveLeader(ctx context.Context, conn *zk.Conn, dir string) <-chan LeaderInfo {
	return liveView(ctx, conn, func() (LeaderInfo, <-chan zk.Event, error) {
		return leaderW(conn, dir)
	}, func(a, b LeaderInfo) bool {
		return a.Node == b.Node && bytes.Equal(a.Data, b.Data)
	})
}

// leaderW returns the leader of the election in dir with a watch that
// fires when it changes: a data watch on the leader's node, or, with no
// candidate, a watch on dir's children (or on dir's creation).
func leaderW(conn *zk.Conn, dir string) (LeaderInfo, <-chan zk.Event, error) {
	for {
		kids, _, err := conn.Children(dir)
		if errors.Is(err, zk.ErrNoNode) {
			err, kids = nil, nil
		}
		if err != nil {
			return LeaderInfo{}, nil, err
		}
		kids = withPrefix(kids, electionPrefix)
		if len(kids) == 0 {
			kids, watch, err := viewChildrenW(conn, dir)
			if err != nil || len(withPrefix(kids, electionPrefix)) == 0 {
				return LeaderInfo{}, watch, err
			}
			continue // a candidate came in between
		}
		sortBySequence(kids)
		node := path.Join(dir, kids[0])
		data, _, watch, err := conn.GetW(node)
		if errors.Is(err, zk.ErrNoNode) {
			continue // it just left
		}
		if err != nil {
			return LeaderInfo{}, nil, err
		}
		return LeaderInfo{Node: node, Data: data}, watch, nil
	}
}
