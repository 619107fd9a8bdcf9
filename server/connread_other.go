//go:build !unix

package server

import "net"

// sockReader needs a descriptor-level read, which this platform's build
// does not have: connections are read through a bufio.Reader.
type sockReader struct{ requestReader }

func newSockReader(net.Conn, func()) *sockReader { return nil }
