package recipes

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// grant records the node's Stat the first time the watch sees it. Only
// run calls it.
func (h *holdWatch) grant(stat *zk.Stat) {
	select {
	case <-h.granted:
	default:
		h.stat = stat
		close(h.granted)
	}
}

// grantStat waits until the watch has read the held node's Stat and
// returns it. It returns ErrSessionLost if the hold was lost before the
// Stat could be read, and ErrNotHeld once released.
func (h *holdWatch) grantStat(ctx context.Context) (*zk.Stat, error) {
	select {
	case <-h.granted:
	case <-h.lost:
	case <-h.released:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-h.released:
		return nil, ErrNotHeld
	default:
	}
	select {
	case <-h.granted:
		return h.stat, nil
	default:
		return nil, ErrSessionLost
	}
}

// isLost reports whether the hold has been reported lost.
func (h *holdWatch) isLost() bool {
	select {
	case <-h.lost:
		return true
	default:
		return false
	}
}

// grantRef is a held grant as a guarded write or a token read sees it:
// the node behind it and the watch that holds its Stat.
type grantRef struct {
	conn  *zk.Conn
	node  string
	watch *holdWatch
}

// ref returns the grant behind h, or ErrNotHeld if nothing is held.
func (h *heldNode) ref(conn *zk.Conn) (grantRef, error) {
	if !h.held() {
		return grantRef{}, ErrNotHeld
	}
	return grantRef{conn: conn, node: h.path, watch: h.watch}, nil
}

// token returns the grant's fencing token, the czxid of its node. A grant
// reported lost has none: it returns ErrSessionLost.
func (g grantRef) token(ctx context.Context) (Token, error) {
	stat, err := g.watch.grantStat(ctx)
	if err != nil {
		return 0, err
	}
	if g.watch.isLost() {
		return 0, ErrSessionLost
	}
	return Token(stat.Czxid), nil
}
