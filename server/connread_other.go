//go:build !unix

package server

import (
	"net"
	"time"
)

// sockReader needs a descriptor-level read, which this platform's build
// does not have: connections are read through a bufio.Reader.
type sockReader struct{ requestReader }

func newSockReader(net.Conn, func()) *sockReader { return nil }

func (s *sockReader) waitInput(net.Conn, time.Duration) bool { return true }

func (s *sockReader) withFD(func(uintptr)) error { return errParkerClosed }
