//go:build unix

package server

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// sockReader reads a client's socket for the connection's reader. When the
// socket has nothing to read, it first writes out the replies the reader
// answered inline (flush) and only then waits for more input. A reply is
// thus never held while the reader waits, yet requests that arrive while a
// burst is being answered are read, answered and written with it, in one
// write instead of one per burst.
//
// net.Conn cannot tell "nothing to read yet" from "wait": its Read parks
// the goroutine on EAGAIN. The socket's RawConn can: its Read runs the
// function with the descriptor, and waits for readability only when the
// function says so.
type sockReader struct {
	rc    syscall.RawConn
	flush func()
}

// newSockReader returns a sockReader for nc, or nil when nc has no
// descriptor to read (a net.Pipe, a test's wrapped connection).
func newSockReader(nc net.Conn, flush func()) io.Reader {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &sockReader{rc: rc, flush: flush}
}

func (r *sockReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	err := r.rc.Read(func(fd uintptr) bool {
		n, rerr = readNoEINTR(int(fd), p)
		if errors.Is(rerr, syscall.EAGAIN) {
			r.flush()
			return false // wait until readable, then call again
		}
		return true
	})
	switch {
	case err != nil: // closed (net.ErrClosed)
		return 0, err
	case rerr != nil:
		r.flush()
		return 0, os.NewSyscallError("read", rerr)
	case n == 0:
		r.flush() // the client half-closed: it may still read replies
		return 0, io.EOF
	}
	return n, nil
}

func readNoEINTR(fd int, p []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, p)
		if !errors.Is(err, syscall.EINTR) {
			return max(n, 0), err
		}
	}
}
