package recipes

import (
	"context"
	"errors"
	"path"
	"slices"

	"github.com/go-zookeeper/zk"
)

// blockerFunc picks, from a directory's children sorted by sequence, the
// one that the child at index me must wait for, or "" if its turn has come.
// Locks, read/write locks, semaphores and elections differ only in this.
type blockerFunc func(sorted []string, me int) string

// predecessor blocks on the node just ahead: an exclusive line.
func predecessor(sorted []string, me int) string {
	if me == 0 {
		return ""
	}
	return sorted[me-1]
}

// errNotYet is returned by turn when wait is false and it is not our turn.
var errNotYet = errors.New("recipes: not our turn")

// turn waits until blocker says it is the turn of node (a child of dir).
// Each round watches only the one node that blocks us, so a release wakes
// a single waiter. With wait false it returns errNotYet instead of waiting.
// It returns ErrSessionLost if node itself has disappeared.
func turn(ctx context.Context, conn *zk.Conn, dir, node string, blocker blockerFunc, wait bool) error {
	name := path.Base(node)
	// The session our node was made in. go-zookeeper replaces an expired
	// session with a new one on its own and sends the requests still
	// queued on it, so a read can succeed after our node is gone: a new
	// session id means the node went with the old one.
	sid := conn.SessionID()
	for {
		kids, err := children(ctx, conn, dir)
		if errors.Is(err, zk.ErrSessionExpired) || conn.SessionID() != sid {
			return ErrSessionLost // our ephemeral node went with the session
		}
		if err != nil {
			return err
		}
		sortBySequence(kids)
		me := slices.Index(kids, name)
		if me < 0 {
			return ErrSessionLost
		}
		b := blocker(kids, me)
		if b == "" {
			return nil
		}
		if !wait {
			return errNotYet
		}
		if err := waitGone(ctx, conn, path.Join(dir, b), sid); err != nil {
			return err
		}
	}
}

// holdWatch reports on lost when the node at p disappears while held:
// deleted by someone else, or gone with the session. Stop it with release
// just before deleting the node yourself.
//
// Its first look at the node also records the node's Stat as granted: the
// czxid is the grant's fencing token, read at no cost beyond the watch's
// own request.
type holdWatch struct {
	lost     chan struct{}
	released chan struct{}
	done     chan struct{}
	granted  chan struct{} // closed once stat is set
	stat     *zk.Stat      // the node's Stat at its first look; read after granted
}

func watchHold(conn *zk.Conn, p string) *holdWatch {
	h := &holdWatch{
		lost:     make(chan struct{}),
		released: make(chan struct{}),
		done:     make(chan struct{}),
		granted:  make(chan struct{}),
	}
	go h.run(conn, p)
	return h
}

func (h *holdWatch) run(conn *zk.Conn, p string) {
	defer close(h.done)
	r := retrier{conn: conn}
	for {
		ok, stat, ch, err := conn.ExistsW(p)
		if retryable(err) {
			select {
			case <-h.released:
				return
			default:
			}
			// A closed client ends the retries (and the hold: its
			// session ends with it).
			if err = r.retry(context.Background(), err); err == nil {
				continue
			}
		}
		r.reset()
		if err != nil || !ok {
			h.markLost()
			return
		}
		h.grant(stat)
		select {
		case ev := <-ch:
			if ev.Type == zk.EventNodeDataChanged {
				continue // still ours; watch again
			}
			h.markLost() // deleted, expired or closed
			return
		case <-h.released:
			return
		}
	}
}

func (h *holdWatch) markLost() {
	select {
	case <-h.released: // we deleted it ourselves
	default:
		close(h.lost)
	}
}

// release stops the watch; call it before deleting the node.
func (h *holdWatch) release() {
	close(h.released)
	<-h.done
}
