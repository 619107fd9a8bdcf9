//go:build !unix

package consensus

import "os"

// tryLock is a no-op where flock is not available: the data directory is
// not protected against a second server there (see docs/on-disk.md).
func tryLock(f *os.File) (busy bool, err error) { return false, nil }
