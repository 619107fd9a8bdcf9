//go:build unix

package server

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dialSmallWindow connects to s with a 16 KiB receive buffer, set before
// the connection is made so the window the client advertises matches it
// (shrinking the buffer later makes the kernel drop data the server
// already sent, and the server's retransmissions back off for seconds).
// The kernel then holds little of what the server sends a client that
// does not read, so the server's writes stop taking everything soon.
func dialSmallWindow(t *testing.T, s *Server) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 10 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	nc, err := d.Dial("tcp", s.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return nc
}
