//go:build linux

package main

import "syscall"

// sysProcAttr has the kernel kill a zkserver process zkbench started if
// zkbench dies without stopping it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
