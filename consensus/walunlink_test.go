package consensus

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft-wal/fs"
	"github.com/stretchr/testify/require"
)

// TestUnlinkLaterVFS: a deleted segment leaves the log's names at once
// and its file goes soon after; raft-wal's filer does not list a segment
// renamed for removal, and an open removes one a crash left behind.
func TestUnlinkLaterVFS(t *testing.T) {
	dir := t.TempDir()
	const name = "00000000000000000001-0000000000000001.wal"
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), make([]byte, 1<<20), 0o644))
	filer := walFiler(dir, true)
	segs, err := filer.List()
	require.NoError(t, err)
	require.Equal(t, map[uint64]uint64{1: 1}, segs)

	require.NoError(t, filer.Delete(1, 1))
	segs, err = filer.List()
	require.NoError(t, err)
	require.Empty(t, segs, "the deleted segment is out of the log at once")
	require.Eventually(t, func() bool {
		entries, err := os.ReadDir(dir)
		return err == nil && len(entries) == 0
	}, 10*time.Second, 10*time.Millisecond, "the renamed file is removed")

	// One a crash left renamed: not listed, and removed at the next open.
	left := name + unlinkedSuffix
	require.NoError(t, os.WriteFile(filepath.Join(dir, left), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "keep.wal"), []byte("x"), 0o644))
	names, err := fs.New().ListDir(dir)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{left, "keep.wal"}, names)
	removeUnlinked(dir)
	names, err = fs.New().ListDir(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"keep.wal"}, names)
}
