package migrate

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

func readAll(t *testing.T, b []byte) ([]*txn, *tornTail, error) {
	t.Helper()
	var out []*txn
	torn, err := decodeLog(bytes.NewReader(b), int64(len(b)), "log", 0, func(x *txn) error {
		out = append(out, x)
		return nil
	})
	return out, torn, err
}

// Entries are read up to the zero-filled tail; a torn last entry of the
// newest log ends it as in ZooKeeper; a checksum mismatch or an unknown
// txn type is damage, named with its offset and transaction.
func TestLogEntries(t *testing.T) {
	e1 := entry(txnBytes(sess1, 0x100000001, wire.OpCreateSession, func(e *wire.Encoder) { e.Int(30000) }))
	e2 := entry(txnBytes(sess1, 0x100000002, wire.OpCreate, createBody("/x", []byte("d"), false, 1)))
	e3 := entry(append(txnBytes(sess1, 0x100000003, wire.OpDelete, pathBody("/x")), 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9))
	txns, torn, err := readAll(t, logBytes(e1, e2, e3))
	require.NoError(t, err)
	require.Nil(t, torn)
	require.Len(t, txns, 3)
	require.Equal(t, &createSessionTxn{timeout: 30000}, txns[0].rec)
	require.Equal(t, "/x", txns[1].rec.(*createTxn).path)
	require.Equal(t, int32(1), txns[1].rec.(*createTxn).parentCVersion)
	require.Equal(t, &txnDigest{version: 2, tree: 9}, txns[2].digest)

	whole := logBytes(e1, e2)
	cut := whole[:16+len(e1)+len(e2)-3] // e2 cut short, no zero tail
	txns, torn, err = readAll(t, cut)
	require.NoError(t, err)
	require.Len(t, txns, 1)
	require.Equal(t, &tornTail{"log", int64(16 + len(e1)),
		"transaction 2 of the file (the one after zxid 0x100000001): the file ends within the " + itoa(len(e2)-13) + "-byte transaction",
		1, 0x100000001}, torn)

	noMark := logBytes(e1, e2)
	noMark[16+len(e1)+len(e2)-1] = 0
	txns, torn, err = readAll(t, noMark)
	require.NoError(t, err)
	require.Len(t, txns, 1)
	require.Contains(t, torn.what, "end mark is 0x0, not 'B'")

	bad := logBytes(e1, e2)
	bad[16+len(e1)+20] ^= 1
	_, _, err = readAll(t, bad)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "log at offset "+itoa(16+len(e1))+": transaction 2 of the file (the one after zxid 0x100000001): transaction checksum mismatch")

	unknown := entry(txnBytes(sess1, 0x100000004, wire.OpGetData, pathBody("/x")))
	_, _, err = readAll(t, logBytes(e1, unknown))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "unsupported txn type 4")

	v1 := logBytes(e1)
	putInt(v1, 4, 1)
	_, _, err = readAll(t, v1)
	require.ErrorIs(t, err, ErrFormat)
	_, _, err = readAll(t, v1[:10])
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "within its 16-byte header")
}

// twelve returns a log of twelve transactions and the offset of each
// entry.
func twelve() ([]byte, []int) {
	var entries [][]byte
	offs := []int{16}
	entries = append(entries, entry(txnBytes(sess1, 0x100000001, wire.OpCreateSession, func(e *wire.Encoder) { e.Int(30000) })))
	for i := 2; i <= 12; i++ {
		e := entry(txnBytes(sess1, 0x100000000+int64(i), wire.OpCreate, createBody("/n"+strconv.Itoa(i), []byte("data"), false, int32(i-1))))
		offs = append(offs, offs[len(offs)-1]+len(entries[len(entries)-1]))
		entries = append(entries, e)
	}
	return logBytes(entries...), offs
}

// A damaged length in the middle of a log, even the newest, is refused
// with the file, the offset and the transaction: ZooKeeper refuses an
// unreasonable length; the others it would take for the end of the file,
// losing the transactions after it.
func TestLogRefusesADamagedLength(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(n uint32) uint32
		kind error
		want string
	}{
		{"high byte flipped", func(n uint32) uint32 { return n ^ 0x01000000 }, ErrCorrupt, "entry length 16777"},
		{"second byte flipped", func(n uint32) uint32 { return n ^ 0x00010000 }, ErrTorn, "the file ends within the 65"},
		{"third byte flipped", func(n uint32) uint32 { return n ^ 0x00000100 }, ErrTorn, "end mark is"},
		{"one less", func(n uint32) uint32 { return n - 1 }, ErrTorn, "end mark is"},
		{"zero", func(uint32) uint32 { return 0 }, ErrTorn, "an entry of length 0"},
		{"-1", func(uint32) uint32 { return 0xffffffff }, ErrCorrupt, "entry length -1 (a null buffer)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, offs := twelve()
			at := offs[1] + 8 // transaction 2's length
			binary.BigEndian.PutUint32(b[at:], c.set(binary.BigEndian.Uint32(b[at:])))
			txns, torn, err := readAll(t, b)
			require.ErrorIs(t, err, c.kind)
			require.ErrorIs(t, err, ErrCorrupt)
			require.Nil(t, torn)
			require.Len(t, txns, 1)
			require.ErrorContains(t, err, "transaction 2 of the file (the one after zxid 0x100000001)")
			require.ErrorContains(t, err, c.want)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, "log", fe.File)
			require.Contains(t, []int64{int64(offs[1]), int64(at)}, fe.Offset)
			if c.kind == ErrTorn {
				require.ErrorContains(t, err, "yet a complete entry follows at offset "+itoa(offs[2]))
			}
		})
	}
}

// A last entry cut short by a crash is a torn tail, whether the file
// ends in it or the zero fill follows it (Load decides whether the log
// may end so).
func TestLogTornTail(t *testing.T) {
	b, offs := twelve()
	last := offs[11]
	for name, log := range map[string][]byte{
		"file ends":      b[:last+20],
		"zero fill":      append(append([]byte{}, b[:last+20]...), make([]byte, 4096)...),
		"checksum alone": append(append([]byte{}, b[:last+8]...), make([]byte, 100)...),
	} {
		txns, torn, err := readAll(t, log)
		require.NoError(t, err, name)
		require.Len(t, txns, 11, name)
		require.Equal(t, int64(last), torn.offset, name)
		require.Contains(t, torn.what, "transaction 12 of the file (the one after zxid 0x10000000b)", name)
		require.Equal(t, 11, torn.count, name)
		require.Equal(t, int64(0x10000000b), torn.lastZxid, name)
	}

	// Zeros, then other bytes: not ZooKeeper's zero fill, but no complete
	// entry either: a torn write.
	stray := append(append([]byte{}, b...), 0, 0, 0, 0, 0, 0, 7)
	txns, torn, err := readAll(t, stray)
	require.NoError(t, err)
	require.Len(t, txns, 12)
	require.Contains(t, torn.what, "transaction 13 of the file (the one after zxid 0x10000000c): an entry of length 0")

	// A clean end: nothing, or zeros only.
	_, torn, err = readAll(t, b[:len(b)-64])
	require.NoError(t, err)
	require.Nil(t, torn)
	_, torn, err = readAll(t, append(b[:len(b)-64], 0, 0, 0))
	require.NoError(t, err)
	require.Nil(t, torn)
}

// Load drops the newest log's torn tail with a note, and an older log's
// when the next log goes on from the torn transaction's zxid (ZooKeeper
// started again after the crash); a torn older log followed by anything
// else, or a damaged length in the middle of the newest, stops it.
func TestLoadDamagedLogs(t *testing.T) {
	tree := sampleTree(t)
	snap := snapshotBytes(t, tree, map[int64]int32{sess1: 30000}, 0x100000009)
	mk := func(zxids ...int64) []byte {
		var es [][]byte
		for _, z := range zxids {
			es = append(es, entry(txnBytes(sess1, z, wire.OpCreate, createBody("/l"+strconv.FormatInt(z, 16), nil, false, int32(z)))))
		}
		return logBytes(es...)
	}
	tear := func(log []byte) []byte { return log[:len(log)-64-5] } // the last entry, cut short
	load := func(logs map[int64][]byte, maxBuffer int) (*Image, error) {
		dir := t.TempDir()
		files := map[string][]byte{hexName("snapshot", 0x100000009): snap}
		for z, b := range logs {
			files[hexName("log", z)] = b
		}
		writeDir(t, dir, files)
		return Load(Source{DataDir: dir, ExtendedTypes: true, MaxBuffer: maxBuffer})
	}
	first, second := mk(0x10000000a, 0x10000000b, 0x10000000c), mk(0x10000000d, 0x10000000e)
	entryLen := (len(second) - 16 - 64) / 2

	im, err := load(map[int64][]byte{0x10000000a: first, 0x10000000d: tear(second)}, 0)
	require.NoError(t, err)
	require.Equal(t, 4, im.Txns)
	require.Len(t, im.Notes, 1)
	require.Contains(t, im.Notes[0], filepath.Join("version-2", "log.10000000d")+" at offset "+itoa(16+entryLen))
	require.Contains(t, im.Notes[0], "transaction 2 of the file (the one after zxid 0x10000000d)")
	require.Contains(t, im.Notes[0], "the newest log's last entry, torn by a crash")
	require.Contains(t, im.Notes[0], "dropped, as ZooKeeper drops it")

	// An older log torn at 0x10000000c, the next going on at 0x10000000d:
	// transactions are lost.
	_, err = load(map[int64][]byte{0x10000000a: tear(first), 0x10000000d: second}, 0)
	require.ErrorIs(t, err, ErrTorn)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "log.10000000a at offset "+itoa(16+2*entryLen)+": transaction 3 of the file (the one after zxid 0x10000000b)")
	require.ErrorContains(t, err, "this is not the newest log, and the next logged transaction (zxid 0x10000000d, in log.10000000d) is not the one after zxid 0x10000000b")

	// ZooKeeper started again after the crash logs 0x10000000c anew in a
	// new file: nothing is lost.
	again := mk(0x10000000c, 0x10000000d)
	im, err = load(map[int64][]byte{0x10000000a: tear(first), 0x10000000c: again}, 0)
	require.NoError(t, err)
	require.Equal(t, 4, im.Txns)
	require.Len(t, im.Notes, 1)
	require.Contains(t, im.Notes[0], "log.10000000a at offset "+itoa(16+2*entryLen))
	require.Contains(t, im.Notes[0], "ZooKeeper, started again, logged the transactions from zxid 0x10000000c on in log.10000000c")

	flipped := append([]byte{}, second...)
	flipped[16+8] ^= 0x10 // the first entry's length, high byte
	_, err = load(map[int64][]byte{0x10000000a: first, 0x10000000d: flipped}, 0)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "log.10000000d at offset 24: transaction 1 of the file (its first): entry length")
	require.ErrorContains(t, err, "Unreasonable length")

	// A larger jute.maxbuffer lets through what it lets through in
	// ZooKeeper: the length now reaches past the file, with a complete
	// entry after it.
	_, err = load(map[int64][]byte{0x10000000a: first, 0x10000000d: flipped}, 256<<20)
	require.ErrorIs(t, err, ErrTorn)
	require.ErrorContains(t, err, "yet a complete entry follows at offset "+itoa(16+entryLen))
}

func itoa(i int) string { return strconv.Itoa(i) }
