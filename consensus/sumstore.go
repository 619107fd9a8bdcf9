package consensus

import (
	"fmt"

	"github.com/hashicorp/raft"
)

// sumFromKey names the stable-store value holding the first log index
// written with checksums. Entries below it come from an older zkraft,
// which wrote none; they are read unchecked.
var sumFromKey = []byte("zkraft.logsum.from")

// sumLog is a durable raft.LogStore with a checksum on every entry (see
// logsum.go): it seals entries on the way in and checks them on the way
// out. It also turns a panic inside the library (which damaged pages or
// frames can cause) into an error.
type sumLog struct {
	inner raft.LogStore
	from  uint64 // first index that must carry a checksum
	file  string // the log's file or directory, for errors
	// onDamage hears of an entry failing its checksum once the node runs.
	onDamage func(error)
}

// newSumLog wraps inner. A log without the marker gets one: every entry
// after its current last index carries a checksum.
func newSumLog(inner raft.LogStore, stable raft.StableStore, file string) (*sumLog, error) {
	from, err := stable.GetUint64(sumFromKey)
	if err != nil || from == 0 {
		last, err := inner.LastIndex()
		if err != nil {
			return nil, err
		}
		from = last + 1
		if err := stable.SetUint64(sumFromKey, from); err != nil {
			return nil, err
		}
	}
	return &sumLog{inner: inner, from: from, file: file}, nil
}

// FirstIndex implements raft.LogStore.
func (s *sumLog) FirstIndex() (i uint64, err error) {
	defer recoverStore("FirstIndex", &err)
	return s.inner.FirstIndex()
}

// LastIndex implements raft.LogStore.
func (s *sumLog) LastIndex() (i uint64, err error) {
	defer recoverStore("LastIndex", &err)
	return s.inner.LastIndex()
}

// GetLog implements raft.LogStore, checking the entry's checksum.
func (s *sumLog) GetLog(index uint64, l *raft.Log) (err error) {
	defer recoverStore("GetLog", &err)
	if err := s.inner.GetLog(index, l); err != nil {
		return err
	}
	if err := openEntry(l, index < s.from); err != nil {
		d := damaged(s.file, -1, index, "%v", err)
		if s.onDamage != nil {
			s.onDamage(d)
		}
		return d
	}
	return nil
}

// StoreLog implements raft.LogStore.
func (s *sumLog) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// StoreLogs implements raft.LogStore, sealing copies of the entries.
func (s *sumLog) StoreLogs(logs []*raft.Log) (err error) {
	defer recoverStore("StoreLogs", &err)
	sealed := make([]raft.Log, len(logs))
	ptrs := make([]*raft.Log, len(logs))
	for i, l := range logs {
		sealed[i] = sealEntry(l)
		ptrs[i] = &sealed[i]
	}
	return s.inner.StoreLogs(ptrs)
}

// DeleteRange implements raft.LogStore.
func (s *sumLog) DeleteRange(lo, hi uint64) (err error) {
	defer recoverStore("DeleteRange", &err)
	return s.inner.DeleteRange(lo, hi)
}

// IsMonotonic implements raft.MonotonicLogStore as the wrapped store does
// (raft-wal is monotonic: Raft must empty it after installing a snapshot).
func (s *sumLog) IsMonotonic() bool {
	m, ok := s.inner.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

// recoverStore turns a panic in a log library into an error.
func recoverStore(op string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: raft log library panicked in %s: %v", ErrDamaged, op, p)
	}
}
