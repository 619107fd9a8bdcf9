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

// semLeasePrefix names semaphore nodes ("lease-0000000007" after the
// protected tag).
const semLeasePrefix = "lease-"

// Semaphore hands out at most a fixed number of leases among every client
// that uses the same directory (the recipe of Curator's
// InterProcessSemaphoreV2 and kazoo's Semaphore).
//
// Each contender creates an ephemeral sequential "lease-" node; the nodes
// sorted by sequence form a line, and the rules are:
//
//   - The node at position i (from 0) holds a lease when i < N. Nodes only
//     join at the end of the line, so a node's position never grows: once
//     admitted it stays within the first N, and at most N nodes hold leases
//     at any moment, however many acquire concurrently.
//   - The first waiter, at position N, is admitted by the release of any of
//     the N holders, so it alone keeps a watch on the directory's children
//     (which also wakes it, to no effect, when a waiter joins the line).
//     Watching only the holder N places ahead would miss the release of
//     any other holder.
//   - Every later waiter watches only the node just ahead of it, and acts
//     when that node goes (released, cancelled or expired) or is admitted.
//     A node that is admitted while a node behind it exists rewrites its own
//     data, bumping its version, to wake that one waiter, which then becomes
//     the first waiter; a version above 0 tells a late watcher the same.
//
// So a release wakes the first waiter, whose admission wakes the next: no
// herd, whatever the length of the line. Waiters are admitted in order of
// arrival. Every client using a directory must agree on N.
type Semaphore struct {
	conn   *zk.Conn
	dir    string
	leases int
	opt    options
}

// NewSemaphore returns a semaphore with leases leases on dir (created if
// missing). Acquire fails if leases is below 1.
func NewSemaphore(conn *zk.Conn, dir string, leases int, opts ...Option) *Semaphore {
	return &Semaphore{conn: conn, dir: dir, leases: leases, opt: buildOptions(opts)}
}

// Acquire blocks until it holds a lease or ctx ends. On cancellation it
// removes its node and returns ctx.Err(); if its session expires while it
// waits, it returns ErrSessionLost.
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) {
	return s.acquire(ctx, true)
}

// TryAcquire takes a lease if one is free and no one waits for one; it
// never waits. It returns a nil Lease and a nil error when it got none.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) {
	return s.acquire(ctx, false)
}

func (s *Semaphore) acquire(ctx context.Context, wait bool) (*Lease, error) {
	if s.leases < 1 {
		return nil, fmt.Errorf("recipes: semaphore needs at least 1 lease, not %d", s.leases)
	}
	node, err := CreateProtected(ctx, s.conn, s.dir, semLeasePrefix, s.opt.data, zk.FlagEphemeral|zk.FlagSequence, s.opt.acl)
	if err != nil {
		return nil, err
	}
	if err := s.await(ctx, node, wait); err != nil {
		removeNode(s.conn, node)
		if errors.Is(err, errNotYet) {
			return nil, nil
		}
		return nil, err
	}
	h := watchHold(s.conn, node)
	return &Lease{conn: s.conn, node: node, hold: h, lost: h.lost}, nil
}

// await waits until node is within the first s.leases of the line (see
// Semaphore for the rules). With wait false it returns errNotYet instead
// of waiting.
func (s *Semaphore) await(ctx context.Context, node string, wait bool) error {
	name := path.Base(node)
	var listing []string // a fresh listing to decide on, if any
	var woken string     // predecessor and version already acted on
	for {
		kids := listing
		listing = nil
		if kids == nil {
			var err error
			if kids, err = children(ctx, s.conn, s.dir); err != nil {
				return err
			}
		}
		kids = withPrefix(kids, semLeasePrefix)
		sortBySequence(kids)
		me := slices.Index(kids, name)
		switch {
		case me < 0:
			return ErrSessionLost
		case me < s.leases:
			if me+1 < len(kids) {
				return s.wakeNext(ctx, node) // someone behind may watch us
			}
			return nil
		case !wait:
			return errNotYet
		case me == s.leases:
			// First in line: any holder's release admits us.
			kids, _, ch, err := s.conn.ChildrenW(s.dir)
			if retryable(err) {
				if err := pause(ctx, s.conn); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return err
			}
			if i := slices.Index(sortedLeases(kids), name); i != s.leases {
				listing = kids // the line moved: decide on this listing
				continue
			}
			select {
			case ev := <-ch:
				if err := watchLost(ev); err != nil {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		default:
			// Behind other waiters: watch only the one just ahead.
			pred := path.Join(s.dir, kids[me-1])
			ok, stat, ch, err := s.conn.ExistsW(pred)
			if retryable(err) {
				if err := pause(ctx, s.conn); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if stat.Version > 0 {
				// It has been admitted, perhaps before we watched it; act
				// on that once (a directory whose users disagree on the
				// number of leases must not make us spin).
				if key := fmt.Sprint(pred, "@", stat.Version); key != woken {
					woken = key
					continue
				}
			}
			select {
			case ev := <-ch:
				if err := watchLost(ev); err != nil {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// sortedLeases returns the lease nodes among kids, sorted by sequence.
func sortedLeases(kids []string) []string {
	kids = withPrefix(kids, semLeasePrefix)
	sortBySequence(kids)
	return kids
}

// wakeNext rewrites node with its own data, which bumps its version and
// fires the watch of the waiter behind it, if any.
func (s *Semaphore) wakeNext(ctx context.Context, node string) error {
	for {
		_, err := s.conn.Set(node, s.opt.data, -1)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNoNode):
			return ErrSessionLost
		case !retryable(err):
			return err
		}
		if err := pause(ctx, s.conn); err != nil {
			return err
		}
	}
}

// Lease is one lease held on a Semaphore. It is safe for use by several
// goroutines.
type Lease struct {
	conn *zk.Conn
	node string
	lost <-chan struct{}

	mu   sync.Mutex
	hold *holdWatch // nil once released
}

// Release gives the lease back by deleting its node, which admits the
// first waiter. It returns ErrNotHeld if the lease was already released
// and ErrSessionLost if it had been lost meanwhile (see Lost).
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold == nil {
		return ErrNotHeld
	}
	l.hold.release()
	l.hold = nil
	if err := giveUp(ctx, l.conn, l.node); err != nil {
		return err
	}
	select {
	case <-l.lost:
		return ErrSessionLost // it was no longer ours to release
	default:
		return nil
	}
}

// Lost returns a channel closed if the lease is lost while held: the
// session expired (as soon as the client learns it) or the node was
// deleted by someone else. It is never closed by Release itself.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Node returns the path of the lease's node.
func (l *Lease) Node() string { return l.node }
