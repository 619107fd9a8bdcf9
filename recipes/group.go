package recipes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Membership is one member's place in a group: an ephemeral node
// dir/<member> holding the member's data, there for as long as the member
// is (ZooKeeper's group membership recipe, kazoo's Party).
//
// Member nodes are plainly named, not protected: the node's name is the
// member's name, which Members lists as is, and two live members cannot
// share a name. A create whose reply was lost is still recognised, by the
// node's ephemeral owner being this client's session.
type Membership struct {
	conn *zk.Conn
	node string

	mu   sync.Mutex
	hold *holdWatch // nil once left
}

// JoinGroup adds member to the group in dir (created if missing) with
// data, which others can read with MemberData. It fails with
// zk.ErrNodeExists if a member of that name is already in the group, for
// instance a crashed earlier incarnation whose session has not expired yet.
// Options: WithACL.
func JoinGroup(ctx context.Context, conn *zk.Conn, dir, member string, data []byte, opts ...Option) (*Membership, error) {
	if err := validNodeName(member); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	node := path.Join(dir, member)
	if err := createOwnedEphemeral(ctx, conn, node, data, o.acl); err != nil {
		return nil, err
	}
	return &Membership{conn: conn, node: node, hold: watchHold(conn, node)}, nil
}

// Leave removes the member from the group. It returns ErrNotHeld if it
// already left, and ErrSessionLost if its node had vanished meanwhile (see
// Lost).
func (m *Membership) Leave(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hold == nil {
		return ErrNotHeld
	}
	lost := m.hold.lost
	m.hold.release()
	m.hold = nil
	select {
	case <-lost:
		// Not ours any more: the name may already belong to someone else.
		return ErrSessionLost
	default:
	}
	return deleteNode(ctx, m.conn, m.node)
}

// Lost returns a channel closed if the member drops out of the group
// without leaving: its session expired (as soon as the client learns it),
// the client was closed, or someone deleted its node. It returns nil after
// Leave.
func (m *Membership) Lost() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hold == nil {
		return nil
	}
	return m.hold.lost
}

// Path returns the member's node.
func (m *Membership) Path() string { return m.node }

// Members returns the names of the group's members, sorted; none if dir
// does not exist.
func Members(ctx context.Context, conn *zk.Conn, dir string) ([]string, error) {
	kids, err := children(ctx, conn, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(kids)
	return kids, nil
}

// MemberData returns the data member joined with, or zk.ErrNoNode if it
// is not in the group.
func MemberData(ctx context.Context, conn *zk.Conn, dir, member string) ([]byte, error) {
	for {
		data, _, err := conn.Get(path.Join(dir, member))
		if !retryable(err) {
			return data, err
		}
		if err := pause(ctx, conn); err != nil {
			return nil, err
		}
	}
}

// WatchMembers is a live view of the group: it sends the sorted member
// names at once and again after every change, until ctx ends or the client
// is closed, and then closes the channel. A reader that falls behind gets
// the latest list, not every intermediate one. The view survives
// connection losses and session expiry, and a group dir that does not
// exist yet (no members) or is deleted.
func WatchMembers(ctx context.Context, conn *zk.Conn, dir string) <-chan []string {
	return liveView(ctx, conn, func() ([]string, <-chan zk.Event, error) {
		kids, ch, err := viewChildrenW(conn, dir)
		slices.Sort(kids)
		return kids, ch, err
	}, slices.Equal[[]string])
}

// validNodeName rejects member and instance names that are not one path
// element.
func validNodeName(name string) error {
	if name == "" || name == "." || name == ".." || path.Base(name) != name {
		return fmt.Errorf("recipes: invalid name %q: %w", name, zk.ErrInvalidPath)
	}
	return nil
}

// createOwnedEphemeral creates the ephemeral node p (not sequential),
// creating missing parents. A create retried after a lost reply that finds
// p owned by this client's session takes it as its own; any other existing
// p is zk.ErrNodeExists. It retries through connection losses and session
// expiry (the node then belongs to the new session), and returns
// zk.ErrClosing once the client is closed.
func createOwnedEphemeral(ctx context.Context, conn *zk.Conn, p string, data []byte, acl []zk.ACL) error {
	retried := false
	r := retrier{conn: conn}
	for {
		_, err := conn.Create(p, data, zk.FlagEphemeral, acl)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, conn, path.Dir(p), acl); err != nil {
				return err
			}
			continue
		case errors.Is(err, zk.ErrNodeExists):
			if !retried {
				return err
			}
			ok, st, xerr := conn.Exists(p)
			switch {
			case xerr != nil:
				err = xerr
			case ok && st.EphemeralOwner == conn.SessionID():
				return nil // our earlier create did happen
			case ok:
				return zk.ErrNodeExists
			default:
				continue // gone again: try once more
			}
		}
		retried = true
		if err := r.retry(ctx, err); err != nil {
			return err
		}
	}
}

// removeNode deletes a node this client created and no longer wants,
// retrying through connection losses until it is gone or the client is
// closed (its session then ends, and the node with it).
func removeNode(conn *zk.Conn, p string) {
	r := retrier{conn: conn}
	for {
		err := conn.Delete(p, -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) || r.retry(context.Background(), err) != nil {
			return
		}
	}
}

// viewChildrenW lists dir and watches it; if dir does not exist it returns no
// children and a watch on dir's creation.
func viewChildrenW(conn *zk.Conn, dir string) ([]string, <-chan zk.Event, error) {
	for {
		kids, _, ch, err := conn.ChildrenW(dir)
		if !errors.Is(err, zk.ErrNoNode) {
			return kids, ch, err
		}
		ok, _, ch, err := conn.ExistsW(dir)
		if err != nil || !ok {
			return nil, ch, err
		}
		// Created in between: list it.
	}
}

// liveView runs fetch, sends its value on the returned channel, and runs
// it again each time the watch fetch armed fires, sending each value that
// differs from the last one sent. Sending never holds up watching: a slow
// reader gets the latest value. Transient errors are retried; the channel
// is closed when ctx ends, when the client is closed, or on any other
// error.
func liveView[T any](ctx context.Context, conn *zk.Conn, fetch func() (T, <-chan zk.Event, error), equal func(a, b T) bool) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		var last, pending T
		sent, has := false, false
		r := retrier{conn: conn}
		for {
			v, watch, err := fetch()
			if err != nil {
				if r.retry(ctx, err) != nil {
					return
				}
				continue
			}
			r.reset()
			pending, has = v, !sent || !equal(v, last)
		wait:
			for {
				var send chan<- T
				if has {
					send = out
				}
				select {
				case send <- pending:
					last, sent, has = pending, true, false
				case ev := <-watch:
					if ev.Type == zk.EventNotWatching && errors.Is(ev.Err, zk.ErrClosing) {
						return
					}
					break wait // changed, or session expired: look again
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}
