package wire

import (
	"fmt"
	"io"
)

// streamChunk is how much a stream decoder reads from its source at once.
const streamChunk = 64 << 10

// NewReaderDecoder returns a decoder that reads exactly size bytes from r
// as it goes, holding only a small window of them (about 64 KiB, or the
// largest single value decoded) instead of the whole input. It behaves as
// NewDecoder would over those size bytes: the same values, the same
// errors, and length and count checks against the bytes still unread, so
// a corrupt length cannot make it allocate more than the input holds. max
// bounds buffers, strings and vectors as in NewDecoder; max <= 0 means
// size. A read error of r, or r ending before size bytes, fails the
// decoder.
//
// Slices a stream decoder hands out are copies (Buffer) or strings, as
// with any decoder, so they stay valid as the window moves on.
func NewReaderDecoder(r io.Reader, size int64, max int) *Decoder {
	if max <= 0 {
		max = int(min(size, int64(^uint(0)>>1)))
	}
	return &Decoder{src: r, left: size, max: max}
}

// refill makes at least n unread bytes available in b, moving the unread
// tail to the front of the window and reading from src; take calls it when
// the window runs short. It reports false, with the error recorded, when
// src fails.
func (d *Decoder) refill(n int) bool {
	have := len(d.b) - d.off
	size := max(n, streamChunk)
	buf := d.b[:cap(d.b)]
	if cap(d.b) < size {
		buf = make([]byte, size)
	} else {
		size = cap(d.b)
	}
	copy(buf, d.b[d.off:])
	d.shifted += d.off
	want := int(min(int64(size-have), d.left))
	got, err := io.ReadAtLeast(d.src, buf[have:have+want], n-have)
	d.left -= int64(got)
	d.b, d.off = buf[:have+got], 0
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			d.Fail(fmt.Errorf("%w: input ended %d bytes early", ErrShortBuffer, d.left))
		} else {
			d.Fail(fmt.Errorf("wire: read: %w", err))
		}
		return false
	}
	return true
}
