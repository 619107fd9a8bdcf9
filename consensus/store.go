package consensus

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
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
}

// bind tells the stores about the Raft instance that uses them.
func (st *stores) bind(r *raft.Raft) {
	if st.window != nil {
		st.window.setApplied(r.AppliedIndex)
	}
}

// Directory names under dataDir and dataLogDir. ZooKeeper's own files live
// in version-2/, so both servers' data can share a directory by mistake
// without overwriting each other.
const (
	snapshotDirName = "zkraft-snapshots"
	logFileName     = "zkraft-raft.db"
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
	bolt, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(logDir, logFileName), NoSync: s.NoSync})
	if err != nil {
		return nil, fmt.Errorf("consensus: open raft log in %s: %w", logDir, err)
	}
	retain := max(s.SnapshotRetain, 1)
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(s.DataDir, snapshotDirName), retain, logger)
	if err != nil {
		bolt.Close()
		return nil, fmt.Errorf("consensus: open snapshots in %s: %w", s.DataDir, err)
	}
	return &stores{logs: bolt, stable: bolt, snaps: snaps, close: bolt.Close}, nil
}
