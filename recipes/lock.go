package recipes

import (
	"context"
	"errors"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Lock is an exclusive lock shared by every client that uses the same
// directory. Each contender creates an ephemeral sequential node in it; the
// lowest holds the lock, and every other watches only the node just ahead
// of it, so a release wakes exactly one waiter.
//
// A Lock value is one holder: it is reentrant (Lock while held counts, and
// the lock is freed by the matching number of Unlocks) and safe for use by
// several goroutines, which then share the hold.
type Lock struct {
	conn *zk.Conn
	dir  string
	opt  options

	acq sync.Mutex // one acquisition at a time
	mu  sync.Mutex // guards h
	h   heldNode
}

// NewLock returns a lock on dir (created if missing).
func NewLock(conn *zk.Conn, dir string, opts ...Option) *Lock {
	return &Lock{conn: conn, dir: dir, opt: buildOptions(opts)}
}

// lockPrefix names lock nodes ("lock-0000000007" after the protected tag).
const lockPrefix = "lock-"

// Lock blocks until it holds the lock or ctx ends. On cancellation it
// removes its node and returns ctx.Err(); if its session expires while it
// waits, it returns ErrSessionLost.
func (l *Lock) Lock(ctx context.Context) error {
	_, err := l.acquire(ctx, true)
	return err
}

// TryLock takes the lock if no one holds it or waits for it, and reports
// whether it did; it never waits for another holder.
func (l *Lock) TryLock(ctx context.Context) (bool, error) {
	return l.acquire(ctx, false)
}

func (l *Lock) acquire(ctx context.Context, wait bool) (bool, error) {
	l.acq.Lock()
	defer l.acq.Unlock()
	if l.reenter() {
		return true, nil
	}
	node, err := contend(ctx, l.conn, l.dir, lockPrefix, l.opt, predecessor, wait)
	if errors.Is(err, errNotYet) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	l.mu.Lock()
	l.h.take(l.conn, node)
	l.mu.Unlock()
	return true, nil
}

// reenter counts one more hold if the lock is held and not lost; a lost
// hold is forgotten so that the caller contends afresh.
func (l *Lock) reenter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.h.forgetIfLost(l.conn)
	if !l.h.held() {
		return false
	}
	l.h.count++
	return true
}

// Unlock releases one hold; the last one deletes the lock node, which
// wakes the next waiter. It returns ErrNotHeld if the lock is not held and
// ErrSessionLost if it had been lost meanwhile (see Lost).
func (l *Lock) Unlock(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.h.release(ctx, l.conn)
}

// Lost returns a channel closed if the lock is lost while held: the
// session expired (as soon as the client learns it) or the node was
// deleted by someone else. It returns nil when the lock is not held.
func (l *Lock) Lost() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.h.lost()
}

// Node returns the path of the lock node while held, else "".
func (l *Lock) Node() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.h.path
}

// Holder returns the data of the node holding the lock in dir (what its
// holder passed WithData), or zk.ErrNoNode if no one holds it.
func Holder(ctx context.Context, conn *zk.Conn, dir string) ([]byte, error) {
	kids, err := children(ctx, conn, dir)
	if err != nil {
		return nil, err
	}
	kids = withPrefix(kids, lockPrefix)
	if len(kids) == 0 {
		return nil, zk.ErrNoNode
	}
	sortBySequence(kids)
	data, _, err := conn.Get(dir + "/" + kids[0])
	return data, err
}
