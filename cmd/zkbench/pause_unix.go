//go:build unix

package main

import "syscall"

// pauseProcess stops a process (SIGSTOP) as a hung server would stop.
func pauseProcess(pid int) error { return syscall.Kill(pid, syscall.SIGSTOP) }

// resumeProcess continues a process that pauseProcess stopped (SIGCONT).
func resumeProcess(pid int) error { return syscall.Kill(pid, syscall.SIGCONT) }
