package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"testing"
)

// FuzzReadFrame feeds arbitrary streams to ReadFrame: it must never panic,
// must return only the documented errors, and every frame it returns must
// be exactly the bytes announced by its length prefix.
func FuzzReadFrame(f *testing.F) {
	const max = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		buf := make([]byte, 0, 8)
		off := 0
		for {
			frame, err := ReadFrame(r, max, buf)
			if err != nil {
				switch {
				case err == io.EOF:
					if off != len(data) {
						t.Fatalf("io.EOF at offset %d of %d", off, len(data))
					}
				case err == io.ErrUnexpectedEOF, errors.Is(err, ErrNegativeLength), errors.Is(err, ErrFrameTooLarge):
				default:
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			n := int(int32(binary.BigEndian.Uint32(data[off:])))
			if n != len(frame) || n > max || !bytes.Equal(frame, data[off+4:off+4+n]) {
				t.Fatalf("frame %x does not match input at %d", frame, off)
			}
			off += 4 + n
			if cap(frame) > cap(buf) {
				buf = frame
			}
		}
	})
}

// checkReencode asserts that a successfully decoded record encodes to bytes
// that decode to an equal value, and that this encoding is stable.
func checkReencode(t *testing.T, rec Record, fresh func() Record) {
	t.Helper()
	b1 := Marshal(rec)
	again := fresh()
	if err := Unmarshal(b1, again, 0); err != nil {
		t.Fatalf("%T: re-decode failed: %v (bytes %x)", rec, err, b1)
	}
	if !reflect.DeepEqual(rec, again) {
		t.Fatalf("%T: re-decode mismatch:\n first  %#v\n second %#v", rec, rec, again)
	}
	if b2 := Marshal(again); !bytes.Equal(b1, b2) {
		t.Fatalf("%T: unstable encoding %x vs %x", rec, b1, b2)
	}
}

// FuzzDecodeRequest decodes arbitrary bytes the way a server does: a
// RequestHeader then the body record chosen by RequestForOp; and, separately,
// as a bare MultiRequest and as a ConnectRequest. Decoding must never panic,
// and whatever decodes must survive encode→decode unchanged.
func FuzzDecodeRequest(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data, 0)
		var h RequestHeader
		h.Decode(d)
		if d.Err() == nil {
			if rec, ok := RequestForOp(h.Type); ok && rec != nil {
				rec.Decode(d)
				if d.Err() == nil {
					checkReencode(t, rec, func() Record { r, _ := RequestForOp(h.Type); return r })
				}
			}
		}
		var m MultiRequest
		if Unmarshal(data, &m, 0) == nil {
			m.Kind()
			checkReencode(t, &m, func() Record { return &MultiRequest{} })
		}
		var c ConnectRequest
		if Unmarshal(data, &c, 0) == nil {
			checkReencode(t, &c, func() Record { return &ConnectRequest{} })
		}
		var mr MultiResponse
		if Unmarshal(data, &mr, 0) == nil {
			checkReencode(t, &mr, func() Record { return &MultiResponse{} })
		}
	})
}

// FuzzDecoderBounds feeds arbitrary bytes to the length-prefixed readers
// with a small limit. They must not panic, must honour the limit, and must
// never return (or reserve room for) more than the input could hold.
func FuzzDecoderBounds(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 'a', 'b', 'c'}, uint8(4))
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff}, uint8(8))
	f.Add([]byte{0, 0, 0, 2, 0, 0, 0, 1, 'x', 0xff, 0xff, 0xff, 0xff}, uint8(2))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 31, 0, 0, 0, 5, 'w', 'o', 'r', 'l', 'd', 0, 0, 0, 0}, uint8(16))
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		max := int(limit%32) + 1
		n := len(data)

		d := NewDecoder(data, max)
		if b := d.Buffer(); len(b) > max || cap(b) > n {
			t.Fatalf("Buffer returned len %d cap %d from %d bytes (max %d)", len(b), cap(b), n, max)
		}

		d = NewDecoder(data, max)
		ss := d.Strings()
		if cap(ss) > n/4 {
			t.Fatalf("Strings reserved %d entries from %d bytes", cap(ss), n)
		}
		total := 0
		for _, s := range ss {
			if len(s) > max {
				t.Fatalf("string of %d bytes beyond max %d", len(s), max)
			}
			total += 4 + len(s)
		}
		if total > n {
			t.Fatalf("Strings produced %d bytes from %d", total, n)
		}

		d = NewDecoder(data, max)
		acls := DecodeACLs(d)
		if cap(acls) > n/12 {
			t.Fatalf("ACLs reserved %d entries from %d bytes", cap(acls), n)
		}
		for _, a := range acls {
			if len(a.ID.Scheme) > max || len(a.ID.ID) > max {
				t.Fatalf("ACL id beyond max %d: %+v", max, a)
			}
		}

		d = NewDecoder(data, max)
		if c := d.Count(1); c > n {
			t.Fatalf("Count %d from %d bytes", c, n)
		}
	})
}
