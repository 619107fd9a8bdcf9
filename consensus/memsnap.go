package consensus

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// memSnapshotStore keeps the latest snapshot of a node without a dataDir,
// for followers that need an InstallSnapshot. It replaces
// raft.InmemSnapshotStore, which holds the snapshot in a bytes.Buffer: one
// array that doubles as it grows (up to twice the snapshot's size, kept
// for good) and is copied again while it grows. Here the snapshot is held
// in fixed-size chunks. A new snapshot replaces the previous one only once
// its sink is closed, so a cancelled or failed one leaves the last good
// one in place.
type memSnapshotStore struct {
	mu     sync.RWMutex
	latest *memSnapshot
}

type memSnapshot struct {
	meta raft.SnapshotMeta
	data chunkBuffer
}

func newMemSnapshotStore() *memSnapshotStore { return &memSnapshotStore{} }

// Create implements raft.SnapshotStore.
func (s *memSnapshotStore) Create(version raft.SnapshotVersion, index, term uint64,
	configuration raft.Configuration, configurationIndex uint64, _ raft.Transport) (raft.SnapshotSink, error) {
	if version < raft.SnapshotVersionMin || version > raft.SnapshotVersionMax {
		return nil, fmt.Errorf("consensus: unsupported snapshot version %d", version)
	}
	return &memSnapshotSink{store: s, snap: &memSnapshot{meta: raft.SnapshotMeta{
		Version:            version,
		ID:                 fmt.Sprintf("%d-%d-%d", term, index, time.Now().UnixMilli()),
		Index:              index,
		Term:               term,
		Configuration:      configuration,
		ConfigurationIndex: configurationIndex,
	}}}, nil
}

// List implements raft.SnapshotStore: the latest snapshot, if any.
func (s *memSnapshotStore) List() ([]*raft.SnapshotMeta, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.latest == nil {
		return nil, nil
	}
	meta := s.latest.meta
	return []*raft.SnapshotMeta{&meta}, nil
}

// Open implements raft.SnapshotStore. The contents of a closed snapshot
// never change, so any number of readers can share them.
func (s *memSnapshotStore) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.latest == nil || s.latest.meta.ID != id {
		return nil, nil, fmt.Errorf("consensus: no snapshot %q", id)
	}
	meta := s.latest.meta
	return &meta, io.NopCloser(s.latest.data.reader()), nil
}

// memSnapshotSink collects one snapshot.
type memSnapshotSink struct {
	store *memSnapshotStore
	snap  *memSnapshot
	done  bool
}

// Write implements raft.SnapshotSink; it copies p.
func (k *memSnapshotSink) Write(p []byte) (int, error) {
	if k.done {
		return 0, fmt.Errorf("consensus: snapshot %s already closed", k.snap.meta.ID)
	}
	return k.snap.data.Write(p)
}

// Close implements raft.SnapshotSink: the snapshot becomes the latest.
func (k *memSnapshotSink) Close() error {
	if k.done {
		return nil
	}
	k.done = true
	k.snap.meta.Size = k.snap.data.size
	k.store.mu.Lock()
	defer k.store.mu.Unlock()
	k.store.latest = k.snap
	return nil
}

// ID implements raft.SnapshotSink.
func (k *memSnapshotSink) ID() string { return k.snap.meta.ID }

// Cancel implements raft.SnapshotSink: the snapshot is dropped.
func (k *memSnapshotSink) Cancel() error {
	if !k.done {
		k.done = true
		k.snap.data.reset()
	}
	return nil
}
