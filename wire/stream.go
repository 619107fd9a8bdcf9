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
//
// The window grows with the bytes that arrive, never ahead of them: a
// length in the input that claims a huge value costs memory only as its
// bytes are actually read (at most about twice them), so a short hostile
// stream cannot make the decoder allocate what its header announced.
func (d *Decoder) refill(n int) bool {
	have := len(d.b) - d.off
	buf := d.b[:cap(d.b)]
	if cap(d.b) < streamChunk {
		buf = make([]byte, streamChunk)
	}
	copy(buf, d.b[d.off:])
	d.shifted += d.off
	d.b, d.off = buf[:have], 0
	for {
		if len(d.b) == cap(d.b) {
			grown := make([]byte, len(d.b), min(2*cap(d.b), max(n, streamChunk)))
			copy(grown, d.b)
			d.b = grown
		}
		want := int(min(int64(cap(d.b)-len(d.b)), d.left))
		got, err := io.ReadAtLeast(d.src, d.b[len(d.b):len(d.b)+want], min(want, n-len(d.b)))
		d.left -= int64(got)
		d.b = d.b[:len(d.b)+got]
		if err != nil {
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				d.Fail(fmt.Errorf("%w: input ended %d bytes early", ErrShortBuffer, d.left))
			} else {
				d.Fail(fmt.Errorf("wire: read: %w", err))
			}
			return false
		}
		if len(d.b) >= n {
			return true
		}
	}
}

// Prealloc returns how many items of at least minItem bytes each a
// decoder may allocate room for ahead of reading them, for a count n the
// input gave (after Count accepted it). A decoder over bytes already in
// memory gives n: Count checked it against them. A stream decoder has not
// read them yet, and its Count checks only against the length its source
// announced, so it gives no more than its window holds: the slice or map
// then grows with the items actually decoded.
func (d *Decoder) Prealloc(n, minItem int) int {
	if n <= 0 {
		return 0
	}
	if d.src == nil {
		return n
	}
	return min(n, max(len(d.b)-d.off, streamChunk)/max(minItem, 1))
}
