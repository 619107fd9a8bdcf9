package consensus

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/wire"
)

// A follower that knows no leader, or cannot reach the one Raft names (it
// died and the election has not ended yet), used to fail a proposal at
// once with ErrNotLeader, and the server then closed the client's
// connection. After a leader crash that made a reconnected client see its
// reads succeed and its next write fail with a connection loss, again and
// again until the election ended; a ZooKeeper follower serves no client at
// all in that window, so no client sees that sequence there. Apache
// Curator does not survive it: a protected-mode create whose retry finds no
// node by getChildren and then loses its connection again returns null
// (its nested retry loops share one thread-local RetryLoop, and the inner
// one marks it complete).
//
// Such a proposal never left this server, so its outcome is known and it
// can safely wait: it is held, in order with the proposals after it, until
// a leader can be reached, for at most holdFor, and fails with ErrNotLeader
// after that (the server then closes the connection, as before).

// heldPollInterval is how often held proposals retry reaching a leader,
// besides when one becomes known; a dead leader Raft still names is only
// found gone by dialling it.
const heldPollInterval = 20 * time.Millisecond

// heldProposals are the proposals waiting for a leader, oldest first.
type heldProposals struct {
	queue    []heldProposal
	flushing bool // a flushHeld goroutine runs
}

// heldProposal is a proposal held, or sent and not yet answered (then
// order is when it was sent).
type heldProposal struct {
	seq      uint64
	payload  []byte
	deadline time.Time
	order    uint64
}

// holdFor is how long a proposal waits for a leader: three election
// timeouts as configured (Raft's current ones are shortened while the
// leader is suspected), time for a dead leader to be noticed and replaced.
// A ZooKeeper follower without a leader drops its clients about as soon
// (see server/leadership.go).
func (c *forwardClient) holdFor() time.Duration {
	if t := c.n.timeouts; t != nil {
		return 3 * t.base.ElectionTimeout
	}
	return 3 * c.n.raft.ReloadableConfig().ElectionTimeout
}

// propose forwards an encoded command; its waiter hears of failures. A
// proposal that finds no leader to send to is held (see above), as is any
// proposal behind a held one, so that a session's writes keep their order.
func (c *forwardClient) propose(seq uint64, cmd []byte) error {
	var e wire.Encoder
	e.Int(fwdPropose)
	e.Long(int64(seq))
	e.Buffer(cmd)
	payload := e.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.held.queue) == 0 {
		sent, err := c.sendLocked(payload, c.registerLocked(heldProposal{seq: seq, payload: payload}))
		if sent || !errors.Is(err, ErrNotLeader) {
			return err
		}
	}
	c.held.queue = append(c.held.queue, heldProposal{seq: seq, payload: payload, deadline: time.Now().Add(c.holdFor())})
	c.startFlushLocked()
	return nil
}

// startFlushLocked starts flushHeld unless it runs.
func (c *forwardClient) startFlushLocked() {
	if !c.held.flushing {
		c.held.flushing = true
		c.wg.Add(1)
		go c.flushHeld()
	}
}

// flushHeld sends the held proposals, in order, once a leader can be
// reached, and fails those that waited too long.
func (c *forwardClient) flushHeld() {
	defer c.wg.Done()
	for {
		c.mu.Lock()
		done := c.flushHeldLocked(time.Now())
		if done {
			c.held.flushing = false
		}
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-c.n.leaderKnown.wait():
		case <-time.After(heldPollInterval):
		}
	}
}

// flushHeldLocked sends what it can and reports whether nothing is held.
// When the oldest can still not be sent after holdFor, all of them fail,
// so that none is applied after an older one failed.
func (c *forwardClient) flushHeldLocked(now time.Time) bool {
	for len(c.held.queue) > 0 {
		h := c.held.queue[0]
		err := ErrShutdown
		if !c.closed {
			var sent bool
			if sent, err = c.sendLocked(h.payload, c.registerLocked(h)); sent {
				// A failure from here on reaches the waiter via inflight.
				c.held.queue = c.held.queue[1:]
				continue
			}
			if errors.Is(err, ErrNotLeader) && !now.After(h.deadline) {
				return false // no leader yet: keep it, and all behind it
			}
		}
		for _, h := range c.held.queue {
			c.n.fsm.waiters.deliver(h.seq, outcome{err: err})
		}
		c.held.queue = nil
	}
	c.held.queue = nil
	return true
}

// registerLocked returns the function that notes a proposal as sent. One
// sent straight away gets its deadline now, should it be refused.
func (c *forwardClient) registerLocked(h heldProposal) func() {
	return func() {
		if h.deadline.IsZero() {
			h.deadline = time.Now().Add(c.holdFor())
		}
		c.sent++
		h.order = c.sent
		c.inflight[h.seq] = h
		c.n.trace.forwardSent(h.seq)
	}
}

// holdRefusedLocked handles a fwdRefused result: the server this follower
// took for the leader is not (e.g. the dead leader's process, restarted at
// once). That server refuses every proposal after the refused one on this
// connection too, and answered every earlier one before it, so all those
// still in flight reached no Raft log: they go back to the front of the
// held ones, in the order they were sent, and the connection is dropped.
// Each waits holdFor in all: once one of them waited that long, they all
// fail (dropLocked), so that none is applied after an older one failed.
func (c *forwardClient) holdRefusedLocked() {
	back := make([]heldProposal, 0, len(c.inflight))
	now := time.Now()
	for _, h := range c.inflight {
		if now.After(h.deadline) {
			c.dropLocked(ErrNotLeader)
			return
		}
		back = append(back, h)
	}
	c.refusedBy, c.refusedAt = c.leader, now
	slices.SortFunc(back, func(a, b heldProposal) int { return cmp.Compare(a.order, b.order) })
	c.held.queue = append(back, c.held.queue...)
	clear(c.inflight)
	c.dropLocked(ErrNotLeader)
	c.startFlushLocked()
}

// waitForOldLeaderLocked reports whether a proposal must be held rather
// than sent to id, the leader Raft names now:
//
//   - id refused proposals less than heldPollInterval ago (Raft on this
//     server still names a restarted process that does not lead): asking
//     again at once would only spin;
//   - proposals are still in flight on the connection to the previous
//     leader. Dropping it would fail them with an unknown outcome, and the
//     client connections with them, though the old leader may yet refuse
//     them (then they are resent, in order) or commit them. Proposals
//     behind them wait, so that none overtakes an older one. The old
//     connection is given holdFor to answer; after that it is dropped.
func (c *forwardClient) waitForOldLeaderLocked(id raft.ServerID) bool {
	now := time.Now()
	if id == c.refusedBy && now.Sub(c.refusedAt) < heldPollInterval {
		return true
	}
	if c.conn == nil || len(c.inflight) == 0 {
		c.retiring = time.Time{}
		return false
	}
	if c.retiring.IsZero() {
		c.retiring = now
	}
	if now.Sub(c.retiring) < c.holdFor() {
		return true
	}
	c.retiring = time.Time{}
	return false
}
