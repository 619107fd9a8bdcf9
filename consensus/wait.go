package consensus

import (
	"context"
	"sync"
	"time"

	"github.com/zkraft/zkraft/metrics"
)

// outcome is what a proposal's waiter receives: the local apply, or why
// the proposal will never be applied here on its behalf.
type outcome struct {
	applied *Applied
	err     error
}

// waiter is one proposal waiting for its local apply.
type waiter struct {
	// cmd is the proposed command: when this server applies the entry it
	// uses cmd instead of decoding the log entry's bytes again (they are
	// cmd's encoding, so the result is the same).
	cmd *Command
	// ch receives the outcome, for proposals whose Future does not get it
	// from Raft's own future (forwarded to the leader); nil otherwise.
	ch chan outcome
}

// waitRegistry pairs proposals with their local apply, by sequence number
// (etcd's wait.Wait). Sequence numbers start from the clock so that an old
// entry replayed after a restart never matches a new proposal.
type waitRegistry struct {
	mu     sync.Mutex
	seq    uint64
	m      map[uint64]waiter
	closed bool // failAll ran: nothing registers any more
	// proposalLatency records, for the proposals this node appended as
	// leader, the time to their commit (proposal_latency); it lives here
	// rather than in each Future to keep a Future at 64 bytes.
	proposalLatency *metrics.Summary
}

func newWaitRegistry() *waitRegistry {
	return &waitRegistry{seq: uint64(time.Now().UnixNano()), m: make(map[uint64]waiter)}
}

// register records cmd under a new sequence number; withChan asks for a
// channel that receives the outcome. After failAll it records nothing and
// returns a nil channel.
func (w *waitRegistry) register(cmd *Command, withChan bool) (uint64, chan outcome, bool) {
	var ch chan outcome
	if withChan {
		ch = make(chan outcome, 1)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, nil, false
	}
	w.seq++
	w.m[w.seq] = waiter{cmd: cmd, ch: ch}
	return w.seq, ch, true
}

// take removes and returns the waiter of seq, if it is still waiting.
func (w *waitRegistry) take(seq uint64) (waiter, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt, ok := w.m[seq]
	if ok {
		delete(w.m, seq)
	}
	return wt, ok
}

// deliver hands o to the waiter of seq, if it is still waiting.
func (w *waitRegistry) deliver(seq uint64, o outcome) {
	if wt, ok := w.take(seq); ok {
		wt.send(o)
	}
}

// send hands o to the waiter's channel, if it has one.
func (wt waiter) send(o outcome) {
	if wt.ch != nil {
		wt.ch <- o
	}
}

// cancel forgets the waiter of seq.
func (w *waitRegistry) cancel(seq uint64) {
	w.mu.Lock()
	delete(w.m, seq)
	w.mu.Unlock()
}

// failAll ends every wait with err and refuses later registrations (the
// node shuts down).
func (w *waitRegistry) failAll(err error) {
	w.mu.Lock()
	m := w.m
	w.m = make(map[uint64]waiter)
	w.closed = true
	w.mu.Unlock()
	for _, wt := range m {
		wt.send(outcome{err: err})
	}
}

// appliedSignal wakes waiters whenever the FSM applies entries (and, as
// Node.leaderKnown, whenever a leader becomes known). A new
// channel is made only after someone took the current one, so applies
// that nobody waits for cost a lock and no allocation.
type appliedSignal struct {
	mu    sync.Mutex
	ch    chan struct{}
	taken bool // ch was handed to a waiter since it was made
}

func newAppliedSignal() *appliedSignal { return &appliedSignal{ch: make(chan struct{})} }

func (s *appliedSignal) notify() {
	s.mu.Lock()
	if s.taken {
		close(s.ch)
		s.ch, s.taken = make(chan struct{}), false
	}
	s.mu.Unlock()
}

func (s *appliedSignal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taken = true
	return s.ch
}

// waitApplied blocks until applied() reaches index, or alive() reports
// that nothing more will be applied. Raft's own entries (no-ops,
// configuration) advance the index without reaching the FSM, so the wait
// also rechecks on a short timer.
func waitApplied(ctx context.Context, sig *appliedSignal, applied func() uint64, index uint64, alive func() error) error {
	for applied() < index {
		if err := alive(); err != nil {
			return err
		}
		select {
		case <-sig.wait():
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
