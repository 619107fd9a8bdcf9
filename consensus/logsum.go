package consensus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/hashicorp/raft"
)

// Every entry zkraft writes to a durable log carries its own checksum, in
// the entry's Extensions (the field hashicorp/raft leaves to middleware):
//
//	byte 0     sumMarker ('Z')
//	byte 1     sumVersion (1)
//	bytes 2-5  CRC-32C (Castagnoli), big-endian, over index (8 bytes),
//	           term (8), type (1), then Data, then the original Extensions
//	bytes 6-   the original Extensions (empty for every entry Raft makes)
//
// The log libraries check little or nothing of what they read back:
// raft-wal checks a CRC over only the last batch of its newest segment,
// raft-boltdb only its own page headers. This checksum is checked for the
// whole log when a node starts and again on every read.
const (
	sumMarker  = 'Z'
	sumVersion = 1
	sumLen     = 6
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errNoSum and errBadSum describe an entry that fails its check.
var (
	errNoSum  = errors.New("entry has no zkraft checksum")
	errBadSum = errors.New("entry checksum mismatch")
)

// entrySum is the CRC-32C an entry's envelope carries.
func entrySum(l *raft.Log, ext []byte) uint32 {
	var head [17]byte
	binary.BigEndian.PutUint64(head[:8], l.Index)
	binary.BigEndian.PutUint64(head[8:16], l.Term)
	head[16] = byte(l.Type)
	sum := crc32.Update(0, castagnoli, head[:])
	sum = crc32.Update(sum, castagnoli, l.Data)
	return crc32.Update(sum, castagnoli, ext)
}

// sealEntry returns a copy of l whose Extensions carry its checksum.
func sealEntry(l *raft.Log) raft.Log {
	out := *l
	ext := make([]byte, sumLen+len(l.Extensions))
	ext[0], ext[1] = sumMarker, sumVersion
	binary.BigEndian.PutUint32(ext[2:6], entrySum(l, l.Extensions))
	copy(ext[sumLen:], l.Extensions)
	out.Extensions = ext
	return out
}

// openEntry checks l's checksum and strips it, giving back the entry as
// Raft stored it. An entry without one is accepted as written by an older
// zkraft when legacy is true, and is damage otherwise.
func openEntry(l *raft.Log, legacy bool) error {
	ext := l.Extensions
	if len(ext) < sumLen || ext[0] != sumMarker || ext[1] != sumVersion {
		if legacy {
			return nil
		}
		return errNoSum
	}
	orig := ext[sumLen:]
	if want, got := binary.BigEndian.Uint32(ext[2:6]), entrySum(l, orig); want != got {
		return fmt.Errorf("%w (stored %08x, computed %08x)", errBadSum, want, got)
	}
	if len(orig) == 0 {
		orig = nil
	}
	l.Extensions = orig
	return nil
}
