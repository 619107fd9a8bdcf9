package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func frameOf(payload []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

func TestReadFrame(t *testing.T) {
	stream := append(append(frameOf([]byte("hello")), frameOf(nil)...), frameOf([]byte("world!"))...)
	r := bytes.NewReader(stream)
	buf := make([]byte, 0, 64)
	for _, want := range []string{"hello", "", "world!"} {
		got, err := ReadFrame(r, 100, buf)
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
		if cap(got) > 0 && &got[:1][0] != &buf[:1][0] {
			t.Fatalf("buffer not reused")
		}
	}
	if _, err := ReadFrame(r, 100, buf); err != io.EOF {
		t.Fatalf("end of stream: %v", err)
	}
}

func TestReadFrameOneByteReads(t *testing.T) {
	got, err := ReadFrame(iotest.OneByteReader(bytes.NewReader(frameOf([]byte("abc")))), 0, nil)
	if err != nil || string(got) != "abc" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestReadFrameErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		max  int
		want error
	}{
		{"empty", nil, 10, io.EOF},
		{"partialLength", []byte{0, 0}, 10, io.ErrUnexpectedEOF},
		{"partialPayload", []byte{0, 0, 0, 5, 'a', 'b'}, 10, io.ErrUnexpectedEOF},
		{"missingPayload", []byte{0, 0, 0, 5}, 10, io.ErrUnexpectedEOF},
		{"negative", []byte{0xff, 0xff, 0xff, 0xfe}, 10, ErrNegativeLength},
		{"minusOne", []byte{0xff, 0xff, 0xff, 0xff}, 10, ErrNegativeLength},
		{"tooLarge", []byte{0, 0, 0, 11}, 10, ErrFrameTooLarge},
		{"defaultMax", binary.BigEndian.AppendUint32(nil, DefaultMaxBuffer+1), 0, ErrFrameTooLarge},
		{"fourLetterWord", []byte("ruok"), 0, ErrFrameTooLarge},
	}
	for _, c := range cases {
		if _, err := ReadFrame(bytes.NewReader(c.in), c.max, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// Exactly max is fine.
	if got, err := ReadFrame(bytes.NewReader(frameOf(make([]byte, 10))), 10, nil); err != nil || len(got) != 10 {
		t.Fatalf("len == max: %d, %v", len(got), err)
	}
	// Other reader errors pass through.
	boom := errors.New("boom")
	if _, err := ReadFrame(iotest.ErrReader(boom), 10, nil); err != boom {
		t.Fatalf("reader error: %v", err)
	}
	if _, err := ReadFrame(io.MultiReader(bytes.NewReader([]byte{0, 0, 0, 3}), iotest.ErrReader(boom)), 10, nil); err != boom {
		t.Fatalf("reader error in payload: %v", err)
	}
}

func TestAppendFrame(t *testing.T) {
	prefix := []byte("xyz")
	out := AppendFrame(prefix, &RequestHeader{Xid: 1, Type: OpGetData}, nil, &GetDataRequest{Path: "/a", Watch: true})
	if string(out[:3]) != "xyz" {
		t.Fatalf("prefix clobbered: %q", out[:3])
	}
	want := mustHex(t, "0000000f 00000001 00000004 00000002 2f61 01")
	if !bytes.Equal(out[3:], want) {
		t.Fatalf("got %x\nwant %x", out[3:], want)
	}
	frame, err := ReadFrame(bytes.NewReader(out[3:]), 0, nil)
	if err != nil || !bytes.Equal(frame, want[4:]) {
		t.Fatalf("read back: %x %v", frame, err)
	}
	if got := AppendFrame(nil); !bytes.Equal(got, []byte{0, 0, 0, 0}) {
		t.Fatalf("empty frame: %x", got)
	}
}

func TestAppendReply(t *testing.T) {
	hdr := &ReplyHeader{Xid: 3, Zxid: 9, Err: CodeOK}
	out := AppendReply(nil, hdr, &StatResponse{Stat: sampleStat})
	if len(out) != 4+16+68 || binary.BigEndian.Uint32(out) != 16+68 {
		t.Fatalf("reply frame of %d bytes, length %d", len(out), binary.BigEndian.Uint32(out))
	}
	out = AppendReply(out[:0], &ReplyHeader{Xid: -2, Zxid: 9, Err: CodeOK}, nil)
	if len(out) != 20 || binary.BigEndian.Uint32(out) != 16 {
		t.Fatalf("header-only reply: %x", out)
	}
	var h ReplyHeader
	if err := Unmarshal(out[4:], &h, 0); err != nil || h.Xid != -2 {
		t.Fatalf("decode: %+v %v", h, err)
	}
}

func TestFourLetterWord(t *testing.T) {
	words := []string{"ruok", "srvr", "stat", "conf", "cons", "crst", "srst", "dump", "envi",
		"mntr", "wchs", "wchc", "wchp", "dirs", "isro", "gtmk", "stmk", "hash"}
	for _, w := range words {
		got, ok := FourLetterWord([]byte(w))
		if !ok || got != w {
			t.Errorf("%q: got %q, %v", w, got, ok)
		}
	}
	// stmk is followed by an 8-byte mask; only the first four bytes count.
	if got, ok := FourLetterWord([]byte("stmk\x00\x00\x00\x00\x00\x00\x00\x01")); !ok || got != "stmk" {
		t.Errorf("stmk with mask: %q %v", got, ok)
	}
	for _, b := range [][]byte{nil, []byte("ruo"), []byte("RUOK"), []byte("kill"), {0, 0, 0, 44}} {
		if got, ok := FourLetterWord(b); ok {
			t.Errorf("%q recognised as %q", b, got)
		}
	}
}
