package consensus

import (
	"path/filepath"

	"github.com/hashicorp/raft-wal/fs"
	"github.com/hashicorp/raft-wal/segment"
	"github.com/hashicorp/raft-wal/types"
)

// forceSync=no on a raft-wal log: raft-wal syncs each batch it appends,
// and its segment files are opened through a types.VFS, so a VFS whose
// files do nothing on Sync gives the log without fsync. What is written
// reaches the page cache as with fsync; only an operating system crash or
// a power loss can take the latest batches, which is what forceSync=no
// accepts (as ZooKeeper's does). The metadata database raft-wal keeps
// beside the segments still syncs; it changes only when a segment is
// sealed or deleted.
//
// Before, forceSync=no made a new log in raft-boltdb with syncing off.
// bbolt copies the B+tree's pages along the path of every append, which
// with a large tree left a garbage of tens of kilobytes per write and
// kept the collector busy (docs/scale.md); such logs keep their format.

// walFiler returns raft-wal's segment filer for dir (the one it makes
// itself), with fsync off when noSync is set and deleted segments freed
// by the reclaimer.
func walFiler(dir string, noSync bool) types.SegmentFiler {
	var vfs types.VFS = fs.New()
	if noSync {
		vfs = noSyncVFS{vfs}
	}
	return segment.NewFiler(dir, reclaimVFS{vfs})
}

// reclaimVFS is a types.VFS whose Delete hands the segment to the
// reclaimer (reclaim.go): raft-wal deletes the segments a compaction
// made obsolete while it holds the lock its appends take, and freeing a
// dozen 64 MiB files there held every write for 0.9 s. The segment is
// renamed without a directory sync: raft-wal commits the metadata that
// drops it first, and at open it removes any segment file its metadata
// does not list, so a rename a crash loses changes nothing.
type reclaimVFS struct{ types.VFS }

// Delete implements types.VFS.
func (v reclaimVFS) Delete(dir, name string) error {
	path := filepath.Join(dir, name)
	return fileReclaimer.retire(path, path+reclaimedSuffix)
}

// noSyncVFS is a types.VFS whose writable files do not sync.
type noSyncVFS struct{ types.VFS }

func (v noSyncVFS) Create(dir, name string, size uint64) (types.WritableFile, error) {
	f, err := v.VFS.Create(dir, name, size)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

func (v noSyncVFS) OpenWriter(dir, name string) (types.WritableFile, error) {
	f, err := v.VFS.OpenWriter(dir, name)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

// noSyncFile is a segment file whose Sync does nothing.
type noSyncFile struct{ types.WritableFile }

func (noSyncFile) Sync() error { return nil }
