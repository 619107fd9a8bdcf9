package server

import (
	"os"
	"syscall"
)

// openFDs counts this process's open file descriptors (0 where /proc is
// missing), for mntr's zk_open_file_descriptor_count.
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(entries)
}

// maxFDs is the soft limit on open files, for zk_max_file_descriptor_count.
func maxFDs() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return lim.Cur
}
