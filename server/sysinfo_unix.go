//go:build unix

package server

import "syscall"

// maxFDs is the soft limit on open files, for zk_max_file_descriptor_count.
func maxFDs() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return lim.Cur
}
