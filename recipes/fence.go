package recipes

import (
	"fmt"
	"sync"
)

// Fence guards a resource outside ZooKeeper (a file, a database row, an
// HTTP service) against holders that lost their grant but do not know it
// yet. It remembers the highest Token it has accepted and refuses any
// older one with ErrStaleToken: once the next holder has written with its
// larger token, a paused holder that wakes up can no longer write.
//
// Put the Fence in the resource, not in the client: the check and the
// write it guards must happen in one place, one after the other, with no
// other write in between (Do holds the Fence's lock while the write runs).
//
// A Fence fits a resource written by the holders of one exclusive grant: a
// Lock, the write side of an RWLock, an Election's leader. Readers of an
// RWLock share their grant and should call Check, which refuses tokens
// older than the last writer's without raising the mark. Semaphore leases
// are held by several clients at once, so one mark cannot tell a stale
// lease from a live one with a smaller token: see docs/recipes.md.
//
// A Fence lives in memory: a restarted one forgets its mark and would
// accept a stale token again, unless it is rebuilt with NewFence from a
// mark stored with the resource's data (written in the same atomic step as
// the data, as the file example does). The zero value is a Fence that has
// accepted nothing. A Fence is safe for use by several goroutines.
type Fence struct {
	mu   sync.Mutex
	high Token
}

// NewFence returns a Fence that has already accepted high, e.g. a mark
// read back from where the resource stores its data.
func NewFence(high Token) *Fence { return &Fence{high: high} }

// Do runs write if t is at least the highest token accepted so far, and
// raises the mark to t first; otherwise it returns ErrStaleToken (or
// ErrInvalidToken for a token that is not positive) and write does not
// run. The mark stays raised even if write fails: a holder with token t
// exists, so every older one is stale. No other Do, Accept or Check runs
// while write does.
func (f *Fence) Do(t Token, write func() error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.admit(t); err != nil {
		return err
	}
	f.high = t
	return write()
}

// Accept raises the mark to t if t is at least the highest token accepted
// so far, else returns ErrStaleToken. A new holder can call it before its
// first write to shut out its predecessors at once.
func (f *Fence) Accept(t Token) error {
	return f.Do(t, func() error { return nil })
}

// Check returns nil if t is at least the highest token accepted so far,
// without raising the mark: for the readers of an RWLock, who share their
// grant, and must only be refused once a later writer has been accepted.
func (f *Fence) Check(t Token) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.admit(t)
}

// High returns the highest token accepted so far (0 if none).
func (f *Fence) High() Token {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.high
}

// admit checks t against the mark; f.mu must be held.
func (f *Fence) admit(t Token) error {
	if t <= 0 {
		return fmt.Errorf("%w: %d", ErrInvalidToken, int64(t))
	}
	if t < f.high {
		return fmt.Errorf("%w: %v < %v", ErrStaleToken, t, f.high)
	}
	return nil
}
