//go:build unix

package server

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// sockReader reads a client's TCP socket through its descriptor, which
// lets it do two things at the moment the socket runs dry, before it
// waits for more input:
//
//   - write out the replies the reader answered inline (flush), so a reply
//     is never held while the reader waits, yet requests that arrive while
//     a burst is being answered are read, answered and written with it, in
//     one write instead of one per burst;
//   - give its read buffer back to a pool when nothing is left in it, so
//     an idle connection holds no read buffer (10,000 idle sessions held
//     40 MB of them).
//
// net.Conn cannot tell "nothing to read yet" from "wait": its Read parks
// the goroutine on EAGAIN. The socket's RawConn can: its Read runs the
// function with the descriptor, and waits for readability only when the
// function says so.
type sockReader struct {
	rc    syscall.RawConn
	flush func()
	buf   *[]byte // borrowed from readBuffers; nil while idle
	r, w  int     // unread input is (*buf)[r:w]
}

// readBuffers lends sockReaders their read buffers while input arrives.
var readBuffers = sync.Pool{New: func() any {
	b := make([]byte, connBufferSize)
	return &b
}}

// newSockReader returns a sockReader for nc, or nil when nc has no
// descriptor to read.
func newSockReader(nc net.Conn, flush func()) *sockReader {
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

// flushAfterInline is false: Read flushes before it waits.
func (s *sockReader) flushAfterInline() bool { return false }

// Read reads buffered input, or reads the socket when there is none: into
// p itself when p is at least a buffer long (a large request), else into
// the buffer.
func (s *sockReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.r == s.w {
		s.r, s.w = 0, 0
		if len(p) >= connBufferSize {
			return s.readSocket(func() []byte { return p })
		}
		n, err := s.readSocket(s.freeSpace)
		if err != nil {
			return 0, err
		}
		s.w = n
	}
	n := copy(p, (*s.buf)[s.r:s.w])
	s.r += n
	return n, nil
}

// freeSpace returns the buffer's free tail, borrowing a buffer if the
// reader has none.
func (s *sockReader) freeSpace() []byte {
	if s.buf == nil {
		s.buf = readBuffers.Get().(*[]byte)
	}
	return (*s.buf)[s.w:]
}

// idle runs when the socket has nothing to read: the buffer goes back to
// the pool if it holds nothing, and the inline replies are written out.
func (s *sockReader) idle() {
	if s.buf != nil && s.r == s.w {
		readBuffers.Put(s.buf)
		s.buf, s.r, s.w = nil, 0, 0
	}
	s.flush()
}

// waitInput waits up to d for input when none is buffered, and reads it
// into the buffer. False: none came (the buffer is back in the pool and
// the inline replies are written). A failure is left for the next Read
// to report.
func (s *sockReader) waitInput(nc net.Conn, d time.Duration) bool {
	if s.r < s.w {
		return true
	}
	s.r, s.w = 0, 0
	nc.SetReadDeadline(time.Now().Add(d))
	n, err := s.readSocket(s.freeSpace)
	nc.SetReadDeadline(time.Time{})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	s.w = n
	return true
}

// withFD runs fn with the socket's descriptor, which stays open while fn
// runs; it fails once the socket is closed.
func (s *sockReader) withFD(fn func(fd uintptr)) error { return s.rc.Control(fn) }

// readSocket reads the socket into dst(), asked anew at every attempt:
// after a wait the buffer may have been returned and borrowed again.
func (s *sockReader) readSocket(dst func() []byte) (int, error) {
	var n int
	var rerr error
	err := s.rc.Read(func(fd uintptr) bool {
		n, rerr = readNoEINTR(int(fd), dst())
		if errors.Is(rerr, syscall.EAGAIN) {
			s.idle()
			return false // wait until readable, then call again
		}
		return true
	})
	switch {
	case err != nil: // closed (net.ErrClosed)
		return 0, err
	case rerr != nil:
		s.flush()
		return 0, os.NewSyscallError("read", rerr)
	case n == 0:
		s.flush() // the client half-closed: it may still read replies
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
