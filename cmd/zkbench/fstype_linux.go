//go:build linux

package main

import "syscall"

// fsType names the filesystem path is on (statfs's f_type).
func fsType(path string) (string, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return "", err
	}
	return fsTypeName(int64(uint32(st.Type))), nil // 32 bits on some platforms, signed on others
}
