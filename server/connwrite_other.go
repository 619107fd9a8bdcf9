//go:build !unix

package server

import "net"

// nonBlockingWriter is nil where sockets cannot be written without
// waiting: every reply goes through the backlog's sender.
func nonBlockingWriter(net.Conn) func([]byte) (int, error) { return nil }
