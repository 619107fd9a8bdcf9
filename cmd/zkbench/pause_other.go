//go:build !unix

package main

import "errors"

var errNoPause = errors.New("pausing a process needs SIGSTOP, which this system lacks")

// pauseProcess is not available without Unix signals (Windows):
// -op storm-stop reports it.
func pauseProcess(pid int) error { return errNoPause }

// resumeProcess is not available without Unix signals (Windows).
func resumeProcess(pid int) error { return errNoPause }
