package consensus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// Snapshot format. A snapshot is a 16-byte header, then the state:
//
//	header: int magic "ZKRS", int format (2), long length of the state
//	state:  long term, int counter, long last zxid, the session table
//	        (session.Table.Snapshot), the data tree (datatree's own
//	        format, with its own magic and version), long config version,
//	        the membership (encodePeers)
//
// Format 3 is a user restore (restore.go): the same header, then the Raft
// index and term of the restore (stamped by the snapshot store when Raft
// stores it, zero until then), then a format 2 state whose ephemerals and
// sessions the restore ends and whose zxid it moves above every earlier one.
//
// Format 4 (snapstream.go) is format 2 written in one pass: the header's
// length is 0 and the snapshot store supplies it.
//
// Format 1, written before the header existed, is the state alone. Its
// first four bytes are the high half of the term, which is 0 (a term of
// 2^32 or more would not fit in a zxid), so it is told apart from format 2
// by them and is still read.
const (
	snapshotMagic  int32 = 0x5a4b5253 // "ZKRS"
	snapshotFormat int32 = 2
	headerLen            = 16
)

// Snapshot implements raft.FSM.
//
// Consistency: Raft calls Snapshot on its FSM goroutine, the goroutine that
// applies entries, between two applies; the index it records for the
// snapshot is that of the last entry applied. Snapshot records everything
// but the data tree (counters, session table, membership) and freezes the
// tree (datatree.Tree.Freeze): a view of it as it is after that entry,
// which costs nothing to take. Persist then encodes the view on Raft's
// snapshot goroutine while entries go on being applied: the tree keeps
// what the view needs past every change it makes meanwhile, so the
// snapshot is exact at its index, not fuzzy.
//
// Cost: Snapshot holds the lock for the session table's encoding only.
// Persist takes the read lock for short steps (about a thousand znodes
// each, or a copy of one wide node's child table), so an apply waits at
// most one step. Persist streams the encoding to the file as it walks the
// view, so a snapshot holds no copy of the tree's encoding (a backup,
// which lives in memory until read, keeps its encoding in fixed-size
// chunks: backup.go).
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.snaps != nil {
		f.snaps.taken(f.appliedIndex.Load())
	}
	s := f.freeze()
	s.took = f.snapshotTime
	if f.snaps != nil {
		s.sized = f.snaps.sized
	}
	f.lastSnap.note(f.st.LastZxid)
	f.timeline.add(TimelineEvent{Kind: TimelineSnapshotTaken, Term: f.term, Zxid: f.st.LastZxid})
	return s, nil
}

// freeze records the state as it is now, all but the tree encoded and the
// tree frozen, for Persist or a backup (backup.go). The caller holds mu.
func (f *fsm) freeze() *snapshot {
	s := &snapshot{lock: newYieldingLocker(f.mu.RLocker(), &f.walkers), exclusive: &f.mu}
	var e wire.Encoder
	e.Long(int64(f.term))
	e.Int(int32(f.counter))
	e.Long(f.st.LastZxid)
	f.st.Sessions.Snapshot(&e)
	s.state.Write(e.Bytes())
	var tail wire.Encoder
	tail.Long(f.configVersion)
	encodePeers(&tail, f.members)
	s.tail = tail.Bytes()
	s.view = f.st.Tree.Freeze()
	return s
}

// Restore implements raft.FSM. It decodes the snapshot as it reads it,
// holding a small window of it rather than the whole, and builds the new
// state before taking the lock to swap it in.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	defer func(start time.Time) { f.restoreTook.Store(int64(time.Since(start))) }(time.Now())
	counted := &countingReader{r: rc}
	rs, err := readSnapshot(counted, f.treeCfg)
	if err != nil {
		return err
	}
	if f.snaps != nil {
		f.snaps.sized(counted.n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setCounter(rs.term, rs.counter)
	f.st = rs.st
	f.lastSnap.note(rs.st.LastZxid)
	f.timeline.add(TimelineEvent{Kind: TimelineSnapshotInstalled, Term: f.term, Zxid: rs.st.LastZxid})
	if f.snaps != nil {
		f.snaps.restored = true
	}
	if len(rs.members) > 0 { // a reconfig happened before the snapshot
		f.members, f.configVersion = rs.members, rs.configVersion
		f.config = FormatMembership(rs.members, rs.configVersion)
		if f.onMembers != nil {
			f.onMembers(rs.members)
		}
	}
	f.installConfig()
	if rs.restoreZxid != 0 {
		f.restoredZxid.Store(rs.restoreZxid)
	}
	if f.onRestore != nil {
		f.onRestore(&f.st)
	}
	return nil
}

// readSnapshot reads and decodes a whole snapshot, of any format this
// server reads.
func readSnapshot(rc io.Reader, cfg datatree.Config) (*restoredState, error) {
	var head [headerLen]byte
	if _, err := io.ReadFull(rc, head[:4]); err != nil {
		return nil, fmt.Errorf("consensus: read snapshot: %w", err)
	}
	var d *wire.Decoder
	format := int32(1)
	switch int32(binary.BigEndian.Uint32(head[:4])) {
	case snapshotMagic:
		if _, err := io.ReadFull(rc, head[4:]); err != nil {
			return nil, fmt.Errorf("consensus: read snapshot: %w", err)
		}
		format = int32(binary.BigEndian.Uint32(head[4:8]))
		if format == streamedFormat {
			return nil, errStreamedNoLength
		}
		if format != snapshotFormat && format != restoreFormat {
			return nil, fmt.Errorf("consensus: snapshot format %d, this server reads %d and %d", format, snapshotFormat, restoreFormat)
		}
		size := int64(binary.BigEndian.Uint64(head[8:]))
		if size < 0 {
			return nil, errors.New("consensus: snapshot with a negative length")
		}
		d = wire.NewReaderDecoder(rc, size, 0)
	case 0: // format 1: no length, so read it whole
		rest, err := io.ReadAll(rc)
		if err != nil {
			return nil, fmt.Errorf("consensus: read snapshot: %w", err)
		}
		d = wire.NewReaderDecoder(io.MultiReader(bytes.NewReader(head[:4]), bytes.NewReader(rest)), int64(4+len(rest)), 0)
	default:
		return nil, errors.New("consensus: not a zkraft snapshot")
	}
	var st stamp
	if format == restoreFormat {
		st = stamp{index: uint64(d.Long()), term: uint64(d.Long())}
	}
	rs, err := decodeState(d, cfg)
	if err != nil {
		return nil, err
	}
	if d.Remaining() != 0 {
		return nil, fmt.Errorf("consensus: restore: %d bytes after the state", d.Remaining())
	}
	// A stream decoder reads no further than the length in the header.
	// Reading on to the end also lets a snapshot store check the whole
	// file (snapopen.go), so an error there fails the restore.
	if n, err := io.ReadFull(rc, head[:1]); n != 0 {
		return nil, errors.New("consensus: restore: bytes after the state")
	} else if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("consensus: read snapshot: %w", err)
	}
	if format == restoreFormat {
		if err := rs.rebase(st); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// restoredState is a snapshot's state, decoded.
type restoredState struct {
	st            State
	restoreZxid   int64 // a user restore's zxid (restore.go); 0 otherwise
	term          uint64
	counter       uint32
	configVersion int64
	members       []Peer
}

func decodeState(d *wire.Decoder, cfg datatree.Config) (*restoredState, error) {
	rs := &restoredState{}
	rs.term, rs.counter = uint64(d.Long()), uint32(d.Int())
	rs.st.LastZxid = d.Long()
	sessions, err := session.RestoreTable(d)
	if err != nil {
		return nil, fmt.Errorf("consensus: restore sessions: %w", err)
	}
	tree, err := datatree.Restore(d, cfg)
	if err != nil {
		return nil, fmt.Errorf("consensus: restore tree: %w", err)
	}
	rs.st.Tree, rs.st.Sessions = tree, sessions
	rs.configVersion, rs.members = d.Long(), decodePeers(d)
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("consensus: restore membership: %w", err)
	}
	return rs, nil
}

// snapshot is a state waiting to be persisted: the encoded part before
// the tree, the tree's view and the encoded part after it.
type snapshot struct {
	state chunkBuffer
	view  *datatree.View
	tail  []byte
	// lock is the FSM's read lock, held by the view's walk in steps;
	// exclusive is the FSM's lock, held to close the view.
	lock      sync.Locker
	exclusive sync.Locker
	// took records how long Persist took (ZooKeeper's snapshottime); nil
	// records nothing.
	took *metrics.Summary
	// sized, when set, is told the snapshot's size once it is written.
	sized func(int64)
}

// Persist implements raft.FSMSnapshot. It walks the view once, writing
// its encoding to the sink as it goes (format 4: the length the header
// would carry is the store's, snapstream.go), so a snapshot never holds
// its whole encoding in memory (a snapshot of a tree of gigabytes used to
// hold a copy of it, a large part of the server's peak RSS at 10M znodes)
// nor walks the view twice to count it first. The sink is written with no
// lock held.
func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	if s.took != nil {
		defer s.took.ObserveSince(time.Now())
	}
	size, err := s.stream(sink)
	s.closeView()
	s.state.reset()
	if err != nil {
		sink.Cancel()
		return err
	}
	if err := sink.Close(); err != nil {
		return err
	}
	if s.sized != nil {
		s.sized(headerLen + size)
	}
	return nil
}

// stream writes the header, the sessions, the view and the tail to w and
// returns the length after the header.
func (s *snapshot) stream(w io.Writer) (int64, error) {
	if s.view == nil {
		return 0, errors.New("consensus: snapshot already persisted or released")
	}
	head := snapshotHeader(streamedFormat, 0)
	if _, err := w.Write(head[:]); err != nil {
		return 0, err
	}
	size := s.state.size
	if err := s.state.drainTo(w); err != nil {
		return 0, err
	}
	view := byteCounter{w: w}
	if err := s.view.WriteTo(&view, s.lock); err != nil {
		return 0, err
	}
	if _, err := w.Write(s.tail); err != nil {
		return 0, err
	}
	return size + view.n + int64(len(s.tail)), nil
}

// byteCounter counts the bytes written through it to w.
type byteCounter struct {
	w io.Writer
	n int64
}

func (c *byteCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// encode writes the view and the tail after the sessions, then closes the
// view so that the tree stops keeping changes for it.
func (s *snapshot) encode() error {
	if s.view == nil {
		return errors.New("consensus: snapshot already persisted or released")
	}
	err := s.view.WriteTo(&s.state, s.lock)
	s.closeView()
	if err != nil {
		return err
	}
	s.state.Write(s.tail)
	return nil
}

func (s *snapshot) closeView() {
	if s.view == nil {
		return
	}
	s.exclusive.Lock()
	s.view.Close()
	s.exclusive.Unlock()
	s.view = nil
}

// Release implements raft.FSMSnapshot.
func (s *snapshot) Release() {
	s.closeView()
	s.state.reset()
}
