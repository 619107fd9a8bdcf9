package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// ErrShortBuffer is returned when a record needs more bytes than the frame holds.
var ErrShortBuffer = errors.New("wire: short buffer")

// ErrBadLength is returned for a negative length (other than -1 for null) or a
// length beyond the decoder's limit inside a record.
var ErrBadLength = errors.New("wire: bad length")

// Encoder appends jute-encoded values to a byte slice. The zero value is ready to use.
type Encoder struct {
	buf []byte
}

// NewEncoder returns an encoder that appends to buf (which may be nil).
func NewEncoder(buf []byte) *Encoder { return &Encoder{buf: buf} }

// Bytes returns the encoded bytes.
func (e *Encoder) Bytes() []byte { return e.buf }

// Len returns the number of bytes encoded so far.
func (e *Encoder) Len() int { return len(e.buf) }

// Reset empties the encoder, keeping its capacity.
func (e *Encoder) Reset() { e.buf = e.buf[:0] }

// Int writes a 4-byte big-endian int.
func (e *Encoder) Int(v int32) { e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(v)) }

// Long writes an 8-byte big-endian long.
func (e *Encoder) Long(v int64) { e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(v)) }

// Bool writes one byte, 1 for true.
func (e *Encoder) Bool(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Buffer writes a length-prefixed byte buffer; nil is encoded as length -1.
func (e *Encoder) Buffer(b []byte) {
	if b == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(b)))
	e.buf = append(e.buf, b...)
}

// String writes a length-prefixed UTF-8 string (jute ustring).
func (e *Encoder) String(s string) {
	e.Int(int32(len(s)))
	e.buf = append(e.buf, s...)
}

// Strings writes a vector of strings; nil is encoded as count -1.
func (e *Encoder) Strings(v []string) {
	if v == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(v)))
	for _, s := range v {
		e.String(s)
	}
}

// Decoder reads jute-encoded values from a byte slice. The first error is
// sticky: later reads return zero values and Err reports it.
type Decoder struct {
	b   []byte
	off int
	max int
	err error
	// src, when not nil, is where a stream decoder (NewReaderDecoder)
	// refills b from; left is how many bytes src still holds for it and
	// shifted how many were consumed before b's start.
	src     io.Reader
	left    int64
	shifted int
	// nulls counts the strings read with length -1 (see Nulls).
	nulls int
	// alias makes Buffer return slices of b (AliasBuffers).
	alias bool
	// acls and creates hand out ACL vectors and multi create records
	// (slab.go).
	acls    slab[ACL]
	creates slab[CreateRequest]
}

// NewDecoder returns a decoder over b. Buffers, strings and vectors whose
// length exceeds max are rejected with ErrBadLength; max <= 0 means len(b).
func NewDecoder(b []byte, max int) *Decoder {
	if max <= 0 {
		max = len(b)
	}
	return &Decoder{b: b, max: max}
}

// Reset makes d decode b from the start, with NewDecoder's rules for max,
// so that a reader can reuse one Decoder for every frame.
func (d *Decoder) Reset(b []byte, max int) {
	if max <= 0 {
		max = len(b)
	}
	*d = Decoder{b: b, max: max}
}

// Err returns the first decoding error, if any.
func (d *Decoder) Err() error { return d.err }

// Remaining returns the number of unread bytes (for a stream decoder,
// those it has buffered plus those its source still holds).
func (d *Decoder) Remaining() int { return len(d.b) - d.off + int(d.left) }

// Offset returns the number of bytes consumed.
func (d *Decoder) Offset() int { return d.shifted + d.off }

// Fail records err unless an earlier error is already recorded.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *Decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || d.Remaining() < n {
		d.err = ErrShortBuffer
		return nil
	}
	if len(d.b)-d.off < n && !d.refill(n) {
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

// Int reads a 4-byte big-endian int.
func (d *Decoder) Int() int32 {
	p := d.take(4)
	if p == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

// Long reads an 8-byte big-endian long.
func (d *Decoder) Long() int64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

// Bool reads one byte; any non-zero value is true.
func (d *Decoder) Bool() bool {
	p := d.take(1)
	return p != nil && p[0] != 0
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	p := d.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

// Bytes reads n bytes without a length prefix, as a copy. n is checked
// against the remaining input, so a length read from damaged input
// allocates nothing it cannot fill.
func (d *Decoder) Bytes(n int) []byte {
	p := d.take(n)
	if p == nil {
		return nil
	}
	out := make([]byte, n)
	copy(out, p)
	return out
}

// length reads a length prefix; -1 means null and is reported as ok=false.
func (d *Decoder) length() (n int, ok bool) {
	v := d.Int()
	if d.err != nil || v == -1 {
		return 0, false
	}
	if v < 0 || int(v) > d.max || int(v) > d.Remaining() {
		d.Fail(ErrBadLength)
		return 0, false
	}
	return int(v), true
}

// AliasBuffers makes Buffer return slices of the input rather than copies,
// for input that its owner never changes nor reuses, such as a log entry
// decoded once: the buffers then share its memory and keep all of it alive
// while any of them is referenced. A stream decoder (NewReaderDecoder)
// refills its input and keeps copying.
func (d *Decoder) AliasBuffers() { d.alias = true }

// Buffer reads a length-prefixed buffer; length -1 gives nil. The result is a
// copy, so it stays valid after the frame is reused, unless AliasBuffers was
// called.
func (d *Decoder) Buffer() []byte {
	n, ok := d.length()
	if !ok {
		return nil
	}
	p := d.take(n)
	if p == nil {
		return nil
	}
	if d.alias && d.src == nil {
		return p[:n:n]
	}
	out := make([]byte, n)
	copy(out, p)
	return out
}

// String reads a length-prefixed string; length -1 (Java's null) gives ""
// and is counted by Nulls.
func (d *Decoder) String() string {
	n, ok := d.length()
	if !ok {
		if d.err == nil {
			d.nulls++
		}
		return ""
	}
	return javaString(d.take(n))
}

// AppendString reads a length-prefixed string as String does and appends
// its bytes to dst, without making a string of them (a null adds nothing
// and is counted by Nulls).
func (d *Decoder) AppendString(dst []byte) []byte {
	n, ok := d.length()
	if !ok {
		if d.err == nil {
			d.nulls++
		}
		return dst
	}
	p := d.take(n)
	if utf8.Valid(p) {
		return append(dst, p...)
	}
	return append(dst, javaString(p)...)
}

// AppendBuffer reads a length-prefixed buffer as Buffer does and appends
// its bytes to dst; null reports a length of -1 (Buffer's nil).
func (d *Decoder) AppendBuffer(dst []byte) (out []byte, null bool) {
	n, ok := d.length()
	if !ok {
		return dst, d.err == nil
	}
	return append(dst, d.take(n)...), false
}

// stringFrom reads a string as String does, returning the element of
// common equal to it, if any, rather than a new copy.
func (d *Decoder) stringFrom(common []string) string {
	n, ok := d.length()
	if !ok {
		if d.err == nil {
			d.nulls++
		}
		return ""
	}
	b := d.take(n)
	for _, c := range common {
		if string(b) == c {
			return c
		}
	}
	return javaString(b)
}

// javaString converts bytes as Java's UTF-8 decoder does for jute
// ustrings: every byte that is not part of a valid sequence becomes U+FFFD,
// so paths and names match what a ZooKeeper server would have stored.
func javaString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			sb.WriteRune(utf8.RuneError)
			b = b[1:]
			continue
		}
		sb.Write(b[:size])
		b = b[size:]
	}
	return sb.String()
}

// Nulls returns how many null strings (length -1) String has read. A null
// string decodes as "", which a server must not take for a real value
// where ZooKeeper would fail on the null (a null path answers
// MARSHALLINGERROR there, where "" answers BADARGUMENTS or names "/").
func (d *Decoder) Nulls() int { return d.nulls }

// PeekNull reports whether the next four bytes are a length of -1, that
// is whether the string or buffer about to be read is null. It reads
// nothing.
func (d *Decoder) PeekNull() bool {
	if d.err != nil || len(d.b)-d.off < 4 {
		return false
	}
	return binary.BigEndian.Uint32(d.b[d.off:]) == math.MaxUint32
}

// Count reads a vector count; -1 gives -1 (null vector). Counts that cannot
// fit in the remaining bytes (each item needs at least minItem bytes) fail.
func (d *Decoder) Count(minItem int) int {
	v := d.Int()
	if d.err != nil {
		return 0
	}
	if v == -1 {
		return -1
	}
	if minItem < 1 {
		minItem = 1
	}
	if v < 0 || int64(v)*int64(minItem) > int64(d.Remaining()) || v > math.MaxInt32/2 {
		d.Fail(ErrBadLength)
		return 0
	}
	return int(v)
}

// Strings reads a vector of strings; count -1 gives nil.
func (d *Decoder) Strings() []string {
	n := d.Count(4)
	if n < 0 || d.err != nil {
		return nil
	}
	out := make([]string, 0, d.Prealloc(n, 4))
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.String())
	}
	return out
}

// Record is a jute record with hand-written encoding.
type Record interface {
	Encode(e *Encoder)
	Decode(d *Decoder)
}

// Marshal encodes r into a new byte slice.
func Marshal(r Record) []byte {
	var e Encoder
	r.Encode(&e)
	return e.Bytes()
}

// Unmarshal decodes b into r. Trailing bytes are ignored, as ZooKeeper
// ignores them; max bounds each length-prefixed field (see NewDecoder).
func Unmarshal(b []byte, r Record, max int) error {
	d := NewDecoder(b, max)
	r.Decode(d)
	return d.Err()
}
