package wire

import (
	"bytes"
	"testing"
)

// AppendString and AppendBuffer read what String and Buffer read, with
// the same nulls and the same replacement of invalid UTF-8.
func TestDecoder_AppendMatchesStringAndBuffer(t *testing.T) {
	var e Encoder
	e.String("héllo")
	e.Buffer([]byte("bad \xff name")) // read as a string below
	e.Int(-1)                         // a null string
	e.Buffer([]byte{})
	e.Buffer(nil)
	e.Buffer([]byte("data"))
	raw := e.Bytes()

	want := NewDecoder(raw, 0)
	got := NewDecoder(raw, 0)
	for i := range 3 {
		s := want.String()
		b := got.AppendString([]byte("x"))
		if string(b) != "x"+s {
			t.Fatalf("string %d: AppendString gave %q, String %q", i, b, s)
		}
	}
	if got.Nulls() != 1 || want.Nulls() != 1 {
		t.Fatalf("nulls: %d and %d, want 1", got.Nulls(), want.Nulls())
	}
	for i := range 3 {
		w := want.Buffer()
		b, null := got.AppendBuffer([]byte("x"))
		if null != (w == nil) || !bytes.Equal(b, append([]byte("x"), w...)) {
			t.Fatalf("buffer %d: AppendBuffer gave %q null %v, Buffer %q", i, b, null, w)
		}
	}
	if got.Err() != nil || got.Remaining() != 0 {
		t.Fatalf("decoder after the reads: %v, %d left", got.Err(), got.Remaining())
	}
}
