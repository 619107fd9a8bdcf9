package consensus

import (
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// memLogStore is the Raft log of a node without a dataDir. It differs from
// raft.InmemStore in two ways that matter for memory:
//
//   - It keeps entries by value in one slice. InmemStore keeps the pointer
//     it is given, and on a leader that pointer is the log field inside
//     Raft's future for the proposal, so every retained entry also held
//     the future and the *Applied result the FSM returned through it (the
//     decoded command, its data, its watch events): about 1.2 KB per entry
//     at issue 6's workload instead of the entry's ~100-byte struct and
//     its encoded command.
//
//   - As the log of a standalone node (windowed), it forgets every entry
//     Raft has applied, except the last windowKeep, instead of keeping
//     everything since the last snapshot. See trim for why Raft can never
//     ask for an entry it forgot.
//
// Entries are contiguous from first. A store after a gap (which Raft only
// does on a follower, right after installing a snapshot that covers
// everything before the gap) drops what it held before the gap.
type memLogStore struct {
	mu      sync.Mutex
	entries []raft.Log
	first   uint64 // index of entries[0]; meaningless when entries is empty

	// applied returns the index up to which Raft has handed committed
	// entries to the FSM (raft.Raft.AppliedIndex). A windowed store trims
	// only once it is set, and never past it.
	applied func() uint64
	window  bool
}

// windowKeep is how many applied entries a windowed store keeps anyway:
// none are needed, but a short tail costs little and keeps LastIndex and
// FirstIndex ordinary (Raft reads LastIndex from the store to decide on
// snapshots).
const windowKeep = 64

// errNotContiguous is returned for an operation that would leave a hole
// in the middle of a memLogStore; Raft performs none.
var errNotContiguous = errors.New("consensus: log store: operation would leave a hole in the log")

func newMemLogStore(window bool) *memLogStore { return &memLogStore{window: window} }

// setApplied enables trimming of a windowed store.
func (s *memLogStore) setApplied(fn func() uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applied = fn
}

// FirstIndex implements raft.LogStore; 0 means empty.
func (s *memLogStore) FirstIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.entries) == 0 {
		return 0, nil
	}
	return s.first, nil
}

// LastIndex implements raft.LogStore; 0 means empty.
func (s *memLogStore) LastIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last(), nil
}

func (s *memLogStore) last() uint64 {
	if len(s.entries) == 0 {
		return 0
	}
	return s.first + uint64(len(s.entries)) - 1
}

// GetLog implements raft.LogStore.
func (s *memLogStore) GetLog(index uint64, log *raft.Log) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.entries) == 0 || index < s.first || index > s.last() {
		return raft.ErrLogNotFound
	}
	*log = s.entries[index-s.first]
	return nil
}

// StoreLog implements raft.LogStore.
func (s *memLogStore) StoreLog(log *raft.Log) error { return s.StoreLogs([]*raft.Log{log}) }

// StoreLogs implements raft.LogStore. It copies each entry (sharing its
// Data) rather than keeping the caller's pointer.
func (s *memLogStore) StoreLogs(logs []*raft.Log) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range logs {
		switch last := s.last(); {
		case len(s.entries) == 0 || l.Index > last+1:
			// First entry, or the first after a snapshot Raft installed:
			// everything before it is covered by that snapshot.
			s.dropPrefix(len(s.entries))
			s.first = l.Index
		case l.Index < s.first:
			return fmt.Errorf("consensus: log store: entry %d precedes the first held, %d", l.Index, s.first)
		case l.Index <= last:
			// Overwrite from here on, as a follower does after Raft
			// deleted a conflicting suffix.
			clear(s.entries[l.Index-s.first:])
			s.entries = s.entries[:l.Index-s.first]
		}
		s.entries = append(s.entries, *l)
	}
	s.trim()
	return nil
}

// trim drops the applied prefix of a windowed store, keeping windowKeep
// entries.
//
// Why Raft never needs a dropped entry on a standalone node (hashicorp/raft
// v1.7.3; these are all its reads of the log store):
//   - Applying: the leader hands committed entries (lastApplied,
//     commitIndex] to the FSM, taking them from its in-flight futures or
//     else from GetLog, and raises lastApplied when it has handed them
//     over (processLogs). An entry at or below AppliedIndex is therefore
//     never read for applying again; trim runs inside StoreLogs, which on
//     the leader is called from the same goroutine that raises it.
//   - Replicating: setupAppendEntries reads entries for followers. A
//     standalone node has none, and Node.ChangeMembership refuses to add
//     any to a node with a windowed log (a follower would need an
//     InstallSnapshot, and this node keeps no snapshot).
//   - Receiving AppendEntries: only followers do, and a standalone node
//     listens on an in-memory transport nobody else can reach.
//   - Startup: NewRaft scans the log after the last snapshot for
//     configuration entries; an in-memory node always starts from an
//     empty store, before anything is trimmed.
//   - Snapshots and compaction: FirstIndex, LastIndex and DeleteRange,
//     which cope with a shorter log (DeleteRange of what is already gone
//     does nothing).
//
// Nothing is lost by forgetting applied entries either: without a dataDir
// nothing survives a restart, and with no followers nothing is replayed.
func (s *memLogStore) trim() {
	if !s.window || s.applied == nil || len(s.entries) <= windowKeep {
		return
	}
	upTo := min(s.applied(), s.last()-windowKeep) // last index that may go
	if upTo < s.first {
		return
	}
	s.dropPrefix(int(upTo - s.first + 1))
}

// dropPrefix forgets the first k entries, moving the rest to a smaller
// array when most of the current one would be dead space.
func (s *memLogStore) dropPrefix(k int) {
	if k <= 0 {
		return
	}
	clear(s.entries[:k]) // release their Data
	rest := s.entries[k:]
	if len(rest) < cap(s.entries)/4 {
		rest = append(make([]raft.Log, 0, 2*len(rest)+16), rest...)
	}
	s.entries = rest
	s.first += uint64(k)
}

// DeleteRange implements raft.LogStore for the ranges Raft deletes: a
// prefix (compaction after a snapshot) or a suffix (a follower's
// conflicting entries), clamped to what the store holds.
func (s *memLogStore) DeleteRange(lo, hi uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.last()
	if len(s.entries) == 0 || hi < s.first || lo > last || lo > hi {
		return nil
	}
	switch {
	case lo <= s.first:
		s.dropPrefix(int(min(hi, last) - s.first + 1))
	case hi >= last:
		clear(s.entries[lo-s.first:])
		s.entries = s.entries[:lo-s.first]
	default:
		return errNotContiguous
	}
	return nil
}
