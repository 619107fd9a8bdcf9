package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// protocolVersion is the last byte of the preamble. A change to any
// message layout takes a new version.
const protocolVersion = 1

// preamble opens every connection, written once by the dialer before its
// first frame. Its first byte, 'Z', can't be confused with the first
// byte of hashicorp/raft's NetworkTransport, an rpcType of 0 to 5.
var preamble = [5]byte{'Z', 'K', 'R', 'T', protocolVersion}

// Frame types. A response's type is its request's with responseBit set.
const (
	typeAppendEntries   byte = 1
	typeRequestVote     byte = 2
	typeInstallSnapshot byte = 3
	typeTimeoutNow      byte = 4
	typeRequestPreVote  byte = 5

	responseBit byte = 0x80
)

// frameHeader is the length prefix and the type byte. The length counts
// the bytes after it: the type byte and the body, so it is at least 1.
const frameHeader = 5

// frameChunk is the most readBody allocates for a body before that many
// bytes have arrived: a length prefix is only a claim.
const frameChunk = 64 << 10

// retainLimit is the largest buffer a connection keeps for reuse; a
// bigger one (a frame of many large entries) is dropped after use so an
// idle connection doesn't hold it.
const retainLimit = 1 << 20

var (
	// ErrFrameTooLarge is returned for a frame longer than Config.MaxFrame,
	// received (the connection is closed) or about to be sent (nothing is
	// sent).
	ErrFrameTooLarge = errors.New("transport: frame too large")
	errEmptyFrame    = errors.New("transport: frame without a type")
)

// beginFrame appends a frame header of type typ, with a placeholder
// length, to b; endFrame patches the length once the body is appended.
func beginFrame(b []byte, typ byte) ([]byte, int) {
	start := len(b)
	return append(b, 0, 0, 0, 0, typ), start
}

// endFrame sets the length of the frame that starts at start in b and
// checks it against max.
func endFrame(b []byte, start, max int) error {
	n := len(b) - start - 4
	if n > max {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, n, max)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(n))
	return nil
}

// readHeader reads a frame's length prefix and type byte from r and
// returns the type and the body's length. A length above max fails with
// ErrFrameTooLarge before anything else is read. A clean end of stream
// before the header yields io.EOF; one inside it io.ErrUnexpectedEOF.
func readHeader(r io.Reader, hdr *[frameHeader]byte, max int) (typ byte, n int, err error) {
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, 0, err
	}
	length := binary.BigEndian.Uint32(hdr[:4])
	if length == 0 {
		return 0, 0, errEmptyFrame
	}
	if uint64(length) > uint64(max) {
		return 0, 0, fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, length, max)
	}
	return hdr[4], int(length) - 1, nil
}

// readBody reads a body of n bytes. With reuse, buf is used when its
// capacity suffices and the result aliases it. Otherwise (or when buf is
// too small) a body up to frameChunk is read into a new buffer of its
// size, and a larger one into a buffer that starts at frameChunk and
// doubles as it fills, so memory follows the bytes that arrived, not the
// length claimed; a complete large body costs at most one extra copy of
// itself in garbage.
func readBody(r io.Reader, n int, buf []byte, reuse bool) ([]byte, error) {
	var err error
	switch {
	case reuse && cap(buf) >= n:
		buf = buf[:n]
		_, err = io.ReadFull(r, buf)
	case n <= frameChunk:
		buf = make([]byte, n)
		_, err = io.ReadFull(r, buf)
	default:
		buf = make([]byte, 0, frameChunk)
		for len(buf) < n {
			if len(buf) == cap(buf) {
				grown := make([]byte, len(buf), min(2*cap(buf), n))
				copy(grown, buf)
				buf = grown
			}
			var m int
			m, err = io.ReadFull(r, buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+m]
			if err != nil {
				break
			}
		}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return buf, err
}
