package server

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
)

// requestReader is where a connection's reader reads requests from.
type requestReader interface {
	io.Reader
	// flushAfterInline reports whether a reply the reader has just
	// answered inline should be written now; false when a whole request
	// is already buffered, or when the reader writes replies out by
	// itself before it waits for input (sockReader).
	flushAfterInline() bool
}

// newRequestReader reads nc through its descriptor when it has one
// (sockReader), else through a bufio.Reader.
func newRequestReader(nc net.Conn, flush func()) requestReader {
	if sr := newSockReader(nc, flush); sr != nil {
		return sr
	}
	return bufferedReader{bufio.NewReaderSize(nc, connBufferSize)}
}

// bufferedReader reads a net.Conn with no descriptor (net.Pipe, a wrapped
// connection) through a buffer of its own.
type bufferedReader struct{ *bufio.Reader }

func (b bufferedReader) flushAfterInline() bool { return !frameBuffered(b.Reader) }

// frameBuffered reports whether br holds at least one whole frame.
func frameBuffered(br *bufio.Reader) bool {
	if br.Buffered() < 4 {
		return false
	}
	hdr, err := br.Peek(4)
	if err != nil {
		return false
	}
	n := int(binary.BigEndian.Uint32(hdr))
	return n >= 0 && br.Buffered()-4 >= n
}
