package recipes

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Queue is a distributed FIFO queue shared by every client that uses the
// same directory (the ZooKeeper "Queues" recipe; Curator's
// DistributedQueue, kazoo's Queue). Producers add persistent sequential
// item nodes to the directory; consumers take the lowest.
//
// Each item is added once and taken once, even when replies are lost to a
// connection loss or a session expiry:
//
//   - Put creates the item in one multi with a marker node dir/puts/<id>.
//     After a lost reply the marker, which only this producer deletes,
//     tells whether the multi ran; a listing of the directory could not,
//     as a consumer may have taken the item meanwhile. The marker is
//     deleted once the outcome is known.
//   - Take reads the lowest item, then claims it with one multi that
//     deletes the item at the version read and creates a claim node
//     dir/claims/<id>-<item> holding its data. The consumer whose multi
//     succeeds owns the item (the others' deletes fail: they try the next
//     item). After a lost reply the claim node, named for this attempt
//     only, tells whether the multi ran. The claim is deleted once the
//     item is the consumer's.
//
// The one window left is a client that dies (or is closed) between a multi
// and that cleanup: it leaves a put marker behind, or an item's data in a
// claim node under dir/claims, for an operator to find, rather than a
// lost or doubled item.
//
// The price is two writes per Put (the multi and the marker's delete) and
// two per Take (the claim and its delete).
//
// Waiting consumers watch the directory's children, and only while it
// holds no item: as in the ZooKeeper recipe, a Put wakes every idle
// consumer, and one of them gets the item.
type Queue struct{ q queue }

// NewQueue returns the queue in dir (created if missing). WithACL sets the
// ACL of the nodes it creates.
func NewQueue(conn *zk.Conn, dir string, opts ...Option) *Queue {
	return &Queue{q: queue{conn: conn, dir: dir, opt: buildOptions(opts)}}
}

// Put appends an item holding data. It returns nil if and only if the item
// was added (unless the client is closed while it finds out). On
// cancellation it returns ctx.Err() and adds nothing, except that a
// request already sent is seen through: if its reply was lost, Put finds
// out whether it ran, even after ctx has ended, and reports that.
func (q *Queue) Put(ctx context.Context, data []byte) error {
	return q.q.put(ctx, queueItemPrefix, data)
}

// Take removes the oldest item and returns its data, waiting for one if
// the queue is empty. On cancellation it returns ctx.Err() and takes
// nothing; but a claim already sent when ctx ends is seen through, and
// Take then returns that item.
func (q *Queue) Take(ctx context.Context) ([]byte, error) { return q.q.take(ctx) }

// Len returns the number of items in the queue.
func (q *Queue) Len(ctx context.Context) (int, error) { return q.q.len(ctx) }

const (
	// queueItemPrefix names item nodes ("item-0000000042" after the
	// protected tag; "item-p0000000000000000003-0000000042" in a
	// PriorityQueue).
	queueItemPrefix = "item-"
	// queueClaims is the directory, under the queue's, of claim nodes.
	queueClaims = "claims"
	// queuePuts is the directory, under the queue's, of put markers.
	queuePuts = "puts"
)

// queue is the implementation shared by Queue and PriorityQueue, whose
// item names sort, once their protected tag is stripped, in taking order.
type queue struct {
	conn *zk.Conn
	dir  string
	opt  options
}

// put adds an item node called name (plus a protected tag and a sequence
// number) holding data, exactly once despite lost replies.
//
// CreateProtected is not enough here: it finds a create whose reply was
// lost by listing the directory, and a consumer may have taken the item
// by then, so it would add the item again. Hence the put marker.
func (q *queue) put(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	id, err := randomID()
	if err != nil {
		return err
	}
	item := path.Join(q.dir, protectedPrefix+id+"-"+name)
	marker := path.Join(q.dir, queuePuts, id)
	for {
		res, err := q.conn.Multi(
			&zk.CreateRequest{Path: item, Data: data, Acl: q.opt.acl, Flags: zk.FlagSequence},
			&zk.CreateRequest{Path: marker, Acl: q.opt.acl},
		)
		if err == nil {
			q.forget(ctx, marker)
			return nil
		}
		if len(res) != 2 {
			// No answer: did the multi run? Find out even if ctx has
			// ended, so that the caller is told the truth.
			done, err := q.exists(context.WithoutCancel(ctx), marker)
			if err != nil {
				return err
			}
			if done {
				q.forget(ctx, marker)
				return nil
			}
			if err := pause(ctx, q.conn); err != nil {
				return err
			}
			continue
		}
		if res[0].Error == nil && errors.Is(res[1].Error, zk.ErrNodeExists) {
			// Our marker: an earlier attempt did run.
			q.forget(ctx, marker)
			return nil
		}
		if errors.Is(res[0].Error, zk.ErrNoNode) || errors.Is(res[1].Error, zk.ErrNoNode) {
			if err := ensurePath(ctx, q.conn, path.Dir(marker), q.opt.acl); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

func (q *queue) len(ctx context.Context) (int, error) {
	kids, err := children(ctx, q.conn, q.dir)
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil
	}
	return len(withPrefix(kids, queueItemPrefix)), err
}

// items returns the item names among kids, in taking order.
func (q *queue) items(kids []string) []string {
	items := withPrefix(kids, queueItemPrefix)
	slices.SortFunc(items, func(a, b string) int { return strings.Compare(stripTag(a), stripTag(b)) })
	return items
}

func (q *queue) take(ctx context.Context) ([]byte, error) {
	for {
		items, _, err := q.list(ctx, false)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			// Look again with a watch, which is set only while there is
			// nothing to take: a consumer at work holds none.
			var ch <-chan zk.Event
			if items, ch, err = q.list(ctx, true); err != nil {
				return nil, err
			}
			if len(items) == 0 {
				if err := barrierAwait(ctx, ch); err != nil {
					return nil, err
				}
				continue
			}
		}
		for _, item := range items {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			data, ok, err := q.claim(ctx, item)
			if ok || err != nil {
				return data, err
			}
		}
		// Others took them all first: look again.
	}
}

// list returns the items in taking order, with a watch on the directory's
// children if watch is set. It creates the directory if missing.
func (q *queue) list(ctx context.Context, watch bool) ([]string, <-chan zk.Event, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var kids []string
		var ch <-chan zk.Event
		var err error
		if watch {
			kids, _, ch, err = q.conn.ChildrenW(q.dir)
		} else {
			kids, _, err = q.conn.Children(q.dir)
		}
		switch {
		case err == nil:
			return q.items(kids), ch, nil
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, q.conn, q.dir, q.opt.acl); err != nil {
				return nil, nil, err
			}
		case transientErr(err):
			if err := pause(ctx, q.conn); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, err
		}
	}
}

// claim tries to take the item called name, reporting whether it did.
func (q *queue) claim(ctx context.Context, name string) ([]byte, bool, error) {
	item := path.Join(q.dir, name)
	for {
		data, stat, err := q.conn.Get(item)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return nil, false, nil // taken by another consumer
		case transientErr(err):
			if err := pause(ctx, q.conn); err != nil {
				return nil, false, err
			}
			continue
		case err != nil:
			return nil, false, err
		}
		id, err := randomID()
		if err != nil {
			return nil, false, err
		}
		claim := path.Join(q.dir, queueClaims, id+"-"+stripTag(name))
		res, err := q.conn.Multi(
			&zk.DeleteRequest{Path: item, Version: stat.Version},
			&zk.CreateRequest{Path: claim, Data: data, Acl: q.opt.acl},
		)
		if err == nil {
			q.forget(ctx, claim)
			return data, true, nil
		}
		if len(res) != 2 {
			// No answer: did the multi run? Find out even if ctx has
			// ended, or an item we claimed would be stranded.
			mine, err := q.exists(context.WithoutCancel(ctx), claim)
			if err != nil {
				return nil, false, err
			}
			if mine {
				q.forget(ctx, claim)
				return data, true, nil
			}
			if err := pause(ctx, q.conn); err != nil {
				return nil, false, err
			}
			continue // it did not run: try this item again
		}
		switch delErr, claimErr := res[0].Error, res[1].Error; {
		case errors.Is(delErr, zk.ErrNoNode):
			return nil, false, nil // another consumer took it first
		case errors.Is(delErr, zk.ErrBadVersion):
			continue // changed since we read it: read it again
		case delErr == nil && errors.Is(claimErr, zk.ErrNoNode):
			if err := ensurePath(ctx, q.conn, path.Dir(claim), q.opt.acl); err != nil {
				return nil, false, err
			}
			continue
		}
		return nil, false, err
	}
}

// exists reports whether the node at p exists, across connection losses
// and session expiry (claim and put marker nodes are persistent).
func (q *queue) exists(ctx context.Context, p string) (bool, error) {
	for {
		ok, _, err := q.conn.Exists(p)
		if !transientErr(err) {
			return ok, err
		}
		if err := pause(ctx, q.conn); err != nil {
			return false, err
		}
	}
}

// forget deletes a claim node once its item is ours, or a put marker once
// its item is in the queue. It does so even if ctx has ended; failing (a
// closed client), it leaves behind a marker of an item put, or a copy of
// an item delivered.
func (q *queue) forget(ctx context.Context, p string) {
	for {
		err := q.conn.Delete(p, -1)
		if !transientErr(err) || pause(context.WithoutCancel(ctx), q.conn) != nil {
			return
		}
	}
}
