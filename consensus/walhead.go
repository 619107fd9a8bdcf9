package consensus

import (
	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"
)

// walHead is a raft-wal log whose GetLog honours its FirstIndex.
//
// raft-wal deletes a log's head (Raft's compaction after a snapshot) by
// moving the first index and dropping whole segments; the entries still
// in the open tail segment stay readable through GetLog. The leader then
// found an entry a follower needed long after compacting it, and sent
// entries where Raft sends its snapshot (ZooKeeper's SNAP): a follower
// cut off for more than TrailingLogs entries replayed them one batch at a
// time, and the lab's snapshot scenario never showed an InstallSnapshot.
// raft-boltdb, the other format, deletes them. Entries below FirstIndex
// are reported as not found here, so both formats behave as Raft expects.
type walHead struct{ *wal.WAL }

// GetLog implements raft.LogStore.
func (w walHead) GetLog(index uint64, l *raft.Log) error {
	first, err := w.WAL.FirstIndex()
	if err != nil {
		return err
	}
	if index < first {
		return raft.ErrLogNotFound
	}
	return w.WAL.GetLog(index, l)
}
