package migrate

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

func readAll(t *testing.T, b []byte) ([]*txn, *tornTail, error) {
	t.Helper()
	var out []*txn
	torn, err := decodeLog(bytes.NewReader(b), int64(len(b)), "log", func(x *txn) error {
		out = append(out, x)
		return nil
	})
	return out, torn, err
}

// Entries are read up to the zero-filled tail; a torn last entry ends the
// file as in ZooKeeper; a checksum mismatch or an unknown txn type is
// damage, named with its offset.
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
	require.Equal(t, &tornTail{"log", int64(16 + len(e1)), "the file ends within a " + itoa(len(e2)-13) + "-byte transaction"}, torn)

	noMark := logBytes(e1, e2)
	noMark[16+len(e1)+len(e2)-1] = 0
	txns, torn, err = readAll(t, noMark)
	require.NoError(t, err)
	require.Len(t, txns, 1)
	require.Contains(t, torn.what, "end mark")

	bad := logBytes(e1, e2)
	bad[16+len(e1)+20] ^= 1
	_, _, err = readAll(t, bad)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "log at offset "+itoa(16+len(e1))+": transaction checksum mismatch")

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

func itoa(i int) string { return strconv.Itoa(i) }
