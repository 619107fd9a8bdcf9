package consensus

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteOut asks the kernel to start writing f's dirty pages in
// [off, off+n) to disk, without waiting.
func startWriteOut(f *os.File, off, n int64) error {
	return unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// awaitWriteOut returns once f's pages in [off, off+n) are written (it
// does not sync the file's metadata or the disk's cache: the final sync
// does).
func awaitWriteOut(f *os.File, off, n int64) error {
	return unix.SyncFileRange(int(f.Fd()), off, n,
		unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
}
