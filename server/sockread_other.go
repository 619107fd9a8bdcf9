//go:build !unix

package server

import (
	"io"
	"net"
)

// newSockReader has no descriptor-level read on this platform: the reader
// reads the net.Conn and flushes after each burst itself.
func newSockReader(net.Conn, func()) io.Reader { return nil }
