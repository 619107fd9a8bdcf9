package consensus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/metadb"
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
	// window is the log of an in-memory standalone node, which forgets
	// applied entries once Raft is bound to it (see memLogStore.trim);
	// nil otherwise.
	window *memLogStore
	// guard keeps a durable node serving while its log disk is full
	// (diskguard.go); nil in memory.
	guard *diskGuard
}

// bind tells the stores about the Raft instance that uses them.
func (st *stores) bind(r *raft.Raft) {
	if st.window != nil {
		st.window.setApplied(r.AppliedIndex)
	}
	st.bindGuard(r)
}

// Directory names under dataDir and dataLogDir. ZooKeeper's own files live
// in version-2/, so both servers' data can share a directory by mistake
// without overwriting each other.
const (
	snapshotDirName = "zkraft-snapshots"
	logFileName     = "zkraft-raft.db"
	walDirName      = "zkraft-wal"
)

// openStores opens the stores s describes. Without a dataDir, a
// standalone node's log keeps only a short window of entries, and an
// ensemble member's the whole log since the last snapshot, which its
// followers may need.
func openStores(s Storage, standalone bool, logger hclog.Logger) (*stores, error) {
	if !s.Durable() {
		logs := newMemLogStore(standalone)
		st := &stores{logs: logs, stable: raft.NewInmemStore(), snaps: newMemSnapshotStore(), close: func() error { return nil }}
		if standalone {
			st.window = logs
		}
		return st, nil
	}
	logDir := s.LogDir
	if logDir == "" {
		logDir = s.DataDir
	}
	for _, d := range []string{s.DataDir, logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("consensus: create %s: %w", d, err)
		}
	}
	st, err := openDurableLog(logDir, s.NoSync, logger)
	if err != nil {
		return nil, fmt.Errorf("consensus: open raft log in %s: %w", logDir, err)
	}
	retain := max(s.SnapshotRetain, 1)
	st.snaps, err = raft.NewFileSnapshotStoreWithLogger(filepath.Join(s.DataDir, snapshotDirName), retain, logger)
	if err != nil {
		st.close()
		return nil, fmt.Errorf("consensus: open snapshots in %s: %w", s.DataDir, err)
	}
	reopen := func() (*stores, error) { return openDurableLog(logDir, s.NoSync, logger) }
	return guardStores(st, logDir, reopen, s.Faults, standalone), nil
}

// openDurableLog opens the log and stable store in logDir. A log that is
// already there keeps its format. A new one is a write-ahead log of
// segment files (hashicorp/raft-wal), which makes each batch of entries
// durable with one fsync (raft-boltdb's B+tree commit takes two, and its
// page writes), unless forceSync=no asked for no syncing: raft-wal always
// syncs, so that case uses raft-boltdb with syncing off.
func openDurableLog(logDir string, noSync bool, logger hclog.Logger) (*stores, error) {
	boltPath, walDir := filepath.Join(logDir, logFileName), filepath.Join(logDir, walDirName)
	useBolt := noSync
	if exists(boltPath) {
		useBolt = true
	} else if exists(walDir) {
		useBolt = false
	}
	if useBolt {
		bolt, err := raftboltdb.New(raftboltdb.Options{Path: boltPath, NoSync: noSync})
		if err != nil {
			return nil, err
		}
		return &stores{logs: bolt, stable: bolt, close: bolt.Close}, nil
	}
	if err := os.MkdirAll(walDir, 0o755); err != nil {
		return nil, err
	}
	// raft-wal v0.4.0's Close leaves its metadata database open (and
	// locked), so the WAL gets one it does not own and both are closed here.
	meta := &metadb.BoltMetaDB{}
	w, err := wal.Open(walDir, wal.WithLogger(logger.Named("wal")), wal.WithMetaStore(meta))
	if err != nil {
		meta.Close()
		return nil, err
	}
	return &stores{logs: w, stable: w, close: func() error { return errors.Join(w.Close(), meta.Close()) }}, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
