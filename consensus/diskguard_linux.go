package consensus

import (
	"os"
	"syscall"
)

// allocate reserves size bytes for f, failing with ENOSPC when they do not
// fit (a sparse Truncate would not tell).
func allocate(f *os.File, size int64) error {
	for {
		err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
		if err != syscall.EINTR {
			if err == syscall.EOPNOTSUPP {
				return f.Truncate(size)
			}
			return err
		}
	}
}
