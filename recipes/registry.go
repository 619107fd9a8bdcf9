package recipes

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Instance is one instance of a service in a registry, stored as JSON in
// the ephemeral node base/service/ID.
type Instance struct {
	ID      string            `json:"id"`
	Address string            `json:"address"`
	Port    int               `json:"port"`
	Payload map[string]string `json:"payload,omitempty"`
}

// Registration keeps an instance registered until Deregister, like
// Curator's ServiceDiscovery: a connection loss leaves the node alone (the
// session survives it), and when the node disappears anyway, because the
// session expired or someone deleted it, a goroutine registers the
// instance again (on the client's new session), until Deregister stops it.
type Registration struct {
	conn *zk.Conn
	node string
	data []byte
	acl  []zk.ACL

	stop context.CancelFunc // ends keep
	done chan struct{}      // closed when keep has ended
	lost chan struct{}      // closed if keep gave up

	mu     sync.Mutex
	gone   bool // Deregister was called
	closed bool // lost is closed
}

// Register registers inst as an instance of service under base (both
// created if missing). It fails with zk.ErrNodeExists if another client
// has registered an instance with the same ID. Options: WithACL.
func Register(ctx context.Context, conn *zk.Conn, base, service string, inst Instance, opts ...Option) (*Registration, error) {
	if err := validNodeName(inst.ID); err != nil {
		return nil, err
	}
	data, err := json.Marshal(inst)
	if err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	node := path.Join(base, service, inst.ID)
	if err := createOwnedEphemeral(ctx, conn, node, data, o.acl); err != nil {
		return nil, err
	}
	kctx, stop := context.WithCancel(context.Background())
	r := &Registration{conn: conn, node: node, data: data, acl: o.acl,
		stop: stop, done: make(chan struct{}), lost: make(chan struct{})}
	go r.keep(kctx)
	return r, nil
}

// keep watches the instance's node and creates it again whenever it is
// gone, until ctx ends (Deregister). It gives up, closing lost, when the
// client is closed or when another session holds the instance's ID.
func (r *Registration) keep(ctx context.Context) {
	defer close(r.done)
	retry := retrier{conn: r.conn}
	for {
		ok, st, watch, err := r.conn.ExistsW(r.node)
		if err != nil {
			if err := retry.retry(ctx, err); err != nil {
				if ctx.Err() == nil {
					r.giveUp()
				}
				return
			}
			continue
		}
		retry.reset()
		if !ok || st.EphemeralOwner != r.conn.SessionID() {
			// Gone, or an old session's node: register again.
			if err := createOwnedEphemeral(ctx, r.conn, r.node, r.data, r.acl); err != nil {
				if ctx.Err() == nil {
					r.giveUp() // client closed, or the ID is someone else's
				}
				return
			}
			continue // and watch the new node
		}
		select {
		case ev := <-watch:
			if ev.Type == zk.EventNotWatching && errors.Is(ev.Err, zk.ErrClosing) {
				r.giveUp()
				return
			}
			// Deleted, data changed or session expired: look again.
		case <-ctx.Done():
			return
		}
	}
}

func (r *Registration) giveUp() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.lost)
	}
}

// Lost returns a channel closed if the registration ended without
// Deregister: the client was closed, or when the instance had to be
// registered again its ID was taken by another client.
func (r *Registration) Lost() <-chan struct{} { return r.lost }

// Path returns the instance's node.
func (r *Registration) Path() string { return r.node }

// Deregister stops keeping the instance registered and removes it. It
// returns ErrNotHeld if called twice, and ErrSessionLost if the
// registration had been lost (see Lost).
func (r *Registration) Deregister(ctx context.Context) error {
	r.mu.Lock()
	if r.gone {
		r.mu.Unlock()
		return ErrNotHeld
	}
	r.gone = true
	r.mu.Unlock()
	r.stop()
	<-r.done
	select {
	case <-r.lost:
		return ErrSessionLost
	default:
	}
	for {
		ok, st, err := r.conn.Exists(r.node)
		switch {
		case retryable(err):
			if err := pause(ctx, r.conn); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		case !ok || st.EphemeralOwner != r.conn.SessionID():
			return nil // gone with an old session, not re-created yet
		}
		return deleteNode(ctx, r.conn, r.node)
	}
}

// Instances returns the registered instances of service under base,
// sorted by ID; none if there is no such service. Nodes that do not hold
// an Instance in JSON are skipped.
func Instances(ctx context.Context, conn *zk.Conn, base, service string) ([]Instance, error) {
	dir := path.Join(base, service)
	for {
		kids, err := children(ctx, conn, dir)
		if errors.Is(err, zk.ErrNoNode) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		out, err := readInstances(conn, dir, kids)
		if !retryable(err) {
			return out, err
		}
		if err := pause(ctx, conn); err != nil {
			return nil, err
		}
	}
}

// WatchInstances is a live view of a service's instances: it sends them,
// sorted by ID, at once and again each time an instance comes or goes,
// until ctx ends or the client is closed, and then closes the channel. A
// reader that falls behind gets the latest list, not every intermediate
// one. The view follows instances coming and going; it does not watch
// their data, which Register writes once.
func WatchInstances(ctx context.Context, conn *zk.Conn, base, service string) <-chan []Instance {
	dir := path.Join(base, service)
	return liveView(ctx, conn, func() ([]Instance, <-chan zk.Event, error) {
		kids, watch, err := viewChildrenW(conn, dir)
		if err != nil {
			return nil, nil, err
		}
		out, err := readInstances(conn, dir, kids)
		return out, watch, err
	}, func(a, b []Instance) bool {
		return slices.EqualFunc(a, b, func(x, y Instance) bool { return reflect.DeepEqual(x, y) })
	})
}

// readInstances reads and decodes dir's children, skipping those that
// vanish meanwhile or do not decode.
func readInstances(conn *zk.Conn, dir string, kids []string) ([]Instance, error) {
	out := make([]Instance, 0, len(kids))
	for _, k := range kids {
		data, _, err := conn.Get(path.Join(dir, k))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var inst Instance
		if json.Unmarshal(data, &inst) != nil || inst.ID != k {
			continue
		}
		out = append(out, inst)
	}
	slices.SortFunc(out, func(a, b Instance) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
