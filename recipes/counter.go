package recipes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Counter is a shared int64 kept in the data of one persistent node, as
// decimal text ("42", "-7"): the encoding of kazoo's Counter, readable in
// zkCli. (Curator's DistributedAtomicLong stores 8 big-endian bytes
// instead, and does not interoperate.) A node with no data holds the
// initial value; a missing node holds it too and is created by the first
// write.
//
// Writes are compare-and-set: read the value and its version, write the
// new value conditionally on that version, and start again if another
// client wrote in between (zk.ErrBadVersion). They never add twice and
// never lose an update, even when a reply is lost to a connection loss:
// each write goes in a multi together with the creation of an ephemeral
// marker child of the counter node, named at random for that one call
// and holding the value written. If the reply is lost, the marker says
// whether the write ran (and what it wrote); it is deleted right after.
// The only case it cannot settle is a lost reply followed by the expiry
// of the session, which deletes the marker: the call then returns
// ErrUnknownOutcome rather than guess. Likewise, a call whose context
// ends while such a lost reply is unresolved returns ctx.Err(), and its
// write may or may not have run.
//
// A write thus costs three requests: the read, the multi, and the delete
// of the marker. The counter node must be persistent (an ephemeral node
// cannot have the marker children).
//
// A Counter is safe for concurrent use.
type Counter struct {
	conn    *zk.Conn
	path    string
	initial int64
	opt     options
}

// NewCounter returns the counter kept at path, whose value is initial
// until first written. WithACL sets the ACL of the nodes it creates.
func NewCounter(conn *zk.Conn, path string, initial int64, opts ...Option) *Counter {
	return &Counter{conn: conn, path: path, initial: initial, opt: buildOptions(opts)}
}

// counterMarker ends the name of a counter's marker children,
// "_c_<random id>-write".
const counterMarker = "-write"

// Get returns the current value.
func (c *Counter) Get(ctx context.Context) (int64, error) {
	v, _, err := c.read(ctx)
	return v, err
}

// Add adds delta (which may be negative) and returns the new value.
func (c *Counter) Add(ctx context.Context, delta int64) (int64, error) {
	v, _, err := c.update(ctx, func(cur int64) (int64, bool) { return cur + delta, true })
	return v, err
}

// Set sets the value, whatever it was.
func (c *Counter) Set(ctx context.Context, value int64) error {
	_, _, err := c.update(ctx, func(int64) (int64, bool) { return value, true })
	return err
}

// CompareAndSet sets the value to value if it is expect, and reports
// whether it did.
func (c *Counter) CompareAndSet(ctx context.Context, expect, value int64) (bool, error) {
	_, ok, err := c.update(ctx, func(cur int64) (int64, bool) { return value, cur == expect })
	return ok, err
}

// read returns the value and its version, -1 if the node is missing.
func (c *Counter) read(ctx context.Context) (int64, int32, error) {
	for {
		data, stat, err := c.conn.Get(c.path)
		switch {
		case err == nil:
			v, err := c.decode(data)
			return v, stat.Version, err
		case errors.Is(err, zk.ErrNoNode):
			return c.initial, -1, nil
		case !transientErr(err):
			return 0, 0, err
		}
		if err := pause(ctx, c.conn); err != nil {
			return 0, 0, err
		}
	}
}

func (c *Counter) decode(data []byte) (int64, error) {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return c.initial, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("recipes: counter %s holds %q, not a decimal integer", c.path, data)
	}
	return v, nil
}

// update applies next to the value by compare-and-set until it sticks or
// next declines (ok false). It returns the value written (or the current
// one, if declined) and whether it wrote.
func (c *Counter) update(ctx context.Context, next func(cur int64) (int64, bool)) (int64, bool, error) {
	id, err := randomID()
	if err != nil {
		return 0, false, err
	}
	marker := path.Join(c.path, protectedPrefix+id+counterMarker)
	// lostOn lists the sessions of writes whose reply was lost: they may
	// have run, and the marker (ephemeral) tells only while that session
	// lives.
	var lostOn []int64
	for {
		if len(lostOn) > 0 {
			v, found, err := c.checkMarker(ctx, marker, lostOn)
			if err != nil || found {
				return v, found, err
			}
		}
		cur, version, err := c.read(ctx)
		if err != nil {
			return 0, false, err
		}
		if version < 0 {
			if err := c.create(ctx); err != nil {
				return 0, false, err
			}
			continue
		}
		v, ok := next(cur)
		if !ok {
			return cur, false, nil
		}
		text := []byte(strconv.FormatInt(v, 10))
		session := c.conn.SessionID()
		_, err = c.conn.Multi(
			&zk.SetDataRequest{Path: c.path, Data: text, Version: version},
			&zk.CreateRequest{Path: marker, Data: text, Acl: c.opt.acl, Flags: zk.FlagEphemeral},
		)
		switch {
		case err == nil:
			deleteNode(ctx, c.conn, marker)
			return v, true, nil
		case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNoNode):
			continue // someone wrote (or deleted it) first
		case errors.Is(err, zk.ErrNodeExists):
			// Our marker exists: an earlier try of ours ran.
			if len(lostOn) == 0 {
				lostOn = append(lostOn, session)
			}
			continue
		case !transientErr(err):
			return 0, false, err
		}
		lostOn = append(lostOn, session)
		if err := pause(ctx, c.conn); err != nil {
			return 0, false, err
		}
	}
}

// checkMarker finds out whether an earlier write whose reply was lost ran:
// if its marker exists, it returns the value that write stored.
func (c *Counter) checkMarker(ctx context.Context, marker string, lostOn []int64) (int64, bool, error) {
	for {
		data, _, err := c.conn.Get(marker)
		switch {
		case err == nil:
			deleteNode(ctx, c.conn, marker)
			v, err := c.decode(data)
			return v, err == nil, err
		case errors.Is(err, zk.ErrNoNode):
			now := c.conn.SessionID()
			for _, s := range lostOn {
				if s != now {
					return 0, false, ErrUnknownOutcome // its marker may have gone with it
				}
			}
			return 0, false, nil
		case !transientErr(err):
			return 0, false, err
		}
		if err := pause(ctx, c.conn); err != nil {
			return 0, false, err
		}
	}
}

// create creates the counter node with the initial value.
func (c *Counter) create(ctx context.Context) error {
	data := []byte(strconv.FormatInt(c.initial, 10))
	for {
		_, err := c.conn.Create(c.path, data, 0, c.opt.acl)
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, c.conn, path.Dir(c.path), c.opt.acl); err != nil {
				return err
			}
			continue
		case !transientErr(err):
			return err
		}
		if err := pause(ctx, c.conn); err != nil {
			return err
		}
	}
}
