package consensus

import (
	"context"
	"sync"
	"time"
)

// outcome is what a proposal's waiter receives: the local apply, or why
// the proposal will never be applied here on its behalf.
type outcome struct {
	applied *Applied
	err     error
}

// waitRegistry pairs proposals with their local apply, by sequence number
// (etcd's wait.Wait). Sequence numbers start from the clock so that an old
// entry replayed after a restart never matches a new proposal.
type waitRegistry struct {
	mu  sync.Mutex
	seq uint64
	m   map[uint64]chan outcome
}

func newWaitRegistry() *waitRegistry {
	return &waitRegistry{seq: uint64(time.Now().UnixNano()), m: make(map[uint64]chan outcome)}
}

func (w *waitRegistry) register() (uint64, chan outcome) {
	ch := make(chan outcome, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	w.m[w.seq] = ch
	return w.seq, ch
}

// deliver hands o to the waiter of seq, if it is still waiting.
func (w *waitRegistry) deliver(seq uint64, o outcome) {
	w.mu.Lock()
	ch := w.m[seq]
	delete(w.m, seq)
	w.mu.Unlock()
	if ch != nil {
		ch <- o
	}
}

// cancel forgets the waiter of seq.
func (w *waitRegistry) cancel(seq uint64) {
	w.mu.Lock()
	delete(w.m, seq)
	w.mu.Unlock()
}

// failAll ends every wait with err (the node shuts down).
func (w *waitRegistry) failAll(err error) {
	w.mu.Lock()
	m := w.m
	w.m = make(map[uint64]chan outcome)
	w.mu.Unlock()
	for _, ch := range m {
		ch <- outcome{err: err}
	}
}

// appliedSignal wakes waiters whenever the FSM applies an entry.
type appliedSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newAppliedSignal() *appliedSignal { return &appliedSignal{ch: make(chan struct{})} }

func (s *appliedSignal) notify() {
	s.mu.Lock()
	close(s.ch)
	s.ch = make(chan struct{})
	s.mu.Unlock()
}

func (s *appliedSignal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// waitApplied blocks until applied() reaches index. Raft's own entries
// (no-ops, configuration) advance the index without reaching the FSM, so
// the wait also rechecks on a short timer.
func waitApplied(ctx context.Context, sig *appliedSignal, applied func() uint64, index uint64) error {
	for applied() < index {
		select {
		case <-sig.wait():
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
