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

// raiseOpenFiles makes room for n client connections in this process
// (all the sessions' sockets are here) and on the servers it starts
// (they inherit the limit; after a failover one server may hold most of
// them): the soft RLIMIT_NOFILE, and the hard one too when it is lower
// (that needs CAP_SYS_RESOURCE, which root in a container may lack: with
// a hard limit of 20,000, -n can be at most about 19,700).
func raiseOpenFiles(n int) (string, error) {
	need := uint64(n) + stormSpareFiles
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return "", err
	}
	if lim.Cur >= need {
		return "", nil
	}
	old := lim
	lim.Cur = need
	lim.Max = max(lim.Max, need)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return "", fmt.Errorf("%d sessions need about %d open files; the limit is %d (hard %d) and raising it failed: %w", n, need, old.Cur, old.Max, err)
	}
	return fmt.Sprintf("open files limit raised from %d (hard %d) to %d (hard %d)", old.Cur, old.Max, lim.Cur, lim.Max), nil
}
