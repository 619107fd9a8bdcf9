package consensus

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/raft"
)

// Zxid rollover. A zxid is term<<32 | counter, the counter numbering the
// commands applied in that term from 1 (fsm.nextZxid). After 2^32 of them
// in one term the counter would wrap to 0 and zxids would go backwards,
// which watches, clients' lastZxidSeen checks, sync and fencing tokens
// cannot survive. Apache ZooKeeper's leader, when the low half of the next
// zxid would be all ones, shuts down and an election starts a new epoch.
// zkraft does the same in two layers:
//
//   - The leader's gate (admit). Once the counter of the leader's term, as
//     applied here, reaches rolloverAt, the leader appends no more
//     commands and starts a new term (newTerm): it hands leadership to a
//     follower (Raft's leadership transfer), or, with no other voter (a
//     standalone server), makes itself stand for election at once, which
//     a single voter wins in term+1. Either way zxids continue at
//     (term+1)<<32 | 1. Meanwhile no write is lost: followers' forwarded
//     proposals are refused (fwdRefused), so the followers hold them and
//     send them to the next leader (forwardhold.go); the leader's own are
//     forwarded and held the same way; a standalone server's wait (at
//     most newTermWait, then they fail with ErrNewTerm, which the server
//     turns into a lost connection, as at a leader change).
//
//   - The FSM's guard. Commands of the old term may still be committed
//     after the gate closed: those already appended, and any a racing
//     proposal got in. They are applied as usual while the counter lasts;
//     one that finds the counter at maxCounter is applied as nothing: it
//     gets no zxid, changes no state, fires no watch, and its proposer
//     gets ErrTermExhausted (a lost connection to the client). Every
//     replica applies the same log with the same counter, so every replica
//     skips the same entries, and no replica ever assigns a wrapped zxid,
//     whatever the headroom. The headroom (a million commands, far more
//     than the proposals a leader can have in flight: each connection
//     queues at most 128) only makes that guard a last resort.

// maxCounter is the last counter a term's zxids may carry.
const maxCounter = math.MaxUint32

// rolloverHeadroom is how many counters the gate leaves unused for the
// commands already in flight when it closes.
const rolloverHeadroom = 1 << 20

// rolloverAt is the counter at which the leader stops appending commands
// and starts a new term.
const rolloverAt = maxCounter - rolloverHeadroom

// ErrNewTerm is returned for a proposal the leader refuses while it starts
// a new term because its zxid counter nears its end (see above). It is an
// ErrNotLeader: the proposal never reached the log, and the next leader
// takes it.
var ErrNewTerm = fmt.Errorf("%w: starting a new term before the zxid counter runs out", ErrNotLeader)

// ErrTermExhausted is the outcome of a command committed after its term's
// zxid counter ran out: it was applied as nothing, on every replica.
var ErrTermExhausted = errors.New("consensus: the term's zxid counter ran out; the command was not applied")

// admit returns nil when this node, as leader, may append another command,
// else ErrNewTerm, having started the new term.
func (n *Node) admit() error {
	used := n.fsm.used.Load()
	term := n.raft.CurrentTerm()
	if used>>32 != term || uint32(used) < rolloverAt {
		return nil
	}
	n.rollOver(term)
	return ErrNewTerm
}

// rollOver starts a new term, once for term.
func (n *Node) rollOver(term uint64) {
	for {
		prev := n.rolledOver.Load()
		if prev >= term {
			return
		}
		if n.rolledOver.CompareAndSwap(prev, term) {
			break
		}
	}
	if n.raft.State() == raft.Shutdown {
		return // closing: Close may be waiting for background already
	}
	if n.log != nil {
		n.log.Warn("zxid counter of this term nears its end: holding writes and starting a new term",
			"epoch", term, "counter", fmt.Sprintf("0x%x", uint32(n.fsm.used.Load())))
	}
	n.background.Add(1)
	go func() {
		defer n.background.Done()
		n.newTerm(term)
	}()
}

// newTermWait bounds how long a standalone node's proposal waits for the
// new term; it is won in a millisecond or two.
const newTermWait = time.Second

// awaitNewTerm waits until this node leads in a term after the one it
// rolled over from, then admits the proposal there; ErrNewTerm if that
// takes longer than newTermWait.
func (n *Node) awaitNewTerm() error {
	old := n.rolledOver.Load()
	deadline := time.Now().Add(newTermWait)
	for time.Now().Before(deadline) && n.raft.State() != raft.Shutdown {
		if n.raft.CurrentTerm() > old && n.IsLeader() {
			return n.admit()
		}
		time.Sleep(time.Millisecond)
	}
	return ErrNewTerm
}

// newTermRetry is how long newTerm waits before trying again.
const newTermRetry = 20 * time.Millisecond

// newTerm makes the ensemble leave term: it tries until this node no
// longer leads in term, or shuts down.
func (n *Node) newTerm(term uint64) {
	for n.raft.CurrentTerm() == term && n.IsLeader() {
		var err error
		if n.fwdCli != nil {
			err = n.raft.LeadershipTransfer().Error()
		}
		if n.fwdCli == nil || err != nil {
			// No follower to take over (a standalone server, or one
			// voter with observers), or none could: stand for election.
			err = n.electSelf()
		}
		if err != nil && n.log != nil {
			n.log.Warn("starting a new term failed; trying again", "epoch", term, "err", err)
		}
		time.Sleep(newTermRetry) // a poll: Raft's LeaderCh belongs to the server
	}
}

// electSelf sends this node Raft's TimeoutNow, the message a leader sends
// the follower it hands over to: the node stops leading and stands for
// election in the next term, without the pre-vote; a single voter wins it
// at once, and in an ensemble the other voters grant it their votes when
// its log is the most complete.
func (n *Node) electSelf() error {
	addr, id := n.raft.LeaderWithID()
	if id != n.self {
		return ErrNotLeading
	}
	trans := n.transport
	if in, ok := trans.(*raft.InmemTransport); ok {
		// A standalone node's in-memory transport reaches only the
		// transports connected to it: send from one of our own.
		_, kick := raft.NewInmemTransport("")
		defer kick.Close()
		kick.Connect(addr, in)
		trans = kick
	}
	req := &raft.TimeoutNowRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax,
		ID: []byte(n.self), Addr: []byte(addr)}}
	return trans.TimeoutNow(n.self, addr, req, &raft.TimeoutNowResponse{})
}

// noteExhausted logs, once per term, that an entry of a term whose
// counter ran out was applied as nothing; the caller holds mu.
func (f *fsm) noteExhausted(l *raft.Log) {
	if f.exhaustedTerm == l.Term {
		return
	}
	f.exhaustedTerm = l.Term
	if f.log != nil {
		f.log.Error("zxid counter of this term ran out: its later entries are applied as nothing, and their writes fail",
			"epoch", l.Term, "index", l.Index)
	}
}
