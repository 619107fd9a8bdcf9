package consensus

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// A user restore replaces the whole replicated state with a backup
// (backup.go) through Raft, so that every server ends with it. The leader
// hands hashicorp/raft's Raft.Restore a snapshot in format 3: Raft stores
// it at an index past the end of its log, leaving a hole behind it,
// installs it in the leader's FSM, and every follower, whose next
// AppendEntries fails on the hole, gets it by InstallSnapshot; Restore
// returns once a no-op entry after it is committed. A log command was the
// other way: it would carry the whole backup in one entry (or a staging
// protocol across many), which the log, its fsyncs and every follower's
// memory would pay for; a snapshot is what Raft already moves in bulk.
//
// Three things are decided here, the same way on every replica, because
// they follow from the bytes of the snapshot alone:
//
//   - zxids keep growing. When Raft stores the snapshot, the store stamps
//     it with the index and term Raft gives it (stampSink); the state it
//     installs has last zxid term<<32 | index. Every earlier entry had a
//     term no higher and, within that term, a counter no higher than its
//     own index (the counter counts commands from 1 and every command has
//     an index of its own), which is below the stamped index: so the
//     restore's zxid is above every zxid any server served before it, and
//     the zxids after it grow from there.
//   - sessions end. The backup's sessions and their ephemerals are of
//     clients that may long be gone, and the clients connected now hold
//     locks, elections and caches built on a tree that just changed under
//     them without a watch event: the restore deletes every ephemeral (as
//     closeSession would, at the restore's zxid) and empties the session
//     table. Every connected client learns that its session expired, as
//     after any expiry, and its recipes start over on the restored tree.
//   - the membership stays the ensemble's: the restore carries the
//     membership the leader had, not the backup's.
const restoreFormat int32 = 3

// stampLen is the length of a format 3 stamp: long index, long term.
const stampLen = 16

// stamp is the Raft index and term a user restore was stored at.
type stamp struct{ index, term uint64 }

var (
	// ErrRestoreNoQuorum is returned by RestoreBackup when the leader
	// cannot confirm with a quorum that it still leads, or no leader is
	// known: nothing was restored.
	ErrRestoreNoQuorum = errors.New("consensus: restore needs a working quorum")
	// ErrRestoreOnFollower is returned by RestoreBackup on a server that
	// does not lead; the message names the leader.
	ErrRestoreOnFollower = errors.New("consensus: a restore runs on the leader")
	// ErrRestoreUnconfirmed is returned when the leader installed the
	// restore but lost its quorum before the entry after it committed:
	// the ensemble may or may not hold the restored state.
	ErrRestoreUnconfirmed = errors.New("consensus: restore installed on the leader but not confirmed by a quorum")
)

// rebase turns the state of a stamped user restore into what it installs:
// no sessions, no ephemerals, last zxid term<<32 | index.
func (rs *restoredState) rebase(st stamp) error {
	if st.index == 0 || st.term == 0 {
		return errors.New("consensus: a restore snapshot without its index and term stamp")
	}
	if st.index > math.MaxUint32 || st.term > math.MaxUint32 {
		return fmt.Errorf("consensus: restore at index %d, term %d does not fit a zxid", st.index, st.term)
	}
	zxid := int64(st.term)<<32 | int64(st.index)
	for _, id := range rs.st.Tree.EphemeralSessionIDs() {
		rs.st.Tree.KillSession(id, zxid)
	}
	rs.st.Sessions = session.NewTable()
	rs.term, rs.counter, rs.st.LastZxid = st.term, uint32(st.index), zxid
	rs.restoreZxid = zxid
	return nil
}

// RestoreBackup replaces the replicated state with a backup WriteTo wrote,
// on every server, and returns the zxid of the restore. It must run on the
// leader. The backup is read and checked in full (format, version,
// checksum, every record) before anything changes.
func (n *Node) RestoreBackup(ctx context.Context, r io.Reader) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := n.leadsForRestore(); err != nil {
		return 0, err
	}
	// The backup is read and checked before the lock: a caller sending
	// its body slowly holds no other restore up.
	rs, err := readBackup(r, n.fsm.treeCfg)
	if err != nil {
		return 0, err
	}
	n.restoreMu.Lock()
	defer n.restoreMu.Unlock()
	if err := n.leadsForRestore(); err != nil {
		return 0, err
	}
	if last := n.raft.LastIndex(); last >= math.MaxUint32-1 {
		return 0, fmt.Errorf("consensus: restore: the log's index %d no longer fits a zxid", last)
	}
	stream, size := n.restoreStream(rs)
	// The decoded tree is garbage from here. Collect it before Raft
	// installs the snapshot, which decodes the same state again: left to
	// the collector's pace, both trees and the stream are on the heap
	// at once (a heap of 3.4-3.6 times the backup's size at the peak,
	// 2.7-3.1 with this collection, garbage not yet swept included;
	// BenchmarkRestoreMemory). A restore is rare; this is one collection.
	rs = nil
	runtime.GC()
	if err := n.confirmQuorum(); err != nil {
		return 0, err
	}
	before := n.fsm.restoredZxid.Load()
	err = n.raft.Restore(&raft.SnapshotMeta{Version: raft.SnapshotVersionMax, Size: size}, stream, timeoutOf(ctx))
	zxid := n.fsm.restoredZxid.Load()
	switch {
	case err == nil:
		return zxid, nil
	case zxid != before:
		return 0, fmt.Errorf("%w: %v", ErrRestoreUnconfirmed, err)
	}
	return 0, fmt.Errorf("consensus: restore: %w", mapRaftError(err))
}

// leadsForRestore reports why this node cannot run a restore, if it
// cannot.
func (n *Node) leadsForRestore() error {
	if n.fwdCli == nil || n.raft.State() == raft.Leader {
		return nil
	}
	addr, id := n.raft.LeaderWithID()
	if id == "" || n.Removed() {
		return fmt.Errorf("%w: this server knows no leader", ErrRestoreNoQuorum)
	}
	where := string(addr)
	if p, ok := n.peer(id); ok && p.Client != "" {
		where = "client port " + p.Client + ", peer address " + p.RaftAddr
	}
	return fmt.Errorf("%w: server %s leads (%s); send the restore there", ErrRestoreOnFollower, id, where)
}

// confirmQuorum checks, with a round of heartbeats, that this leader still
// has its quorum. Raft's user restore installs the snapshot on the leader
// before any follower acknowledges it, so a leader cut off from its
// followers would change its own state alone.
func (n *Node) confirmQuorum() error {
	if n.fwdCli == nil {
		return nil
	}
	// Two rounds: Raft counts a heartbeat answer that was already on its
	// way when the first round began, which can come from a follower that
	// has stopped since; every answer of the second round was sent after
	// the first round ended.
	for range 2 {
		if err := n.raft.VerifyLeader().Error(); err != nil {
			return fmt.Errorf("%w: %v", ErrRestoreNoQuorum, err)
		}
	}
	return nil
}

// restoreStream encodes a decoded backup as a format 3 snapshot with an
// empty stamp and this node's membership, and returns it with its size.
func (n *Node) restoreStream(rs *restoredState) (io.Reader, int64) {
	n.fsm.mu.RLock()
	version, members := n.fsm.configVersion, n.fsm.members
	n.fsm.mu.RUnlock()
	var body chunkBuffer
	var e wire.Encoder
	e.Long(0) // stamp: index
	e.Long(0) // stamp: term
	e.Long(int64(rs.term))
	e.Int(int32(rs.counter))
	e.Long(rs.st.LastZxid)
	rs.st.Sessions.Snapshot(&e)
	body.Write(e.Bytes())
	rs.st.Tree.WriteSnapshot(&body) // a chunkBuffer never fails
	var tail wire.Encoder
	tail.Long(version)
	encodePeers(&tail, members)
	body.Write(tail.Bytes())
	head := snapshotHeader(restoreFormat, body.size)
	size := headerLen + body.size
	// Raft copies the stream into its snapshot store, then installs it
	// from there: each chunk is released once copied.
	return io.MultiReader(bytes.NewReader(head[:]), body.consume()), size
}

// snapshotHeader is the header of a snapshot of the given format whose
// state is size bytes long.
func snapshotHeader(format int32, size int64) [headerLen]byte {
	var head [headerLen]byte
	binary.BigEndian.PutUint32(head[:4], uint32(snapshotMagic))
	binary.BigEndian.PutUint32(head[4:8], uint32(format))
	binary.BigEndian.PutUint64(head[8:], uint64(size))
	return head
}

// timeoutOf turns a context's deadline into Raft's timeout (0: none).
func timeoutOf(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return 0
}
