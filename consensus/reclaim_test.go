package consensus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/hashicorp/raft-wal/fs"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path string, size int) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, make([]byte, size), 0o644))
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestReclaimerFreesInSteps: a retired file leaves its name at once, is
// shrunk a step at a time, and is removed; a retired directory's files
// are too.
func TestReclaimerFreesInSteps(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "seg.wal")
	writeFile(t, file, 3<<20+5)
	sub := filepath.Join(dir, "snap")
	require.NoError(t, os.Mkdir(sub, 0o755))
	writeFile(t, filepath.Join(sub, "state.bin"), 2<<20)
	writeFile(t, filepath.Join(sub, "meta.json"), 10)

	var sizes []int64
	var r *reclaimer
	r = newReclaimer(1<<20, func() {
		// The queue runs one path at a time: the file first.
		if info, err := os.Stat(file + reclaimedSuffix); err == nil {
			sizes = append(sizes, info.Size())
		}
	})
	require.NoError(t, r.retire(file, file+reclaimedSuffix))
	require.NoError(t, r.retire(sub, sub+reclaimedSuffix))
	require.NotContains(t, names(t, dir), "seg.wal")
	require.NotContains(t, names(t, dir), "snap")
	r.wait()
	require.Empty(t, names(t, dir), "everything retired is removed")
	require.Equal(t, []int64{2<<20 + 5, 1<<20 + 5, 5}, sizes, "the file shrank a step at a time")
}

// TestReclaimVFSDeletesSegments: raft-wal's filer no longer lists a
// deleted segment, and what a crash left renamed is removed at the next
// open.
func TestReclaimVFSDeletesSegments(t *testing.T) {
	dir := t.TempDir()
	const name = "00000000000000000001-0000000000000001.wal"
	writeFile(t, filepath.Join(dir, name), 1<<20)
	filer := walFiler(dir, true)
	segs, err := filer.List()
	require.NoError(t, err)
	require.Equal(t, map[uint64]uint64{1: 1}, segs)

	require.NoError(t, filer.Delete(1, 1))
	segs, err = filer.List()
	require.NoError(t, err)
	require.Empty(t, segs, "the deleted segment is out of the log at once")
	fileReclaimer.wait()
	require.Empty(t, names(t, dir))

	left := name + reclaimedSuffix
	writeFile(t, filepath.Join(dir, left), 10)
	writeFile(t, filepath.Join(dir, "keep.wal"), 10)
	listed, err := fs.New().ListDir(dir)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{left, "keep.wal"}, listed)
	fileReclaimer.removeReclaimed(dir)
	fileReclaimer.wait()
	require.Equal(t, []string{"keep.wal"}, names(t, dir))
}

// TestReapingSnapshotsKeepsRetain: after each new snapshot the store
// lists and keeps the newest retain, the others freed by the reclaimer,
// and an open removes what a crash left renamed.
func TestReapingSnapshotsKeepsRetain(t *testing.T) {
	base := t.TempDir()
	store, err := newReapingSnapshots(base, 2, nil)
	require.NoError(t, err)
	var ids []string
	for i := uint64(1); i <= 4; i++ {
		sink, err := store.Create(raft.SnapshotVersionMax, i*10, 1, raft.Configuration{}, 1, nil)
		require.NoError(t, err)
		_, err = sink.Write(make([]byte, 64<<10))
		require.NoError(t, err)
		require.NoError(t, sink.Close())
		ids = append(ids, sink.ID())
		metas, err := store.List()
		require.NoError(t, err)
		require.LessOrEqual(t, len(metas), 2)
		require.Equal(t, sink.ID(), metas[0].ID)
	}
	fileReclaimer.wait()
	snapDir := filepath.Join(base, "snapshots")
	require.ElementsMatch(t, ids[2:], names(t, snapDir), "the two newest stay, the rest are freed")

	require.Equal(t, []string{"snapshots"}, names(t, base))
	stale := filepath.Join(base, "old"+reclaimedSuffix)
	require.NoError(t, os.Mkdir(stale, 0o755))
	writeFile(t, filepath.Join(stale, "state.bin"), 10)
	_, err = newReapingSnapshots(base, 2, nil)
	require.NoError(t, err)
	fileReclaimer.wait()
	require.Equal(t, []string{"snapshots"}, names(t, base))
	require.ElementsMatch(t, ids[2:], names(t, snapDir))
}
