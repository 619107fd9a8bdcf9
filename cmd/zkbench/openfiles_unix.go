//go:build unix

package main

import (
	"fmt"
	"syscall"
)

// ensureOpenFiles raises the soft limit on open files, if needed, for n
// more connections (twice that for an in-process server, which holds the
// other end).
func ensureOpenFiles(n int, inProcess bool) error {
	need := uint64(n) + 256
	if inProcess {
		need += uint64(n)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	if lim.Cur >= need {
		return nil
	}
	if lim.Max < need {
		return fmt.Errorf("%d connections need about %d open files, the hard limit is %d (raise it: ulimit -Hn)", n, need, lim.Max)
	}
	lim.Cur = need
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
}
