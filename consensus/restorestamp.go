package consensus

import (
	"encoding/binary"

	"github.com/hashicorp/raft"
)

// stampStore is the snapshot store Raft is given: the node's own store,
// whose sinks stamp a user restore's snapshot (format 3, restore.go) with
// the index and term Raft stores it at. The leader's sink stamps it as
// Raft's user restore writes it; the stamped bytes are what the leader's
// FSM restores and what InstallSnapshot sends to followers, so every
// replica reads the same stamp. A stamp already written is never changed.
type stampStore struct{ raft.SnapshotStore }

// Create implements raft.SnapshotStore.
func (s stampStore) Create(version raft.SnapshotVersion, index, term uint64, configuration raft.Configuration,
	configurationIndex uint64, trans raft.Transport) (raft.SnapshotSink, error) {
	sink, err := s.SnapshotStore.Create(version, index, term, configuration, configurationIndex, trans)
	if err != nil {
		return nil, err
	}
	return &stampSink{SnapshotSink: sink, st: stamp{index: index, term: term}}, nil
}

// stampEnd is where a format 3 stamp ends: the sink holds back the bytes
// before it until it has them all.
const stampEnd = headerLen + stampLen

// stampSink passes a snapshot on, stamping a format 3 snapshot whose stamp
// is still zero.
type stampSink struct {
	raft.SnapshotSink
	st     stamp
	head   []byte // the first bytes, held until stampEnd of them arrived
	passed bool   // the head was written: the rest passes through
}

// Write implements raft.SnapshotSink.
func (k *stampSink) Write(p []byte) (int, error) {
	if k.passed {
		return k.SnapshotSink.Write(p)
	}
	n := len(p)
	take := min(stampEnd-len(k.head), len(p))
	k.head = append(k.head, p[:take]...)
	p = p[take:]
	if len(k.head) < stampEnd {
		return n, nil
	}
	if err := k.flushHead(); err != nil {
		return 0, err
	}
	if len(p) > 0 {
		if _, err := k.SnapshotSink.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// flushHead stamps the held head if it is an unstamped format 3 snapshot
// and writes it.
func (k *stampSink) flushHead() error {
	k.passed = true
	h := k.head
	if len(h) == stampEnd && int32(binary.BigEndian.Uint32(h[:4])) == snapshotMagic &&
		int32(binary.BigEndian.Uint32(h[4:8])) == restoreFormat &&
		binary.BigEndian.Uint64(h[headerLen:]) == 0 && binary.BigEndian.Uint64(h[headerLen+8:]) == 0 {
		binary.BigEndian.PutUint64(h[headerLen:], k.st.index)
		binary.BigEndian.PutUint64(h[headerLen+8:], k.st.term)
	}
	k.head = nil
	if len(h) == 0 {
		return nil
	}
	_, err := k.SnapshotSink.Write(h)
	return err
}

// Close implements raft.SnapshotSink, writing a head shorter than a stamp.
func (k *stampSink) Close() error {
	if !k.passed {
		if err := k.flushHead(); err != nil {
			k.SnapshotSink.Cancel()
			return err
		}
	}
	return k.SnapshotSink.Close()
}
