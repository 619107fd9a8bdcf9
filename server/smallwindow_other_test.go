//go:build !unix

package server

import (
	"net"
	"testing"
)

func dialSmallWindow(t *testing.T, _ *Server) net.Conn {
	t.Skip("needs SO_RCVBUF before connect (unix only)")
	return nil
}
