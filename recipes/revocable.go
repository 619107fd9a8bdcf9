package recipes

import (
	"context"
	"errors"
	"path"
	"sync"

	"github.com/go-zookeeper/zk"
)

// RevocableLock is an exclusive Lock whose holder can be asked to release
// it: another client calls Revoke on the same directory, and the holder
// learns it on Revoked and decides when to Unlock (the revocation pattern
// of Curator's Revoker). Revocation is cooperative; nothing is taken away
// from a holder that ignores it.
//
// Revoke rewrites the holder's node with its own data, which bumps the
// node's data version without changing what Holder reports; the holder
// keeps a data watch on its node and treats any version above 0 (the
// version of a fresh node) as a request to release. A request made before
// the holder armed its watch is therefore not missed.
//
// It uses the same nodes as Lock, so Locks and RevocableLocks on one
// directory exclude each other; a plain Lock just never hears a request.
// Like Lock, a RevocableLock value is one holder, reentrant and safe for use
// by several goroutines; a revocation applies to the hold as a whole.
type RevocableLock struct {
	lock *Lock

	acq   sync.Mutex // one Lock call at a time
	mu    sync.Mutex // guards watch
	watch *revokeWatch
}

// NewRevocableLock returns a revocable lock on dir (created if missing).
func NewRevocableLock(conn *zk.Conn, dir string, opts ...Option) *RevocableLock {
	return &RevocableLock{lock: NewLock(conn, dir, opts...)}
}

// Lock blocks until it holds the lock or ctx ends, like Lock.Lock. A fresh
// hold starts with an open Revoked channel.
func (r *RevocableLock) Lock(ctx context.Context) error {
	r.acq.Lock()
	defer r.acq.Unlock()
	if err := r.lock.Lock(ctx); err != nil {
		return err
	}
	r.watchNode()
	return nil
}

// TryLock takes the lock if no one holds it or waits for it, and reports
// whether it did, like Lock.TryLock.
func (r *RevocableLock) TryLock(ctx context.Context) (bool, error) {
	r.acq.Lock()
	defer r.acq.Unlock()
	ok, err := r.lock.TryLock(ctx)
	if ok {
		r.watchNode()
	}
	return ok, err
}

// watchNode starts watching the held node for revocation unless it already
// watches it (a reentrant hold).
func (r *RevocableLock) watchNode() {
	r.mu.Lock()
	defer r.mu.Unlock()
	node := r.lock.Node()
	if r.watch != nil && r.watch.node == node {
		return
	}
	if r.watch != nil {
		r.watch.stop()
		r.watch = nil
	}
	if node != "" {
		r.watch = watchRevoke(r.lock.conn, node)
	}
}

// Unlock releases one hold, like Lock.Unlock; the last one deletes the
// lock node and stops watching for revocation.
func (r *RevocableLock) Unlock(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.lock.Unlock(ctx)
	if r.watch != nil && r.lock.Node() != r.watch.node {
		r.watch.stop()
		r.watch = nil
	}
	return err
}

// Revoked returns a channel closed when someone asks, with Revoke, that
// the current hold be released. It returns nil when the lock is not held.
func (r *RevocableLock) Revoked() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watch == nil {
		return nil
	}
	return r.watch.revoked
}

// Lost returns a channel closed if the lock is lost while held, like
// Lock.Lost, or nil when it is not held.
func (r *RevocableLock) Lost() <-chan struct{} { return r.lock.Lost() }

// Node returns the path of the lock node while held, else "".
func (r *RevocableLock) Node() string { return r.lock.Node() }

// Revoke asks the current holder of the lock on dir to release it. It
// returns ErrNotHeld if no one holds the lock. It does not wait for the
// release (wait with Lock, or with an exists watch on the node); if the
// holder it found released the lock before the request reached it, the
// request is considered answered and Revoke returns nil.
func Revoke(ctx context.Context, conn *zk.Conn, dir string) error {
	kids, err := children(ctx, conn, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return ErrNotHeld
	}
	if err != nil {
		return err
	}
	kids = withPrefix(kids, lockPrefix)
	if len(kids) == 0 {
		return ErrNotHeld
	}
	sortBySequence(kids)
	node := path.Join(dir, kids[0])
	for {
		data, stat, err := conn.Get(node)
		if err == nil {
			_, err = conn.Set(node, data, stat.Version)
		}
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion):
			// Done, or the holder released meanwhile, or another request
			// (or a lost reply to ours) already bumped the version.
			return nil
		case !retryable(err):
			return err
		}
		if err := pause(ctx, conn); err != nil {
			return err
		}
	}
}

// revokeWatch closes revoked once the data version of the held node rises
// above 0. It ends when that happens, when the node goes (Lost reports
// that), or when stopped.
type revokeWatch struct {
	node    string
	revoked chan struct{}
	stopped chan struct{}
	done    chan struct{}
}

func watchRevoke(conn *zk.Conn, node string) *revokeWatch {
	w := &revokeWatch{node: node, revoked: make(chan struct{}), stopped: make(chan struct{}), done: make(chan struct{})}
	go w.run(conn)
	return w
}

func (w *revokeWatch) run(conn *zk.Conn) {
	defer close(w.done)
	for {
		_, stat, ch, err := conn.GetW(w.node)
		if retryable(err) {
			select {
			case <-w.stopped:
				return
			default:
			}
			if pause(context.Background(), conn) == nil {
				continue // a closed client ends the watch
			}
			return
		}
		if err != nil {
			return // the node is gone: the hold is lost, not revoked
		}
		if stat.Version > 0 {
			close(w.revoked)
			return
		}
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeDataChanged {
				return // deleted, expired or closed
			}
		case <-w.stopped:
			return
		}
	}
}

func (w *revokeWatch) stop() {
	close(w.stopped)
	<-w.done
}
