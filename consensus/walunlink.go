package consensus

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/raft-wal/types"
)

// Compaction after a snapshot deletes the log's oldest segment files, and
// raft-wal deletes them while it holds the lock its appends take. Freeing
// a 64 MiB file's blocks takes ext4 70-95 ms here (more on a file system
// mounted with discard), and a compaction after a 10M snapshot deletes
// a dozen: every write waited 0.9 s (docs/scale.md).
//
// unlinkLaterVFS makes a delete cheap for the caller: the segment is
// renamed out of the log (a rename is a directory entry, not the file's
// blocks; the directory is synced as raft-wal's own Delete syncs it) and
// its blocks are freed by a goroutine of its own. raft-wal lists only
// names ending in .wal, so a renamed segment is no longer part of the
// log; one left behind by a crash is removed at the next open
// (removeUnlinked).
type unlinkLaterVFS struct{ types.VFS }

// unlinkedSuffix ends the name of a segment deleted but not yet removed.
const unlinkedSuffix = ".deleted"

// Delete implements types.VFS.
func (v unlinkLaterVFS) Delete(dir, name string) error {
	from := filepath.Join(dir, name)
	to := from + unlinkedSuffix
	if err := os.Rename(from, to); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	go os.Remove(to) // freeing the blocks is the slow part; a failure leaves the file for the next open
	return nil
}

// removeUnlinked removes the segments a crash left renamed but not
// removed in dir.
func removeUnlinked(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), unlinkedSuffix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// syncDir syncs directory dir, so that a rename or removal in it lasts.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
