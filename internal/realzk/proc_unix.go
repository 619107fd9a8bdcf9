//go:build unix

package realzk

import (
	"os"
	"syscall"
)

// killGroup kills the JVM and anything it started (it leads its own group).
func killGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}
