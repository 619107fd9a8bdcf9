//go:build unix

package realzk

import (
	"errors"
	"fmt"
	"syscall"
)

// groupGone reports an error unless the process group pid led is gone.
func groupGone(pid int) error {
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("process group %d still there after Stop: %v", pid, err)
	}
	return nil
}
