//go:build linux

package realzk

import "syscall"

// sysProcAttr puts the JVM in its own process group (so Stop can kill the
// group) and asks the kernel to kill it if the starting process dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
