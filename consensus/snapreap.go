package consensus

import (
	"math"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// reapingSnapshots keeps the newest retain snapshots of a FileSnapshotStore
// and hands older ones to the reclaimer (reclaim.go). The store reaps on
// its own, in the Close of every new snapshot, by removing the oldest
// snapshot's directory: at 10M znodes 1.4 GB freed in one unlink, during
// which any sync on the disk waited (a log append under forceSync=yes, or
// raft-wal's metadata commit, which holds the log's appends). Here the
// store is opened keeping every snapshot, and once a new one is closed the
// ones past retain are moved out of the store's directory, into its
// parent, and freed a step at a time.
type reapingSnapshots struct {
	*raft.FileSnapshotStore
	base   string // the store's directory, parent of snapshotsSubdir
	retain int
	logger hclog.Logger
}

// keepAll is the retain the FileSnapshotStore under reapingSnapshots gets.
const keepAll = math.MaxInt32

func newReapingSnapshots(base string, retain int, logger hclog.Logger) (*reapingSnapshots, error) {
	files, err := raft.NewFileSnapshotStoreWithLogger(base, keepAll, logger)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	s := &reapingSnapshots{FileSnapshotStore: files, base: base, retain: max(retain, 1), logger: logger}
	fileReclaimer.removeReclaimed(base)
	return s, nil
}

// List implements raft.SnapshotStore: the newest retain snapshots.
func (s *reapingSnapshots) List() ([]*raft.SnapshotMeta, error) {
	metas, err := s.FileSnapshotStore.List()
	if len(metas) > s.retain {
		metas = metas[:s.retain]
	}
	return metas, err
}

// Create implements raft.SnapshotStore.
func (s *reapingSnapshots) Create(version raft.SnapshotVersion, index, term uint64, configuration raft.Configuration,
	configurationIndex uint64, trans raft.Transport) (raft.SnapshotSink, error) {
	sink, err := s.FileSnapshotStore.Create(version, index, term, configuration, configurationIndex, trans)
	if err != nil {
		return nil, err
	}
	state := filepath.Join(s.base, snapshotsSubdir, sink.ID()+snapshotTmpSuffix, snapshotStateFile)
	return &reapingSink{SnapshotSink: sink, store: s, pace: openWriteback(state)}, nil
}

// reap retires every snapshot past the newest retain.
func (s *reapingSnapshots) reap() {
	metas, err := s.FileSnapshotStore.List()
	if err != nil {
		return
	}
	for _, m := range metas[min(s.retain, len(metas)):] {
		fileReclaimer.retire(filepath.Join(s.base, snapshotsSubdir, m.ID), filepath.Join(s.base, m.ID+reclaimedSuffix))
	}
}

// reapingSink paces the write-out of its file as it is written
// (writeback.go) and reaps its store once it is closed.
type reapingSink struct {
	raft.SnapshotSink
	store *reapingSnapshots
	pace  *writeback // nil if the file was not where the store keeps it
	// closed is set once Close succeeded.
	closed bool
}

// Write implements io.Writer.
func (k *reapingSink) Write(p []byte) (int, error) {
	n, err := k.SnapshotSink.Write(p)
	k.pace.add(n)
	return n, err
}

// Cancel implements raft.SnapshotSink.
func (k *reapingSink) Cancel() error {
	k.pace.close()
	return k.SnapshotSink.Cancel()
}

// Close implements raft.SnapshotSink.
func (k *reapingSink) Close() error {
	if k.closed {
		// Persist closes the sink, and Raft closes it again.
		return nil
	}
	k.pace.close()
	start := time.Now()
	if err := k.SnapshotSink.Close(); err != nil {
		return err
	}
	k.closed = true
	k.store.logger.Info("snapshot file written", "id", k.ID(), "paced_steps", k.pace.steps(),
		"pacing_wait", k.pace.wait(), "final_sync", time.Since(start))
	k.store.reap()
	return nil
}
