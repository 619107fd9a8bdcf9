//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// execCommand replaces zkserver with args[0] (looked up in PATH), as a
// shell entrypoint's exec "$@" does.
func execCommand(args []string) error {
	path, err := exec.LookPath(args[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, args, os.Environ())
}
