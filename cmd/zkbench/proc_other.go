//go:build !linux

package main

import "syscall"

// sysProcAttr: only Linux can tie a child's life to zkbench's; elsewhere
// the processes are stopped by the target's stop function alone.
func sysProcAttr() *syscall.SysProcAttr { return nil }
