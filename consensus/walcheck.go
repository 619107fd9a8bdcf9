package consensus

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/raft-wal/metadb"
	"github.com/hashicorp/raft-wal/segment"
	"github.com/hashicorp/raft-wal/types"
	"go.etcd.io/bbolt"
)

// FileReport is what checking one file of a data directory found.
type FileReport struct {
	Path    string
	Summary string // what the file holds, e.g. "entries 1-5000, sealed"
	Note    string // something repaired or to be repaired, not damage (a torn tail)
	Damage  error  // a *DamageError, or nil
}

// tornTail is the unfinished last batch a crash left in the newest segment.
type tornTail struct {
	path          string
	offset, bytes int64
	entries       int
}

func (t *tornTail) String() string {
	return fmt.Sprintf("torn tail from a crash: %d bytes (%d uncommitted entries) after offset %d", t.bytes, t.entries, t.offset)
}

// walState reads raft-wal's metadata database: the segments in the log
// and the first index written with zkraft checksums. A missing database
// with segment files beside it is damage (raft-wal would try to start a
// new log over them); with none, the log is new.
func walState(dir string) (state types.PersistentState, sumFrom uint64, err error) {
	path := filepath.Join(dir, metadb.FileName)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		segs, _ := filepath.Glob(filepath.Join(dir, "*.wal"))
		if len(segs) > 0 {
			return state, 0, damaged(path, -1, 0, "missing, while %d segment files remain: without it the log cannot be read", len(segs))
		}
		return state, 0, nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = damaged(path, -1, 0, "bolt database unreadable: %v", p)
		}
	}()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return state, 0, damaged(path, -1, 0, "cannot open: %v", err)
	}
	defer db.Close()
	err = db.View(func(tx *bbolt.Tx) error {
		meta, stable := tx.Bucket([]byte(metadb.MetaBucket)), tx.Bucket([]byte(metadb.StableBucket))
		if meta == nil || stable == nil {
			return damaged(path, -1, 0, "raft-wal's buckets are missing")
		}
		if raw := meta.Get([]byte(metadb.MetaKey)); raw != nil {
			if err := json.Unmarshal(raw, &state); err != nil {
				return damaged(path, -1, 0, "segment list does not parse: %v", err)
			}
		}
		if raw := stable.Get(sumFromKey); len(raw) == 8 {
			sumFrom = binary.LittleEndian.Uint64(raw)
		}
		return nil
	})
	return state, sumFrom, err
}

// checkWAL checks every segment of the WAL in dir. With repair, a torn
// tail is zeroed (raft-wal would skip it, and leave it there to be found
// again at every start) and returned so the caller can log it. With
// afterFull (reopening after a full disk), a newest segment that holds
// nothing and is shorter than its preallocation is the segment raft-wal
// failed to create: it gets its preallocation now, so that it looks like
// any other new segment to raft-wal and to later checks.
func checkWAL(dir string, repair, afterFull bool) ([]FileReport, *tornTail, error) {
	state, sumFrom, err := walState(dir)
	if err != nil {
		return []FileReport{{Path: filepath.Join(dir, metadb.FileName), Damage: err}}, nil, err
	}
	if sumFrom == 0 {
		sumFrom = ^uint64(0) // older zkraft: no entry has a checksum yet
	}
	// At start the first damage ends the check; offline, every segment
	// gets its report.
	var reports []FileReport
	var torn *tornTail
	var first error
	for i, info := range state.Segments {
		tail := i == len(state.Segments)-1
		var rep FileReport
		var t *tornTail
		var err error
		if i > 0 && state.Segments[i-1].MaxIndex+1 != info.BaseIndex {
			d := damaged(filepath.Join(dir, segment.FileName(info)), -1, 0, "segment starts at index %d but the one before ends at %d", info.BaseIndex, state.Segments[i-1].MaxIndex)
			rep, err = FileReport{Path: d.File, Damage: d}, d
		} else {
			rep, t, err = checkSegment(dir, info, tail && afterFull, tail, sumFrom, repair)
		}
		reports = append(reports, rep)
		if err != nil && first == nil {
			first = err
		}
		if err != nil && repair {
			break
		}
		torn = t
	}
	return reports, torn, first
}

// checkSegment checks one segment file against the metadata's record of it.
// failedOK accepts a newest segment that failed its preallocation (see
// checkWAL's afterFull).
func checkSegment(dir string, info types.SegmentInfo, failedOK, tail bool, sumFrom uint64, repair bool) (FileReport, *tornTail, error) {
	path := filepath.Join(dir, segment.FileName(info))
	rep := FileReport{Path: path}
	fail := func(off int64, index uint64, format string, args ...any) (FileReport, *tornTail, error) {
		rep.Damage = damaged(path, off, index, format, args...)
		return rep, nil, rep.Damage
	}
	mode := os.O_RDONLY
	if repair {
		mode = os.O_RDWR
	}
	f, err := os.OpenFile(path, mode, 0)
	if os.IsNotExist(err) {
		return fail(-1, 0, "segment file is missing")
	} else if err != nil {
		return rep, nil, fmt.Errorf("consensus: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return rep, nil, fmt.Errorf("consensus: %w", err)
	}
	if info.SizeLimit > 0 && fi.Size() < int64(info.SizeLimit) && failedOK && repair && holdsNothing(f, fi.Size()) {
		if err := allocate(f, int64(info.SizeLimit)); err != nil {
			return rep, nil, fmt.Errorf("consensus: preallocate %s: %w", path, err)
		}
		if fi, err = f.Stat(); err != nil {
			return rep, nil, fmt.Errorf("consensus: %w", err)
		}
	}
	if info.SizeLimit > 0 && fi.Size() < int64(info.SizeLimit) {
		return fail(fi.Size(), 0, "file is %d bytes, shorter than the %d raft-wal preallocated: it was cut", fi.Size(), info.SizeLimit)
	}
	s := scanSegment(f, fi.Size(), info.BaseIndex, sumFrom)
	// A new segment's header is written with its first batch, so only the
	// newest segment, before its first commit, may lack one.
	if (!tail || s.end > 0) && (!s.headerOK || s.header != (segmentHeader{info.BaseIndex, info.ID, info.Codec})) {
		return fail(0, 0, "file header does not match wal-meta.db's record (base index %d, id %d)", info.BaseIndex, info.ID)
	}
	if s.entryErr != nil {
		return fail(s.entryErrO, 0, "%v", s.entryErr)
	}
	first, last := info.BaseIndex, info.BaseIndex+s.entries-1
	rep.Summary = fmt.Sprintf("entries %d-%d", first, last)
	if s.entries == 0 {
		rep.Summary = "no entries"
	}
	if !tail {
		switch {
		case s.badAt >= 0:
			return fail(s.badAt, 0, "%s", s.badWhy)
		case !s.sealed || s.uncommit > 0:
			return fail(s.end, 0, "sealed segment ends before its index frame")
		case last < info.MaxIndex:
			return fail(s.end, 0, "holds entries up to %d, wal-meta.db says %d", last, info.MaxIndex)
		case last > info.MaxIndex:
			// Raft dropped a conflicting suffix: raft-wal seals the segment
			// where it got to and records where the log now ends in it.
			rep.Summary = fmt.Sprintf("entries %d-%d (%d-%d dropped), sealed", first, info.MaxIndex, info.MaxIndex+1, last)
			return rep, nil, nil
		}
		rep.Summary += ", sealed"
		return rep, nil, nil
	}
	if s.badAt < 0 && s.uncommit == 0 {
		return rep, nil, nil
	}
	// Something after the last valid commit: torn by a crash if no valid
	// batch follows it (a crash only tears the last write), else damage.
	from := s.end
	rest := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(rest, from); err != nil && err != io.EOF {
		return rep, nil, fmt.Errorf("consensus: %w", err)
	}
	if s.badAt >= 0 && laterCommit(rest, s.badAt-from) {
		return fail(s.badAt, 0, "%s, with committed entries after it", s.badWhy)
	}
	t := &tornTail{path: path, offset: from, bytes: lastNonZero(rest, 0), entries: s.uncommit}
	rep.Note = t.String()
	if repair {
		if err := zeroRange(f, from, t.bytes); err != nil {
			return rep, nil, fmt.Errorf("consensus: truncate torn tail of %s: %w", path, err)
		}
		rep.Note += ", truncated"
	} else {
		rep.Note += ", to be truncated at the next start"
	}
	return rep, t, nil
}

// zeroRange overwrites n bytes at off with zeros and syncs the file, which
// truncates a preallocated segment's data there.
func zeroRange(f *os.File, off, n int64) error {
	zeros := make([]byte, min(n, 1<<20))
	for n > 0 {
		k := min(n, int64(len(zeros)))
		if _, err := f.WriteAt(zeros[:k], off); err != nil {
			return err
		}
		off, n = off+k, n-k
	}
	return f.Sync()
}

// holdsNothing reports whether the first size bytes of f are all zero.
func holdsNothing(f *os.File, size int64) bool {
	buf := make([]byte, 64<<10)
	for off := int64(0); off < size; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if lastNonZero(buf[:n], 0) > 0 {
			return false
		}
		if err != nil {
			return err == io.EOF
		}
		off += int64(n)
	}
	return true
}
