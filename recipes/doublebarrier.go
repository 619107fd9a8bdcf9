package recipes

import (
	"context"
	"errors"
	"path"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
)

// DoubleBarrier lets a fixed number of participants start a computation
// together and finish it together (the ZooKeeper "Double Barriers"
// recipe; Curator's DistributedDoubleBarrier). Every participant Enters,
// works, then Leaves:
//
//   - Enter adds an ephemeral sequential node for the participant to the
//     barrier directory and blocks until count participants are present.
//     The count-th arrival creates a "ready" node; everyone else watches
//     that one node rather than the directory's children.
//   - Leave removes the participant's node and blocks until every
//     participant has left. The lowest node waits for the highest to go;
//     every other participant deletes its node and waits for the lowest to
//     go, so each departure wakes one or two waiters, not all of them.
//     The last to leave deletes the ready node too.
//
// Sessions: a participant whose session expires (or that crashes) loses its
// ephemeral node, which the others count as having left, so it cannot keep
// them in Leave. While in Enter a participant whose node vanished adds a
// fresh one with its client's new session and keeps waiting, so that
// others waiting for it are not stuck; once entered, it learns of the loss
// from Leave, which returns ErrSessionLost (after everyone has left). A
// participant that never arrives holds the others in Enter until their
// contexts end: the recipe cannot tell it from a slow one.
//
// A directory serves one round at a time: a new round may Enter once every
// participant of the previous one has returned from Leave (or is gone).
// More than count participants may enter a round; those arriving after the
// ready node pass at once.
//
// A DoubleBarrier value is one participant and is safe for concurrent use,
// though Enter and Leave are naturally called in turn.
type DoubleBarrier struct {
	conn  *zk.Conn
	dir   string
	count int
	opt   options

	mu   sync.Mutex // held through Enter and Leave
	node string     // our node between Enter and Leave
}

// errBadCount is returned by Enter when the barrier was made for no one.
var errBadCount = errors.New("recipes: double barrier count must be at least 1")

const (
	// doubleMemberPrefix names participant nodes ("member-0000000003"
	// after the protected tag).
	doubleMemberPrefix = "member-"
	// doubleReadyNode is created by the count-th arrival.
	doubleReadyNode = "ready"
)

// NewDoubleBarrier returns a participant of the double barrier in dir
// (created if missing) for count participants. WithData sets the data of
// the participant's node, WithACL the ACL of the nodes it creates.
func NewDoubleBarrier(conn *zk.Conn, dir string, count int, opts ...Option) *DoubleBarrier {
	return &DoubleBarrier{conn: conn, dir: dir, count: count, opt: buildOptions(opts)}
}

// Enter joins the barrier and blocks until count participants have joined
// (this one included). On cancellation it removes its node and returns
// ctx.Err().
func (b *DoubleBarrier) Enter(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.count < 1 {
		return errBadCount
	}
	if b.node != "" {
		return ErrAlreadyEntered
	}
	node, err := b.join(ctx)
	if err != nil {
		return err
	}
	ready := path.Join(b.dir, doubleReadyNode)
	for {
		// Count, and if there are too few, watch for ready: the watch's
		// own existence check sees a ready node created since the count.
		sid := b.conn.SessionID()
		ok, fresh, err := b.tally(ctx, node)
		node = fresh
		var ch <-chan zk.Event
		if err == nil && !ok {
			ok, ch, err = barrierExistsW(ctx, b.conn, ready)
		}
		if err == nil && !ok && b.conn.SessionID() != sid {
			// The session expired since the count: our node went with
			// it, and the watch belongs to the new session, which no
			// expiry will end. Count again (and join again).
			continue
		}
		if err == nil && !ok {
			err = barrierAwait(ctx, ch)
		}
		if errors.Is(err, zk.ErrSessionExpired) {
			// A request was under way when the session expired: the
			// client opens a new one, and the next tally joins with it.
			if err = pause(ctx, b.conn); err == nil {
				continue
			}
		}
		if err != nil {
			removeNode(b.conn, node)
			return err
		}
		if ok {
			b.node = node
			return nil
		}
	}
}

// join creates this participant's node.
func (b *DoubleBarrier) join(ctx context.Context) (string, error) {
	return CreateProtected(ctx, b.conn, b.dir, doubleMemberPrefix, b.opt.data, zk.FlagEphemeral|zk.FlagSequence, b.opt.acl)
}

// tally counts the participants present and creates the ready node if
// there are enough, reporting whether there were. If node has vanished
// (its session expired) it joins again and returns the new node.
func (b *DoubleBarrier) tally(ctx context.Context, node string) (bool, string, error) {
	for {
		kids, err := children(ctx, b.conn, b.dir)
		if err != nil {
			return false, node, err
		}
		members := withPrefix(kids, doubleMemberPrefix)
		if slices.Contains(members, path.Base(node)) {
			if len(members) < b.count {
				return false, node, nil
			}
			return true, node, b.setReady(ctx)
		}
		fresh, err := b.join(ctx)
		if err != nil {
			return false, node, err
		}
		node = fresh
	}
}

// setReady creates the ready node; one already there is no error.
func (b *DoubleBarrier) setReady(ctx context.Context) error {
	ready := path.Join(b.dir, doubleReadyNode)
	for {
		_, err := b.conn.Create(ready, nil, 0, b.opt.acl)
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return nil
		case !retryable(err):
			return err
		}
		if err := pause(ctx, b.conn); err != nil {
			return err
		}
	}
}

// Leave removes this participant and blocks until every participant has
// left. It returns ErrNotHeld if the participant has not entered, and
// ErrSessionLost if its node had vanished before it left (its session
// expired): the others then went on without it, and Leave still waits for
// them all to leave first. On cancellation it removes its node, if still
// there, and returns ctx.Err().
func (b *DoubleBarrier) Leave(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.node == "" {
		return ErrNotHeld
	}
	node := b.node
	b.node = ""
	err := b.leave(ctx, node)
	if err != nil && ctx.Err() != nil {
		removeNode(b.conn, node)
	}
	return err
}

func (b *DoubleBarrier) leave(ctx context.Context, node string) error {
	name := path.Base(node)
	ready := path.Join(b.dir, doubleReadyNode)
	gone, lost := false, false // our node is gone; it went without us
	for {
		kids, err := children(ctx, b.conn, b.dir)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		members := withPrefix(kids, doubleMemberPrefix)
		sortBySequence(members)
		me := slices.Index(members, name)
		if me < 0 && !gone {
			gone, lost = true, true
		}
		var watch string
		switch {
		case len(members) == 0:
			// Everyone has left. The ready node is normally gone already;
			// it lingers if the last participant's session expired.
			if err := deleteNode(ctx, b.conn, ready); err != nil {
				return err
			}
			if lost {
				return ErrSessionLost
			}
			return nil
		case me >= 0 && len(members) == 1:
			// The last one: clear ready first, so that whoever sees no
			// participant left also sees no ready node.
			if err := deleteNode(ctx, b.conn, ready); err != nil {
				return err
			}
			if err := deleteNode(ctx, b.conn, node); err != nil {
				return err
			}
			gone = true
			continue
		case me == 0:
			watch = members[len(members)-1] // the lowest waits for the highest
		default:
			watch = members[0] // others (and those already gone) wait for the lowest
		}
		if me > 0 {
			if err := deleteNode(ctx, b.conn, node); err != nil {
				return err
			}
			gone = true
		}
		ok, ch, err := barrierExistsW(ctx, b.conn, path.Join(b.dir, watch))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := barrierAwait(ctx, ch); err != nil {
			return err
		}
	}
}
