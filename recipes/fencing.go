package recipes

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// This file gives each recipe that grants something exclusive or bounded
// its fencing token and its guarded writes. docs/recipes.md explains what
// the tokens promise recipe by recipe.

// Token returns the fencing token of the held lock: the czxid of its lock
// node. Successive holders of a lock directory get strictly increasing
// tokens (a holder's node is the lowest in the line, and every node that
// can hold after it was created after it). It returns ErrNotHeld if the
// lock is not held and ErrSessionLost if the hold has been reported lost.
// Reentrant holds share one token.
func (l *Lock) Token(ctx context.Context) (Token, error) {
	g, err := l.ref()
	if err != nil {
		return 0, err
	}
	return g.token(ctx)
}

// GuardedMulti runs ops (*zk.CreateRequest, *zk.SetDataRequest,
// *zk.DeleteRequest, *zk.CheckVersionRequest) as one multi that first
// checks that the lock node exists, so they run only if the lock is still
// held when the server applies them, whatever this client believes. It
// returns one result per op. A lost lock (the session expired, or the node
// was deleted) gives an error wrapping ErrGrantLost, and then nothing
// changed; a failing op gives that op's error, and nothing changed either;
// a lost reply gives zk.ErrConnectionClosed, and the ops may or may not
// have run. It returns ErrNotHeld at once if the lock is not held.
//
// ctx is unused today (go-zookeeper's requests take none); the parameter
// keeps the signature in line with the other calls.
func (l *Lock) GuardedMulti(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	g, err := l.ref()
	if err != nil {
		return nil, err
	}
	return g.multi(ops)
}

func (l *Lock) ref() (grantRef, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.h.ref(l.conn)
}

// Token returns the fencing token of the held side, read or write: the
// czxid of its node. Readers and writers share one line, so a write grant's
// token is larger than that of every grant (read or write) held before it
// and smaller than that of every grant held after it. Read grants held at
// the same time are not ordered by their tokens: a resource should refuse
// a reader only once a later writer has been accepted (Fence.Check), never
// because another reader has a larger token. It returns ErrNotHeld if
// neither side is held and ErrSessionLost if the hold has been reported
// lost.
func (l *RWLock) Token(ctx context.Context) (Token, error) {
	g, err := l.ref()
	if err != nil {
		return 0, err
	}
	return g.token(ctx)
}

// GuardedMulti runs ops as one multi that first checks the node of the
// held side (read or write); see Lock.GuardedMulti.
func (l *RWLock) GuardedMulti(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	g, err := l.ref()
	if err != nil {
		return nil, err
	}
	return g.multi(ops)
}

func (l *RWLock) ref() (grantRef, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.read.held() {
		return l.read.ref(l.conn)
	}
	return l.write.ref(l.conn)
}

// Token returns the lease's fencing token: the czxid of its node. Leases
// are granted in the order their nodes were created, so a lease granted
// after another has a larger token; but up to N leases are held at once,
// and a lease with a smaller token may still be held, so a single
// highest-wins Fence cannot guard a resource that all holders write (see
// docs/recipes.md). It returns ErrNotHeld once released and ErrSessionLost
// if the lease has been reported lost.
func (l *Lease) Token(ctx context.Context) (Token, error) {
	g, err := l.ref()
	if err != nil {
		return 0, err
	}
	return g.token(ctx)
}

// GuardedMulti runs ops as one multi that first checks the lease's node,
// so they run only while the lease is held; see Lock.GuardedMulti.
func (l *Lease) GuardedMulti(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	g, err := l.ref()
	if err != nil {
		return nil, err
	}
	return g.multi(ops)
}

func (l *Lease) ref() (grantRef, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold == nil {
		return grantRef{}, ErrNotHeld
	}
	return grantRef{conn: l.conn, node: l.node, watch: l.hold}, nil
}

// Token returns the leader's fencing token: the czxid of its candidate
// node. Successive leaders of an election get strictly increasing tokens,
// as with Lock. It returns ErrNotHeld if this candidate does not lead and
// ErrSessionLost if it has been reported to have lost leadership.
func (e *Election) Token(ctx context.Context) (Token, error) {
	g, err := e.ref()
	if err != nil {
		return 0, err
	}
	return g.token(ctx)
}

// GuardedMulti runs ops as one multi that first checks the leader's node,
// so they run only while this candidate leads; see Lock.GuardedMulti.
func (e *Election) GuardedMulti(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	g, err := e.ref()
	if err != nil {
		return nil, err
	}
	return g.multi(ops)
}

func (e *Election) ref() (grantRef, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.h.ref(e.conn)
}

// Token returns the fencing token of the held lock; see Lock.Token. A
// revocation request does not change it.
func (r *RevocableLock) Token(ctx context.Context) (Token, error) { return r.lock.Token(ctx) }

// GuardedMulti runs ops only while the lock is held; see
// Lock.GuardedMulti. A revocation request does not make it fail: only
// the loss of the lock does.
func (r *RevocableLock) GuardedMulti(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	return r.lock.GuardedMulti(ctx, ops...)
}
