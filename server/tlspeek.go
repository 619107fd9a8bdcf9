package server

import (
	"io"
	"net"
)

// peekByReading reads the first byte of nc and returns a connection that
// reads it again first.
func peekByReading(nc net.Conn) (byte, net.Conn, error) {
	var b [1]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		return 0, nil, err
	}
	return b[0], &replayConn{Conn: nc, first: b[:]}, nil
}

// replayConn is a connection whose first bytes were already read.
type replayConn struct {
	net.Conn
	first []byte
}

func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.first) > 0 {
		n := copy(p, r.first)
		r.first = r.first[n:]
		return n, nil
	}
	return r.Conn.Read(p)
}
