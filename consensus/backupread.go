package consensus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc64"
	"io"

	"github.com/zkraft/zkraft/datatree"
)

// ErrBadBackup is wrapped by every error about a backup stream that
// RestoreBackup refuses: not a backup, an unknown version, cut short,
// altered (checksum mismatch), or a state that does not decode.
var ErrBadBackup = errors.New("consensus: bad backup")

func badBackup(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadBackup, fmt.Sprintf(format, args...))
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readBackup reads a whole backup, checks it and decodes its state. The
// state is decoded as it streams in, so the backup is never held whole;
// the checksum is compared once it has all been read, and a failure to
// decode is reported only after the length and the checksum were found
// right, so that a truncated or altered stream is named as such.
func readBackup(r io.Reader, cfg datatree.Config) (*restoredState, error) {
	var head [backupHeadLen]byte
	if n, err := io.ReadFull(r, head[:]); err != nil {
		return nil, badBackup("truncated: %d bytes, shorter than a backup's %d-byte header", n, backupHeadLen)
	}
	if m := int32(binary.BigEndian.Uint32(head[:4])); m != backupMagic {
		return nil, badBackup("not a zkraft backup (it starts with %08x, a backup with %08x)", uint32(m), uint32(backupMagic))
	}
	if v := int32(binary.BigEndian.Uint32(head[4:8])); v != backupVersion {
		return nil, badBackup("backup format version %d; this server reads version %d", v, backupVersion)
	}
	lastZxid := int64(binary.BigEndian.Uint64(head[8:16]))
	length := int64(binary.BigEndian.Uint64(head[16:24]))
	if length < headerLen {
		return nil, badBackup("the header announces %d bytes of snapshot, fewer than a snapshot header", length)
	}
	h := crc64.New(crcTable)
	h.Write(head[:])
	body := &countingReader{r: io.TeeReader(io.LimitReader(r, length), h)}
	rs, decodeErr := readBackupSnapshot(body, cfg)
	if _, err := io.Copy(io.Discard, body); err != nil {
		return nil, badBackup("read failed after %d bytes: %v", backupHeadLen+body.n, err)
	}
	if body.n < length {
		return nil, badBackup("truncated: the header announces %d bytes of snapshot, the stream ended after %d", length, body.n)
	}
	if err := checkTrailer(r, h); err != nil {
		return nil, err
	}
	if decodeErr != nil {
		return nil, badBackup("the checksum matches but the state does not decode: %v", decodeErr)
	}
	if rs.st.LastZxid != lastZxid {
		return nil, badBackup("the header says last zxid 0x%x, the state 0x%x", lastZxid, rs.st.LastZxid)
	}
	return rs, nil
}

// readBackupSnapshot decodes the snapshot inside a backup, which must be
// a plain one (format 2).
func readBackupSnapshot(r io.Reader, cfg datatree.Config) (*restoredState, error) {
	var head [headerLen]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	if int32(binary.BigEndian.Uint32(head[:4])) != snapshotMagic || int32(binary.BigEndian.Uint32(head[4:8])) != snapshotFormat {
		return nil, errors.New("the snapshot inside is not a format 2 zkraft snapshot")
	}
	return readSnapshot(io.MultiReader(bytes.NewReader(head[:]), r), cfg)
}

// checkTrailer reads the checksum after the snapshot and checks that the
// stream ends there.
func checkTrailer(r io.Reader, h hash.Hash64) error {
	var sum [backupSumLen]byte
	if n, err := io.ReadFull(r, sum[:]); err != nil {
		return badBackup("truncated: the stream ends %d bytes into the %d-byte checksum", n, backupSumLen)
	}
	if stored, computed := binary.BigEndian.Uint64(sum[:]), h.Sum64(); stored != computed {
		return badBackup("checksum mismatch (stored %016x, computed %016x): the backup was altered or damaged", stored, computed)
	}
	var one [1]byte
	if n, _ := io.ReadFull(r, one[:]); n != 0 {
		return badBackup("bytes after the checksum: not one whole backup")
	}
	return nil
}
