package consensus

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
)

// TestSnapshotWrittenInOnePass: Persist writes format 4 (the header's
// length left at 0) to a file snapshot store; the store opens it as
// format 2 with the state's length, which restores to the same state and
// which checkSnapshots decodes, and the file alone does not restore.
func TestSnapshotWrittenInOnePass(t *testing.T) {
	f := filledFSM(t, 3000)
	dir := t.TempDir()
	files, err := raft.NewFileSnapshotStore(dir, 1, io.Discard)
	require.NoError(t, err)
	store := plainSnapshots{files}
	metas := persistInto(t, f, store)
	raw, err := os.ReadFile(filepath.Join(dir, "snapshots", metas[0].ID, "state.bin"))
	require.NoError(t, err)
	require.Equal(t, streamedFormat, int32(binary.BigEndian.Uint32(raw[4:8])), "the file is format 4")
	require.Zero(t, binary.BigEndian.Uint64(raw[8:16]), "with no length in its header")
	require.ErrorIs(t, newFSM(datatree.Config{ExtendedTypesEnabled: true}, nil, 1).Restore(io.NopCloser(bytes.NewReader(raw))), errStreamedNoLength)

	meta, rc, err := store.Open(metas[0].ID)
	require.NoError(t, err)
	opened, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, int64(len(opened)), meta.Size, "InstallSnapshot sends meta.Size bytes")
	require.Equal(t, snapshotFormat, int32(binary.BigEndian.Uint32(opened[4:8])))
	require.Equal(t, uint64(len(raw)-headerLen), binary.BigEndian.Uint64(opened[8:16]))
	require.Equal(t, raw[headerLen:], opened[headerLen:], "only the header differs")
	g := newFSM(datatree.Config{ExtendedTypesEnabled: true}, nil, 1)
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(opened))))
	requireSameState(t, f, g)

	reports, err := checkSnapshots(filepath.Join(dir, "snapshots"), true)
	require.NoError(t, err)
	require.Len(t, reports, 1)
	require.NoError(t, reports[0].Damage)
}

// TestAsPlainLeavesOtherSnapshots: asPlain changes a format 4 header only;
// a short or foreign input reads as it was, for its reader to judge.
func TestAsPlainLeavesOtherSnapshots(t *testing.T) {
	f := filledFSM(t, 10)
	sink := persisted(t, f)
	plain := sink.plain()
	for _, in := range [][]byte{plain, plain[:10], {}, []byte("not a snapshot at all")} {
		r, err := asPlain(bytes.NewReader(in), int64(len(in)))
		require.NoError(t, err)
		out, err := io.ReadAll(r)
		require.NoError(t, err)
		require.Equal(t, in, out)
	}
	_, err := asPlain(bytes.NewReader(sink.buf.b[:headerLen]), 3)
	require.Error(t, err, "a size shorter than the header")
}
