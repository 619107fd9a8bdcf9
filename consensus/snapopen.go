package consensus

import (
	"bufio"
	"bytes"
	"hash"
	"hash/crc64"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/raft"
)

// FileSnapshotStore's Open reads a snapshot's whole state to check its
// CRC before it returns, then hands back a reader that reads the state
// again. Every snapshot opened is read twice: at a start, on a leader
// that sends one to a follower, and on the follower that restores what
// it received. At 10M znodes that is 1.4 GB more read and about a second
// of CRC on one core each time (hash/crc64 does 1.5 GB/s here), for
// three servers on two cores at a restart.
//
// reapingSnapshots opens a snapshot in one pass instead: the CRC is
// computed as the state is read, and the reader returns a DamageError in
// place of io.EOF when the CRC or the size does not match meta.json. Every
// reader reads to the end before it trusts what it read: Restore builds
// the new state aside and swaps it in only after its last read (see
// readSnapshot), Raft's InstallSnapshot sends the stream to a follower
// whose own sink checks it, and a server start has already checked every
// snapshot's CRC (snapcheck.go).

// snapshotReadBuffer is the buffer a snapshot's state is read through.
const snapshotReadBuffer = 256 << 10

// Open implements raft.SnapshotStore.
func (s *reapingSnapshots) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	dir := filepath.Join(s.base, snapshotsSubdir, id)
	metaPath, statePath := filepath.Join(dir, snapshotMetaFile), filepath.Join(dir, snapshotStateFile)
	meta, err := readSnapMeta(metaPath)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(statePath)
	if err != nil {
		return nil, nil, err
	}
	return &meta.SnapshotMeta, &checkedState{
		f: f, r: bufio.NewReaderSize(f, snapshotReadBuffer), path: statePath,
		crc: crc64.New(crc64.MakeTable(crc64.ECMA)), want: meta.CRC, size: meta.Size,
	}, nil
}

// checkedState reads a snapshot's state and checks it against its
// meta.json as it reaches the end.
type checkedState struct {
	f    *os.File
	r    *bufio.Reader
	path string
	crc  hash.Hash64
	want []byte
	size int64
	read int64
}

// Read implements io.Reader.
func (c *checkedState) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc.Write(p[:n])
	c.read += int64(n)
	if err == io.EOF {
		err = c.check()
	}
	return n, err
}

// check returns io.EOF if what was read is the whole state meta.json
// describes, and a DamageError otherwise.
func (c *checkedState) check() error {
	if c.read != c.size {
		return damaged(c.path, min(c.read, c.size), 0, "file is %d bytes, %s says %d", c.read, snapshotMetaFile, c.size)
	}
	if got := c.crc.Sum(nil); !bytes.Equal(got, c.want) {
		return damaged(c.path, -1, 0, "CRC-64 mismatch (stored %x, computed %x); the damage is somewhere in the file", c.want, got)
	}
	return io.EOF
}

// Close implements io.Closer.
func (c *checkedState) Close() error { return c.f.Close() }
