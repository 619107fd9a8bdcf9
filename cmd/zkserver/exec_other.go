//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// execCommand runs args[0] with zkserver's standard streams and returns
// its failure (there is no exec(2) here; container images are Linux).
func execCommand(args []string) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd.Run()
}
