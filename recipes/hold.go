package recipes

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"
)

// contend puts a protected ephemeral sequential node named prefix in dir
// and waits for its turn as blocker decides (see turn). On any failure it
// removes the node, even once ctx has ended, so that it never blocks the
// line; with wait false it returns errNotYet if the turn has not come.
func contend(ctx context.Context, conn *zk.Conn, dir, prefix string, opt options, blocker blockerFunc, wait bool) (string, error) {
	node, err := CreateProtected(ctx, conn, dir, prefix, opt.data, zk.FlagEphemeral|zk.FlagSequence, opt.acl)
	if err != nil {
		return "", err
	}
	if err := turn(ctx, conn, dir, node, blocker, wait); err != nil {
		if !errors.Is(err, ErrSessionLost) { // else the node is gone already
			removeNode(conn, node)
		}
		return "", err
	}
	return node, nil
}

// heldNode is the node behind something held (a lock, one side of a
// read/write lock, a leadership): its path, how many times it is held,
// and the watch that reports its loss. Its owner guards it with a mutex.
type heldNode struct {
	path  string
	count int
	watch *holdWatch
}

// take records node as held once and starts watching it.
func (h *heldNode) take(conn *zk.Conn, node string) {
	h.path, h.count, h.watch = node, 1, watchHold(conn, node)
}

func (h *heldNode) held() bool { return h.count > 0 }

// forgetIfLost drops a hold reported lost, so that its owner contends
// afresh; the node is deleted in the background in case the report was a
// false alarm (an error the watch could not tell from a loss).
func (h *heldNode) forgetIfLost(conn *zk.Conn) {
	if h.count == 0 {
		return
	}
	select {
	case <-h.watch.lost:
		h.watch.release()
		go removeNode(conn, h.path)
		*h = heldNode{}
	default:
	}
}

// release drops one hold; the last deletes the node (see giveUp). It
// returns ErrNotHeld if nothing is held and ErrSessionLost if the hold had
// been lost meanwhile. The node is deleted even then: a false alarm must
// not leave a live node blocking everyone, and a node really gone is
// simply not found.
func (h *heldNode) release(ctx context.Context, conn *zk.Conn) error {
	if h.count == 0 {
		return ErrNotHeld
	}
	if h.count--; h.count > 0 {
		return nil
	}
	lost := h.watch.lost
	h.watch.release()
	node := h.path
	*h = heldNode{}
	if err := giveUp(ctx, conn, node); err != nil {
		return err
	}
	select {
	case <-lost:
		return ErrSessionLost // it was no longer ours to release
	default:
		return nil
	}
}

// lost is the channel closed if the hold is lost, or nil if none is held.
func (h *heldNode) lost() <-chan struct{} {
	if h.watch == nil {
		return nil
	}
	return h.watch.lost
}
