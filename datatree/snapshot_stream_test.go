package datatree

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// recordWriter keeps what it is given and the size of each write.
type recordWriter struct {
	buf    bytes.Buffer
	writes []int
}

func (w *recordWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, len(p))
	return w.buf.Write(p)
}

func TestWriteSnapshotMatchesSnapshot(t *testing.T) {
	cfg := Config{ExtendedTypesEnabled: true}
	tr, _ := benchTree(t, 5000)
	w := newWorkload(3)
	for i := 0; i < 3000; i++ {
		txn := w.next()
		txn.Zxid += 10000
		tr.Apply(txn)
	}
	// One node larger than a flush, so a write can exceed flushSize.
	big := bytes.Repeat([]byte{7}, 3*flushSize)
	require.NoError(t, tr.Apply(&Txn{Zxid: 20000, Op: wire.OpCreate,
		Body: &wire.CreateRequest{Path: "/big", Data: big, ACL: wire.OpenACLUnsafe}}).Err)

	var whole wire.Encoder
	tr.Snapshot(&whole)
	var rw recordWriter
	require.NoError(t, tr.WriteSnapshot(&rw))
	require.Equal(t, whole.Bytes(), rw.buf.Bytes(), "same bytes as Snapshot")
	require.Greater(t, len(rw.writes), 10, "written in pieces")
	for _, n := range rw.writes {
		require.Less(t, n, flushSize+len(big)+1024, "no write holds much more than a flush")
	}

	// It restores through a stream decoder as through a slice decoder.
	d := wire.NewReaderDecoder(iotest.HalfReader(bytes.NewReader(rw.buf.Bytes())), int64(rw.buf.Len()), 0)
	restored, err := Restore(d, cfg)
	require.NoError(t, err)
	require.Zero(t, d.Remaining())
	require.Equal(t, dumpTree(t, tr), dumpTree(t, restored))
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after == 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

func TestWriteSnapshotReportsWriterError(t *testing.T) {
	tr, _ := benchTree(t, 2000)
	require.EqualError(t, tr.WriteSnapshot(&failWriter{after: 2}), "disk full")
	require.EqualError(t, New(Config{}).WriteSnapshot(&failWriter{}), "disk full")
}
