package consensus

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
)

// ErrNoData is returned by ReadState for directories without zkraft data.
var ErrNoData = errors.New("consensus: no zkraft data")

// ReadState returns the state a stopped server's durable stores hold: its
// newest snapshot with every command of the log after it applied, as the
// server would apply them when it starts and leads (in an ensemble, entries
// at the end of one member's log may not have been committed yet: read the
// member that led last, or any member after the ensemble stopped cleanly).
// It locks and checks the directories as a start does, so it refuses a
// directory a running server holds, or damaged data. cfg is the tree
// configuration the server runs with.
func ReadState(s Storage, cfg datatree.Config) (State, error) {
	if !s.Durable() {
		return State{}, errors.New("consensus: read state: no data directory")
	}
	logDir := s.LogDir
	if logDir == "" {
		logDir = s.DataDir
	}
	if !exists(filepath.Join(logDir, walDirName)) && !exists(filepath.Join(logDir, logFileName)) &&
		!exists(filepath.Join(s.DataDir, snapshotDirName)) {
		return State{}, fmt.Errorf("%w in %s", ErrNoData, s.DataDir)
	}
	stores, err := openStores(s, false, hclog.NewNullLogger(), nil)
	if err != nil {
		return State{}, err
	}
	defer stores.close()
	f := newFSM(cfg, nil, 0)
	after, err := restoreLatest(f, stores.snaps)
	if err != nil {
		return State{}, err
	}
	if err := replayLog(f, stores.logs, logDir, after); err != nil {
		return State{}, err
	}
	return f.st, nil
}

// restoreLatest restores the newest snapshot, if any, into f and returns
// its index.
func restoreLatest(f *fsm, snaps raft.SnapshotStore) (uint64, error) {
	metas, err := snaps.List()
	if err != nil || len(metas) == 0 {
		return 0, err
	}
	_, rc, err := snaps.Open(metas[0].ID)
	if err != nil {
		return 0, fmt.Errorf("consensus: open snapshot %s: %w", metas[0].ID, err)
	}
	if err := f.Restore(rc); err != nil {
		return 0, fmt.Errorf("consensus: snapshot %s: %w", metas[0].ID, err)
	}
	return metas[0].Index, nil
}

// replayLog applies every command entry after index after.
func replayLog(f *fsm, logs raft.LogStore, logDir string, after uint64) error {
	first, err := logs.FirstIndex()
	if err != nil {
		return err
	}
	last, err := logs.LastIndex()
	if err != nil {
		return err
	}
	if last > 0 && first > after+1 {
		return damaged(logDir, -1, first, "the log starts at entry %d, after the snapshot's %d: entries in between are missing", first, after)
	}
	const batch = 256
	var buf []*raft.Log
	for i := max(first, after+1); i <= last && i > 0; i++ {
		l := new(raft.Log)
		if err := logs.GetLog(i, l); err != nil {
			return fmt.Errorf("consensus: log entry %d: %w", i, err)
		}
		if l.Type != raft.LogCommand {
			continue
		}
		if _, err := DecodeCommand(l.Data); err != nil {
			return fmt.Errorf("consensus: log entry %d: %w", i, err)
		}
		if buf = append(buf, l); len(buf) == batch {
			f.ApplyBatch(buf)
			buf = buf[:0]
		}
	}
	f.ApplyBatch(buf)
	return nil
}
