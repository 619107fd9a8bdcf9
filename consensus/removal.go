package consensus

import (
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/wire"
)

// A server that a reconfig removes must know it, to say so (Role, srvr)
// rather than look like a member cut off from its quorum. Raft tells it
// only by a last, best-effort AppendEntries with the configuration entry
// that removes it; when that is lost (often, when the server removed is
// the leader that just handed over), the server would wait for a leader
// forever. So the leader that removes it also tells it directly, on its
// election port, the index of that entry (fwdRemoved).

// Removed reports whether a reconfig took this ensemble member out of the
// ensemble: Raft's latest configuration no longer lists it, or the leader
// said it removed it at an index this node's log has not reached. It stays
// up and applies nothing more until a reconfig adds it back.
func (n *Node) Removed() bool {
	if n.fwdCli == nil {
		return false
	}
	if at := n.removedAt.Load(); at > 0 && n.raft.LastIndex() < at {
		return true
	}
	f := n.raft.GetConfiguration()
	if f.Error() != nil || len(f.Configuration().Servers) == 0 {
		return false
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == n.self {
			return false
		}
	}
	return true
}

// noteRemovedAt records that the leader removed this node with the
// configuration entry at index.
func (n *Node) noteRemovedAt(index uint64) {
	for {
		at := n.removedAt.Load()
		if index <= at || n.removedAt.CompareAndSwap(at, index) {
			return
		}
	}
}

// removalNoticeTimeout bounds the leader's attempt to tell a removed
// server.
const removalNoticeTimeout = 2 * time.Second

// tellRemoved tells server id, in the background and once, that the
// configuration entry at index removed it; it may be down, which is fine.
func (n *Node) tellRemoved(id raft.ServerID, index uint64) {
	p, ok := n.peer(id)
	if !ok {
		return
	}
	var e wire.Encoder
	e.Int(fwdRemoved)
	e.Long(int64(index))
	frame := frameBytes(e.Bytes())
	n.background.Add(1)
	go func() {
		defer n.background.Done()
		nc, err := n.network.Dial(p.ForwardAddr, removalNoticeTimeout)
		if err != nil {
			return
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(removalNoticeTimeout))
		nc.Write(frame)
		var b [1]byte
		nc.Read(b[:]) // returns when the removed server has read it and closed
	}()
}
