package consensus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/raft"
)

// Format 4 is how a server writes its own snapshots since the walk became
// single: format 2's header with a length of 0, then format 2's state.
// The header comes first and the state's length is known only once the
// walk is over, so the length is left out; the snapshot store knows it
// (meta.json's size, which hashicorp/raft's FileSnapshotStore records and
// checks with the CRC, less the header). Writing the length into the
// header would take a second walk of the whole tree only to count its
// bytes, which at 10M znodes doubled the time a snapshot took.
//
// Nothing but the store sees format 4: plainSnapshots opens every
// snapshot as format 2, so Raft's restore, InstallSnapshot to followers
// (of any version: they store and read format 2) and the offline readers
// get the length in the header as before. A server of a version before
// format 4 refuses a data directory holding one (docs/on-disk.md).
const streamedFormat int32 = 4

// errStreamedNoLength is returned when a format 4 snapshot is read other
// than through its store, which alone knows the length.
var errStreamedNoLength = errors.New("consensus: a format 4 snapshot read without its length (open it through its snapshot store)")

// plainSnapshots is a snapshot store whose Open presents a format 4
// snapshot as format 2 (asPlain); every other snapshot passes unchanged.
type plainSnapshots struct{ raft.SnapshotStore }

// Open implements raft.SnapshotStore.
func (s plainSnapshots) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	meta, rc, err := s.SnapshotStore.Open(id)
	if err != nil {
		return nil, nil, err
	}
	r, err := asPlain(rc, meta.Size)
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("consensus: snapshot %s: %w", id, err)
	}
	return meta, struct {
		io.Reader
		io.Closer
	}{r, rc}, nil
}

// asPlain reads the first bytes of a snapshot of size bytes from r and
// returns a reader of the whole snapshot in which a format 4 header has
// become format 2's, with the state's length (size less the header).
// Any other snapshot reads as it is, so its readers judge it.
func asPlain(r io.Reader, size int64) (io.Reader, error) {
	var head [headerLen]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if n == headerLen && int32(binary.BigEndian.Uint32(head[:4])) == snapshotMagic &&
		int32(binary.BigEndian.Uint32(head[4:8])) == streamedFormat {
		if size < headerLen {
			return nil, fmt.Errorf("consensus: a format 4 snapshot of %d bytes is shorter than its header", size)
		}
		head = snapshotHeader(snapshotFormat, size-headerLen)
	}
	return io.MultiReader(bytes.NewReader(head[:n]), r), nil
}
