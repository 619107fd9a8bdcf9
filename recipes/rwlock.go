package recipes

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Node names of a read/write lock ("read-0000000007" after the protected tag).
const (
	rwReadPrefix  = "read-"
	rwWritePrefix = "write-"
)

// RWLock is a shared read/write lock on a directory, interoperable among
// every client that uses the same directory (the recipe of Curator's
// InterProcessReadWriteLock and kazoo's ReadLock/WriteLock).
//
// Each contender creates an ephemeral sequential node, "read-" or "write-",
// and the sequence numbers form one line:
//
//   - A reader holds the lock once no writer is ahead of it in the line. It
//     watches only the nearest writer ahead, so several readers hold at once
//     and a writer's release admits all the readers behind it up to the next
//     writer.
//   - A writer holds the lock once no node of either kind is ahead of it. It
//     watches only the node just ahead of it.
//
// A reader that arrives after a queued writer waits for that writer, so a
// steady flow of readers cannot starve writers.
//
// An RWLock value is one holder and holds one side at a time: RLock while it
// holds the read side (and Lock while it holds the write side) is reentrant,
// counting holds that the matching number of Unlocks release, but taking the
// other side returns ErrOtherSide until the held side is fully released
// (there is no upgrade or downgrade; use two values to hold both). It is safe
// for use by several goroutines, which then share the hold; acquisitions on
// one value run one at a time.
type RWLock struct {
	conn *zk.Conn
	dir  string
	opt  options

	acq         sync.Mutex // one acquisition at a time, of either side
	mu          sync.Mutex // guards the sides
	read, write rwSide
}

// rwSide is the state of one side of an RWLock.
type rwSide struct {
	prefix  string
	blocker blockerFunc
	heldNode
}

// NewRWLock returns a read/write lock on dir (created if missing).
func NewRWLock(conn *zk.Conn, dir string, opts ...Option) *RWLock {
	return &RWLock{
		conn:  conn,
		dir:   dir,
		opt:   buildOptions(opts),
		read:  rwSide{prefix: rwReadPrefix, blocker: rwReadBlocker},
		write: rwSide{prefix: rwWritePrefix, blocker: rwWriteBlocker},
	}
}

// rwReadBlocker makes a reader wait for the nearest writer ahead of it.
func rwReadBlocker(sorted []string, me int) string {
	for i := me - 1; i >= 0; i-- {
		if strings.HasPrefix(stripTag(sorted[i]), rwWritePrefix) {
			return sorted[i]
		}
	}
	return ""
}

// rwWriteBlocker makes a writer wait for the read or write node just ahead
// of it; other nodes in the directory are ignored.
func rwWriteBlocker(sorted []string, me int) string {
	for i := me - 1; i >= 0; i-- {
		n := stripTag(sorted[i])
		if strings.HasPrefix(n, rwReadPrefix) || strings.HasPrefix(n, rwWritePrefix) {
			return sorted[i]
		}
	}
	return ""
}

// RLock blocks until it holds the read side or ctx ends. On cancellation it
// removes its node and returns ctx.Err(); if its session expires while it
// waits, it returns ErrSessionLost.
func (l *RWLock) RLock(ctx context.Context) error {
	_, err := l.acquire(ctx, &l.read, &l.write, true)
	return err
}

// TryRLock takes the read side if no writer holds the lock or waits for it,
// and reports whether it did; it never waits.
func (l *RWLock) TryRLock(ctx context.Context) (bool, error) {
	return l.acquire(ctx, &l.read, &l.write, false)
}

// RUnlock releases one hold of the read side; the last one deletes the
// read node. It returns ErrNotHeld if the read side is not held and
// ErrSessionLost if it had been lost meanwhile (see Lost).
func (l *RWLock) RUnlock(ctx context.Context) error { return l.release(ctx, &l.read) }

// Lock blocks until it holds the write side, exclusively, or ctx ends. On
// cancellation it removes its node and returns ctx.Err(); if its session
// expires while it waits, it returns ErrSessionLost.
func (l *RWLock) Lock(ctx context.Context) error {
	_, err := l.acquire(ctx, &l.write, &l.read, true)
	return err
}

// TryLock takes the write side if no one holds the lock or waits for it,
// and reports whether it did; it never waits.
func (l *RWLock) TryLock(ctx context.Context) (bool, error) {
	return l.acquire(ctx, &l.write, &l.read, false)
}

// Unlock releases one hold of the write side; the last one deletes the
// write node, which admits the next writer or the readers queued behind
// it. It returns ErrNotHeld if the write side is not held and
// ErrSessionLost if it had been lost meanwhile (see Lost).
func (l *RWLock) Unlock(ctx context.Context) error { return l.release(ctx, &l.write) }

func (l *RWLock) acquire(ctx context.Context, side, other *rwSide, wait bool) (bool, error) {
	l.acq.Lock()
	defer l.acq.Unlock()
	if held, err := l.reenter(side, other); held || err != nil {
		return held, err
	}
	node, err := contend(ctx, l.conn, l.dir, side.prefix, l.opt, side.blocker, wait)
	if errors.Is(err, errNotYet) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	l.mu.Lock()
	side.take(l.conn, node)
	l.mu.Unlock()
	return true, nil
}

// reenter counts one more hold of side if it is held and not lost (a lost
// hold is forgotten so that the caller contends afresh); it fails with
// ErrOtherSide if the other side is held, lost or not, until it is released.
func (l *RWLock) reenter(side, other *rwSide) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if other.held() {
		return false, ErrOtherSide
	}
	side.forgetIfLost(l.conn)
	if !side.held() {
		return false, nil
	}
	side.count++
	return true, nil
}

func (l *RWLock) release(ctx context.Context, side *rwSide) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return side.heldNode.release(ctx, l.conn)
}

// Lost returns a channel closed if the held side (read or write) is lost
// while held: the session expired (as soon as the client learns it) or the
// node was deleted by someone else. It returns nil when nothing is held.
func (l *RWLock) Lost() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.read.held() {
		return l.read.lost()
	}
	return l.write.lost()
}

// Node returns the path of the held node (read or write), else "".
func (l *RWLock) Node() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.read.held() {
		return l.read.path
	}
	return l.write.path
}
