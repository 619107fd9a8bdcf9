//go:build unix && !linux

package realzk

import "syscall"

// sysProcAttr puts the JVM in its own process group so Stop can kill the group.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
