package recipes

import (
	"context"
	"errors"
	"path"

	"github.com/go-zookeeper/zk"
)

// Barrier holds every client that waits on it until someone removes it. It
// is one persistent node: Set creates it, Remove deletes it, and Wait
// blocks while it exists (the ZooKeeper "Barriers" recipe; Curator's
// DistributedBarrier).
//
// The node is persistent, so the barrier outlives the session of whoever
// set it; a waiter whose own session expires keeps waiting with the new
// session its client gets.
type Barrier struct {
	conn *zk.Conn
	path string
	opt  options
}

// NewBarrier returns a barrier on the node at path. WithData sets the
// data Set stores in the node, WithACL its ACL.
func NewBarrier(conn *zk.Conn, path string, opts ...Option) *Barrier {
	return &Barrier{conn: conn, path: path, opt: buildOptions(opts)}
}

// Set raises the barrier: it creates its node (and missing parents). A
// barrier already set is not an error.
func (b *Barrier) Set(ctx context.Context) error {
	for {
		_, err := b.conn.Create(b.path, b.opt.data, 0, b.opt.acl)
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			// ErrNodeExists after a lost reply is our own create.
			return nil
		case errors.Is(err, zk.ErrNoNode): // missing parents
			if err := ensurePath(ctx, b.conn, path.Dir(b.path), b.opt.acl); err != nil {
				return err
			}
			continue
		case !retryable(err):
			return err
		}
		if err := pause(ctx, b.conn); err != nil {
			return err
		}
	}
}

// Remove lowers the barrier, releasing every waiter. A barrier not set is
// not an error.
func (b *Barrier) Remove(ctx context.Context) error {
	return deleteNode(ctx, b.conn, b.path)
}

// IsSet reports whether the barrier is up.
func (b *Barrier) IsSet(ctx context.Context) (bool, error) {
	for {
		ok, _, err := b.conn.Exists(b.path)
		if !retryable(err) {
			return ok, err
		}
		if err := pause(ctx, b.conn); err != nil {
			return false, err
		}
	}
}

// Wait blocks until the barrier is not set (at once if it is not) or ctx
// ends. It waits on an exists watch on the barrier node. A session expiry
// while waiting does not end it: it watches again with the new session.
func (b *Barrier) Wait(ctx context.Context) error {
	for {
		ok, ch, err := barrierExistsW(ctx, b.conn, b.path)
		if err != nil || !ok {
			return err
		}
		if err := barrierAwait(ctx, ch); err != nil {
			return err
		}
	}
}

// barrierExistsW sets an exists watch on p, retrying after a connection loss.
func barrierExistsW(ctx context.Context, conn *zk.Conn, p string) (bool, <-chan zk.Event, error) {
	for {
		ok, _, ch, err := conn.ExistsW(p)
		if !retryable(err) {
			return ok, ch, err
		}
		if err := pause(ctx, conn); err != nil {
			return false, nil, err
		}
	}
}

// barrierAwait waits for one event on a watch channel, or for ctx. Whatever
// the event (a change, or the watch ended by a session expiry), the caller
// looks again; a closed client then fails that next look.
func barrierAwait(ctx context.Context, ch <-chan zk.Event) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
