package wire

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"reflect"
	"testing"
	"testing/iotest"
)

// streamInput encodes a mix of values whose sizes straddle the stream
// decoder's window: many small ones and a few larger than it.
func streamInput() ([]byte, []any) {
	rng := rand.New(rand.NewSource(1))
	var e Encoder
	var want []any
	for i := 0; i < 20000; i++ {
		switch rng.Intn(5) {
		case 0:
			v := rng.Int31()
			e.Int(v)
			want = append(want, v)
		case 1:
			v := rng.Int63()
			e.Long(v)
			want = append(want, v)
		case 2:
			n := rng.Intn(300)
			if i%2500 == 0 {
				n = streamChunk + rng.Intn(3*streamChunk) // crosses windows
			}
			b := make([]byte, n)
			rng.Read(b)
			e.Buffer(b)
			want = append(want, b)
		case 3:
			s := string(bytes.Repeat([]byte{'a' + byte(i%26)}, rng.Intn(40)))
			e.String(s)
			want = append(want, s)
		case 4:
			v := []string{"x", "yz"}
			e.Strings(v)
			want = append(want, v)
		}
	}
	return e.Bytes(), want
}

func decodeLike(d *Decoder, want []any) []any {
	got := make([]any, 0, len(want))
	for _, w := range want {
		switch w.(type) {
		case int32:
			got = append(got, d.Int())
		case int64:
			got = append(got, d.Long())
		case []byte:
			got = append(got, d.Buffer())
		case string:
			got = append(got, d.String())
		case []string:
			got = append(got, d.Strings())
		}
	}
	return got
}

func TestReaderDecoderMatchesSliceDecoder(t *testing.T) {
	in, want := streamInput()
	readers := map[string]io.Reader{
		"whole":    bytes.NewReader(in),
		"one byte": iotest.OneByteReader(bytes.NewReader(in)),
		"half":     iotest.HalfReader(bytes.NewReader(in)),
	}
	for name, r := range readers {
		d := NewReaderDecoder(r, int64(len(in)), 0)
		got := decodeLike(d, want)
		if d.Err() != nil {
			t.Fatalf("%s: %v", name, d.Err())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: values differ", name)
		}
		if d.Remaining() != 0 || d.Offset() != len(in) {
			t.Fatalf("%s: remaining %d, offset %d of %d", name, d.Remaining(), d.Offset(), len(in))
		}
	}
}

func TestReaderDecoderShortSource(t *testing.T) {
	in, want := streamInput()
	// The source ends before the declared size: the decoder fails
	// instead of returning zero values as if they had been read.
	d := NewReaderDecoder(bytes.NewReader(in[:len(in)/2]), int64(len(in)), 0)
	decodeLike(d, want)
	if !errors.Is(d.Err(), ErrShortBuffer) {
		t.Fatalf("err = %v, want ErrShortBuffer", d.Err())
	}
	// Values past the declared size are short too, as in a slice decoder.
	d = NewReaderDecoder(bytes.NewReader(in), 4, 0)
	d.Int()
	if d.Long(); !errors.Is(d.Err(), ErrShortBuffer) {
		t.Fatalf("err = %v, want ErrShortBuffer", d.Err())
	}
}

func TestReaderDecoderReadError(t *testing.T) {
	boom := errors.New("boom")
	d := NewReaderDecoder(iotest.ErrReader(boom), 100, 0)
	d.Long()
	if !errors.Is(d.Err(), boom) {
		t.Fatalf("err = %v, want the reader's", d.Err())
	}
}

func TestReaderDecoderBoundsLengths(t *testing.T) {
	// A length beyond what the input holds fails before anything is
	// allocated for it, as with a slice decoder.
	var e Encoder
	e.Int(1 << 30)
	e.Long(7)
	d := NewReaderDecoder(bytes.NewReader(e.Bytes()), int64(e.Len()), 0)
	if d.Buffer(); !errors.Is(d.Err(), ErrBadLength) {
		t.Fatalf("buffer: err = %v", d.Err())
	}
	d = NewReaderDecoder(bytes.NewReader(e.Bytes()), int64(e.Len()), 0)
	if d.Count(8); !errors.Is(d.Err(), ErrBadLength) {
		t.Fatalf("count: err = %v", d.Err())
	}
}
