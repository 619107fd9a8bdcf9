//go:build unix

package server

import (
	"errors"
	"io"
	"net"
	"syscall"
)

// peekByte waits for the first byte of nc and returns it without taking
// it off the socket (MSG_PEEK), so a plaintext client keeps the
// descriptor-level reader (connread_unix.go). Connections without a
// descriptor fall back to a replaying wrapper.
func peekByte(nc net.Conn) (byte, net.Conn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return peekByReading(nc)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return peekByReading(nc)
	}
	var b [1]byte
	var n int
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		n, _, perr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		return !errors.Is(perr, syscall.EAGAIN)
	})
	switch {
	case err != nil:
		return 0, nil, err
	case perr != nil:
		return 0, nil, perr
	case n == 0:
		return 0, nil, io.EOF
	}
	return b[0], nc, nil
}
