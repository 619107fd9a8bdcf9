//go:build unix

package server

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// nonBlockingWriter returns a function that writes what the socket takes
// now and never waits, or nil when nc has no descriptor to write.
func nonBlockingWriter(nc net.Conn) func([]byte) (int, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func(p []byte) (int, error) {
		written := 0
		var werr error
		err := rc.Write(func(fd uintptr) bool {
			for written < len(p) {
				n, err := syscall.Write(int(fd), p[written:])
				switch {
				case errors.Is(err, syscall.EINTR):
					continue
				case errors.Is(err, syscall.EAGAIN):
					return true // full: the rest goes to the backlog
				case err != nil:
					werr = os.NewSyscallError("write", err)
					return true
				}
				written += n
			}
			return true
		})
		if err == nil {
			err = werr
		}
		return written, err
	}
}
