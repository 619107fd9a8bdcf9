package consensus

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/metadb"
	"go.etcd.io/bbolt"
)

// Storage says where a node keeps its Raft state. The zero value keeps
// everything in memory.
type Storage struct {
	// DataDir holds snapshots (dataDir); empty means in memory.
	DataDir string
	// LogDir holds the Raft log and stable store (dataLogDir); it
	// defaults to DataDir.
	LogDir string
	// NoSync skips the fsync after each log append (forceSync=no).
	NoSync bool
	// Bolt makes a new log in raft-boltdb instead of raft-wal. zkserver
	// never sets it; tests do, for the logs that forceSync=no made in
	// that format before (an existing log always keeps its format).
	Bolt bool
	// SnapshotRetain is how many snapshots to keep (at least 1).
	SnapshotRetain int
	// Faults, when set, lets a test make the log disk look full.
	Faults *DiskFaults
}

// Durable reports whether the node writes to disk.
func (s Storage) Durable() bool { return s.DataDir != "" }

// stores are the three Raft stores plus whatever must be closed after Raft.
type stores struct {
	logs   raft.LogStore
	stable raft.StableStore
	snaps  raft.SnapshotStore
	close  func() error
	// discard removes what opening the stores created (a fresh log, the
	// preallocated segment, lock files), for a start that failed; nil for
	// stores in memory.
	discard func()
	// window is the log of an in-memory standalone node, which forgets
	// applied entries once Raft is bound to it (see memLogStore.trim);
	// nil otherwise.
	window *memLogStore
	// guard keeps a durable node serving while its log disk is full
	// (diskguard.go); nil in memory.
	guard *diskGuard
	// overlap lets a leader's log append overlap its replication
	// (leaderappend.go); nil in memory.
	overlap *overlapLog
}

// bind tells the stores about the Raft instance that uses them.
func (st *stores) bind(r *raft.Raft, slow func(on bool)) {
	if st.window != nil {
		st.window.setApplied(r.AppliedIndex)
	}
	st.bindGuard(r, slow)
	if st.overlap != nil {
		st.overlap.bind(func() bool { return r.State() == raft.Leader }, func() { go r.LeadershipTransfer() })
	}
}

// Directory names under dataDir and dataLogDir. ZooKeeper's own files live
// in version-2/, so both servers' data can share a directory by mistake
// without overwriting each other.
const (
	snapshotDirName = "zkraft-snapshots"
	logFileName     = "zkraft-raft.db"
	walDirName      = "zkraft-wal"
	// snapshotsSubdir is where hashicorp/raft's FileSnapshotStore keeps
	// its snapshots under the directory it is given.
	snapshotsSubdir = "snapshots"
	// snapshotTmpSuffix marks a snapshot FileSnapshotStore is still
	// writing; in a snapshot's directory, snapshotStateFile holds the
	// FSM's stream and snapshotMetaFile the index, term, size and CRC.
	snapshotTmpSuffix = ".tmp"
	snapshotStateFile = "state.bin"
	snapshotMetaFile  = "meta.json"
)

// openStores opens the stores s describes. Without a dataDir, a
// standalone node's log keeps only a short window of entries, and an
// ensemble member's the whole log since the last snapshot, which its
// followers may need.
//
// A durable store is locked first (lock.go), then checked in full before
// Raft sees it: every log entry's checksum, raft-wal's framing and commit
// CRCs, every snapshot's CRC. A torn tail left by a crash is truncated
// and logged; any other damage stops the open with a *DamageError.
func openStores(s Storage, standalone bool, logger hclog.Logger, log *slog.Logger) (*stores, error) {
	if !s.Durable() {
		logs := newMemLogStore(standalone)
		st := &stores{logs: logs, stable: raft.NewInmemStore(), snaps: plainSnapshots{newMemSnapshotStore()}, close: func() error { return nil }}
		if standalone {
			st.window = logs
		}
		return st, nil
	}
	logDir := s.LogDir
	if logDir == "" {
		logDir = s.DataDir
	}
	fresh := newPaths(s.DataDir, logDir)
	for _, d := range []string{s.DataDir, logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("consensus: create %s: %w", d, err)
		}
	}
	locks, err := lockDirs(s.DataDir, logDir)
	if err != nil {
		fresh.remove()
		return nil, err
	}
	st, err := openLocked(s, logDir, standalone, logger, log)
	if err != nil {
		locks.unlock()
		fresh.remove()
		return nil, refuseDamaged(err, s.DataDir)
	}
	closeLog := st.close
	st.close = func() error { return errors.Join(closeLog(), locks.unlock()) }
	st.discard = fresh.remove
	return st, nil
}

// openLocked opens and checks the durable stores once their directories
// are locked.
func openLocked(s Storage, logDir string, standalone bool, logger hclog.Logger, log *slog.Logger) (*stores, error) {
	snapDir := filepath.Join(s.DataDir, snapshotDirName)
	snaps, err := checkSnapshots(filepath.Join(snapDir, snapshotsSubdir), false)
	if err != nil {
		return nil, err
	}
	// Raft writes its log before any snapshot, so snapshots without a log
	// mean the log was lost or dataLogDir points elsewhere than it did:
	// starting would silently drop every write after the last snapshot.
	if len(snaps) > 0 && !exists(filepath.Join(logDir, walDirName)) && !exists(filepath.Join(logDir, logFileName)) {
		return nil, damaged(logDir, -1, 0, "the Raft log is missing (neither %s nor %s) while %s holds snapshots; if dataLogDir changed, set it back",
			walDirName, logFileName, snapDir)
	}
	st, err := openDurableLog(logDir, s, false, logger, log)
	if err != nil {
		return nil, fmt.Errorf("consensus: open raft log in %s: %w", logDir, err)
	}
	files, err := newReapingSnapshots(snapDir, s.SnapshotRetain, logger)
	if err != nil {
		st.close()
		return nil, fmt.Errorf("consensus: open snapshots in %s: %w", s.DataDir, err)
	}
	st.snaps = plainSnapshots{files}
	if err := st.matchLogToSnapshot(snapDir, log); err != nil {
		st.close()
		return nil, fmt.Errorf("consensus: open raft log in %s: %w", logDir, err)
	}
	reopen := func() (*stores, error) { return openDurableLog(logDir, s, true, logger, log) }
	st = guardStores(st, logDir, reopen, s.Faults, standalone)
	if err := st.overlapAppends(log); err != nil {
		st.close()
		return nil, fmt.Errorf("consensus: open raft log in %s: %w", logDir, err)
	}
	return st, nil
}

// openDurableLog opens the log and stable store in logDir. A log that is
// already there keeps its format. A new one is a write-ahead log of
// segment files (hashicorp/raft-wal), which makes each batch of entries
// durable with one fsync (raft-boltdb's B+tree commit takes two, and its
// page writes), or with none under forceSync=no (walnosync.go). A
// raft-boltdb log is made only where s.Bolt asks for it; logs made with
// forceSync=no before raft-wal could skip its fsync are in that format.
// Either way the log Raft sees checksums every entry (sumLog).
//
// afterFull says it is reopened after a full disk (see checkWAL).
func openDurableLog(logDir string, s Storage, afterFull bool, logger hclog.Logger, log *slog.Logger) (*stores, error) {
	boltPath, walDir := filepath.Join(logDir, logFileName), filepath.Join(logDir, walDirName)
	useBolt := s.Bolt
	if exists(boltPath) {
		useBolt = true
	} else if exists(walDir) {
		useBolt = false
	}
	if useBolt {
		return openBolt(boltPath, s.NoSync)
	}
	return openWAL(walDir, s.NoSync, afterFull, logger, log)
}

// openBolt opens a raft-boltdb log and checks every entry in it.
//
// The free page list is kept in memory only (NoFreelistSync, rebuilt from
// the live pages at open) and as a map (FreelistMapType). A Raft log frees
// every page of the entries a snapshot compacts away, and bbolt by default
// merges, sorts and rewrites its whole free list at each commit: with the
// pages of a 1M-znode fill freed, that was about 320 KB of garbage per write on
// a 3-server ensemble, and the collector it drove took most of the
// leader's CPU (docs/scale.md).
func openBolt(path string, noSync bool) (st *stores, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = damaged(path, -1, 0, "bolt database unreadable: %v", p)
		}
	}()
	bolt, err := raftboltdb.New(raftboltdb.Options{Path: path, NoSync: noSync, BoltOptions: &bbolt.Options{
		Timeout: time.Second, NoSync: noSync, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType}})
	if err != nil {
		return nil, damaged(path, -1, 0, "cannot open: %v", err)
	}
	logs, err := newSumLog(bolt, bolt, path)
	if err == nil {
		err = checkAllEntries(logs, path)
	}
	if err != nil {
		bolt.Close()
		return nil, err
	}
	return &stores{logs: logs, stable: bolt, close: bolt.Close}, nil
}

// openWAL checks the segment files in dir, truncating a torn tail, and
// opens them with raft-wal.
func openWAL(dir string, noSync, afterFull bool, logger hclog.Logger, log *slog.Logger) (st *stores, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	_, torn, err := checkWAL(dir, true, afterFull)
	if err != nil {
		return nil, err
	}
	fileReclaimer.removeReclaimed(dir)
	if torn != nil && log != nil {
		log.Warn("truncated the torn tail a crash left in the raft log", "file", torn.path, "offset", torn.offset,
			"bytes", torn.bytes, "uncommitted_entries", torn.entries)
	}
	// raft-wal v0.4.0's Close left its metadata database open (and
	// locked); v0.4.1's closes it. The WAL gets one it does not own, closed
	// here as well (a second Close does nothing), so that a failed open
	// releases it too.
	meta := &metadb.BoltMetaDB{}
	defer func() {
		if p := recover(); p != nil {
			meta.Close()
			err = damaged(dir, -1, 0, "raft-wal failed to open the log: %v", p)
		}
	}()
	w, err := wal.Open(dir, wal.WithLogger(logger.Named("wal")), wal.WithMetaStore(meta), wal.WithSegmentSize(walSegmentSize),
		wal.WithSegmentFiler(walFiler(dir, noSync)))
	if err != nil {
		meta.Close()
		return nil, damaged(dir, -1, 0, "raft-wal cannot open the log: %v", err)
	}
	closeAll := func() error { return errors.Join(w.Close(), meta.Close()) }
	logs, err := newSumLog(walHead{w}, w, dir)
	if err != nil {
		closeAll()
		return nil, err
	}
	return &stores{logs: logs, stable: w, close: closeAll}, nil
}

// checkAllEntries reads every entry of logs, which checks its checksum.
// An index missing from the middle is a hole Raft left when it installed a
// snapshot past the end of the log (a user restore on the leader, or
// InstallSnapshot on a follower, with a log that is not monotonic): the
// snapshot covers it, and Raft sends a follower that needs it the snapshot.
func checkAllEntries(logs *sumLog, file string) error {
	first, err := logs.FirstIndex()
	if err != nil {
		return damaged(file, -1, 0, "%v", err)
	}
	last, err := logs.LastIndex()
	if err != nil {
		return damaged(file, -1, 0, "%v", err)
	}
	var l raft.Log
	for i := first; i <= last && i > 0; i++ {
		if err := logs.GetLog(i, &l); errors.Is(err, ErrDamaged) {
			return err
		} else if errors.Is(err, raft.ErrLogNotFound) {
			continue
		} else if err != nil {
			return damaged(file, -1, i, "%v", err)
		}
	}
	return nil
}

// walSegmentSize is raft-wal's segment size; tests make it small to get
// sealed segments.
var walSegmentSize = wal.DefaultSegmentSize

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// matchLogToSnapshot compares the log with the newest snapshot, listing
// the snapshots and reading the log's ends once.
//
// A log that ends before the snapshot is emptied. A leader applies
// entries once a majority holds them on disk, possibly before its own log
// does (durablequorum.go), and its snapshots follow what it applied: a
// leader that crashed with appends unsynced may come back with a snapshot
// beyond the end of its log. The snapshot holds every entry the log does,
// and raft-wal accepts only the next index after its last, so the new
// entries after the snapshot would never be stored: the log is emptied
// instead, as Raft does when it installs a snapshot from a leader.
//
// A log whose first entry comes after the snapshot's index plus one is
// refused: the entries in between are in no file. That is what a
// compacted log looks like once its snapshots were deleted or lost. Raft
// would restore nothing (or an old snapshot) and then panic reading the
// missing entries; the server stops with the damage instead.
func (st *stores) matchLogToSnapshot(snapDir string, log *slog.Logger) error {
	last, err := st.logs.LastIndex()
	if err != nil || last == 0 {
		return err
	}
	first, err := st.logs.FirstIndex()
	if err != nil {
		return err
	}
	metas, err := st.snaps.List()
	if err != nil {
		return err
	}
	var snapIndex uint64
	if len(metas) > 0 {
		snapIndex = metas[0].Index
	}
	switch {
	case last < snapIndex:
		if log != nil {
			log.Info("the raft log ends before the last snapshot (this server led and stopped before its own log was synced); dropping the entries the snapshot holds",
				"log_first", first, "log_last", last, "snapshot_index", snapIndex)
		}
		return st.logs.DeleteRange(first, last)
	case first <= snapIndex+1:
		return nil
	case len(metas) == 0:
		return damaged(snapDir, -1, first-1, "no snapshot, but the Raft log starts at entry %d: the entries before it were compacted into snapshots that are gone", first)
	}
	return damaged(snapDir, -1, snapIndex+1, "the newest snapshot ends at entry %d, but the Raft log starts at entry %d: the entries between are in no file (newer snapshots were deleted?)", snapIndex, first)
}
