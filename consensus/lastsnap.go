package consensus

import (
	"sync/atomic"
	"time"
)

// SnapshotInfo describes the last snapshot this node took or loaded.
type SnapshotInfo struct {
	// Zxid is the zxid of the last transaction the snapshot holds.
	Zxid int64
	// Time is when this node took it or loaded it (at start, or from the
	// leader).
	Time time.Time
}

// lastSnapshot remembers the newest SnapshotInfo; the FSM sets it.
type lastSnapshot struct{ p atomic.Pointer[SnapshotInfo] }

func (l *lastSnapshot) note(zxid int64) { l.p.Store(&SnapshotInfo{Zxid: zxid, Time: time.Now()}) }

// LastSnapshot returns the last snapshot this node took or loaded, and
// false when it has neither taken nor loaded one since it started.
func (n *Node) LastSnapshot() (SnapshotInfo, bool) {
	if p := n.fsm.lastSnap.p.Load(); p != nil {
		return *p, true
	}
	return SnapshotInfo{}, false
}
