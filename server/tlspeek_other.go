//go:build !unix

package server

import "net"

// peekByte reads the first byte of nc; see peekByReading.
func peekByte(nc net.Conn) (byte, net.Conn, error) { return peekByReading(nc) }
