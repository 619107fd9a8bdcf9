package consensus

import (
	"bytes"
	"context"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// restoreBomb is a short backup whose headers announce a huge snapshot and
// whose session table claims sessions sessions: the first bytes of the
// request body a hostile caller of the AdminServer's restore would send.
func restoreBomb(sessions uint32) []byte {
	const announced = 1 << 40
	var b bytes.Buffer
	be := func(v any) { binary.Write(&b, binary.BigEndian, v) }
	be(backupMagic)
	be(backupVersion)
	be(int64(0))         // last zxid
	be(int64(announced)) // snapshot length
	be(snapshotMagic)
	be(snapshotFormat)
	be(int64(announced - headerLen)) // state length
	be(int64(1))                     // term
	be(int32(1))                     // counter
	be(int64(1))                     // last zxid
	be(sessions)                     // session count
	for range 8 {
		be(int64(1))
	}
	return b.Bytes()
}

// allocatedBy returns how many bytes of heap fn allocated.
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestRestoreBombAllocatesFromBytesRead: counts and lengths in a backup
// size nothing before their bytes arrive. A 128-byte body claiming a
// billion sessions used to make the restore size a map for them (out of
// memory); it is refused having allocated about what it read.
func TestRestoreBombAllocatesFromBytesRead(t *testing.T) {
	for _, sessions := range []uint32{1 << 30, 20_000_000, 0x7fffffff} {
		bomb := restoreBomb(sessions)
		var err error
		used := allocatedBy(func() { _, err = readBackup(bytes.NewReader(bomb), treeCfg) })
		require.ErrorIs(t, err, ErrBadBackup)
		require.Less(t, used, uint64(8<<20), "a %d-byte bomb claiming %d sessions allocated %d bytes", len(bomb), sessions, used)
	}
	n := startNode(t, nil)
	var err error
	used := allocatedBy(func() { _, err = n.RestoreBackup(context.Background(), bytes.NewReader(restoreBomb(1<<30))) })
	require.ErrorIs(t, err, ErrBadBackup)
	require.Less(t, used, uint64(64<<20), "the node's restore of a bomb allocated %d bytes", used)
}

// FuzzRestore: whatever the body of a restore holds, reading it as a
// backup never panics and allocates in proportion to its length.
func FuzzRestore(f *testing.F) {
	f.Add([]byte{})
	f.Add(restoreBomb(20_000_000))
	f.Add(restoreBomb(1 << 30))
	f.Fuzz(func(t *testing.T, data []byte) {
		var err error
		used := allocatedBy(func() { _, err = readBackup(bytes.NewReader(data), treeCfg) })
		if err == nil {
			return
		}
		if limit := uint64(64<<20) + 64*uint64(len(data)); used > limit {
			t.Fatalf("a refused %d-byte backup allocated %d bytes (%v)", len(data), used, err)
		}
	})
}
