package consensus

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc64"
	"io"
	"runtime"
)

// Backup format, version 1. A backup is self-checking: a header, a
// snapshot in the format Raft's snapshots use (snapshot.go, format 2), and
// a checksum of everything before it:
//
//	header:   int magic "ZKBK", int version (1), long last zxid,
//	          long length of the snapshot
//	snapshot: 16-byte snapshot header, then the state
//	trailer:  CRC-64 (ECMA) of the header and the snapshot, 8 bytes
//
// A stream that is cut short, has bytes changed, or goes on after the
// trailer is refused before anything is restored (backupread.go).
const (
	backupMagic   int32 = 0x5a4b424b // "ZKBK"
	backupVersion int32 = 1
	backupHeadLen       = 24
	backupSumLen        = 8
)

// crcTable is the CRC-64 (ECMA) table, as Raft's snapshot store uses.
var crcTable = crc64.MakeTable(crc64.ECMA)

// ErrBackupClosed is returned by Backup.WriteTo after Close.
var ErrBackupClosed = errors.New("consensus: backup closed")

// Backup is a consistent snapshot of the replicated state at LastZxid,
// encoded in memory and ready to be written.
type Backup struct {
	// LastZxid is the zxid of the last transaction in the backup.
	LastZxid int64
	head     [backupHeadLen + headerLen]byte
	state    chunkBuffer
	sum      [backupSumLen]byte
	closed   bool
}

// OpenBackup takes a backup of this replica's state without stopping
// writes, as Raft's snapshots do (fsm.Snapshot): the session table and the
// counters are copied and the tree frozen under the state lock, which
// costs nothing more; the frozen view is then encoded holding the read
// lock for short steps only, while entries go on being applied. The
// backup is exact at its zxid. It lives in memory (about the size of a
// snapshot) until Close.
func (n *Node) OpenBackup(ctx context.Context) (*Backup, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f := n.fsm
	f.mu.Lock()
	s := f.freeze()
	lastZxid := f.st.LastZxid
	f.mu.Unlock()
	if err := s.encode(); err != nil {
		s.Release()
		return nil, err
	}
	b := &Backup{LastZxid: lastZxid, state: s.state}
	binary.BigEndian.PutUint32(b.head[:4], uint32(backupMagic))
	binary.BigEndian.PutUint32(b.head[4:8], uint32(backupVersion))
	binary.BigEndian.PutUint64(b.head[8:16], uint64(lastZxid))
	binary.BigEndian.PutUint64(b.head[16:24], uint64(headerLen+b.state.size))
	snapHead := snapshotHeader(snapshotFormat, b.state.size)
	copy(b.head[backupHeadLen:], snapHead[:])
	h := crc64.New(crcTable)
	h.Write(b.head[:])
	for _, c := range b.state.chunks {
		h.Write(c)
		runtime.Gosched() // as the walk does (yield.go): writes run between chunks
	}
	binary.BigEndian.PutUint64(b.sum[:], h.Sum64())
	return b, nil
}

// Size is the exact number of bytes WriteTo writes.
func (b *Backup) Size() int64 { return int64(len(b.head)) + b.state.size + backupSumLen }

// WriteTo writes the backup to w; it may be called more than once.
func (b *Backup) WriteTo(w io.Writer) (int64, error) {
	if b.closed {
		return 0, ErrBackupClosed
	}
	total, err := writeCounted(w, b.head[:], 0)
	for _, c := range b.state.chunks {
		if err != nil {
			return total, err
		}
		total, err = writeCounted(w, c, total)
	}
	if err != nil {
		return total, err
	}
	return writeCounted(w, b.sum[:], total)
}

func writeCounted(w io.Writer, p []byte, total int64) (int64, error) {
	n, err := w.Write(p)
	return total + int64(n), err
}

// Close releases the backup's memory.
func (b *Backup) Close() error {
	b.closed = true
	b.state.reset()
	return nil
}
