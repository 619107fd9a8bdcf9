package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"testing"
	"testing/iotest"
)

// A frame that claims jute.maxbuffer but whose sender stops after a few
// bytes must not cost the reader the claimed size.
func TestReadFrameAllocatesWhatArrives(t *testing.T) {
	claim := binary.BigEndian.AppendUint32(nil, DefaultMaxBuffer)
	stalled := append(claim, make([]byte, 100)...)
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		if _, err := ReadFrame(bytes.NewReader(stalled), 0, nil); err != io.ErrUnexpectedEOF {
			t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
		}
	}
	runtime.ReadMemStats(&after)
	perFrame := (after.TotalAlloc - before.TotalAlloc) / runs
	if perFrame > 2*frameChunk {
		t.Fatalf("a stalled frame claiming %d bytes allocated %d bytes; want at most %d",
			DefaultMaxBuffer, perFrame, 2*frameChunk)
	}
}

// Large frames still arrive whole, through any read pattern.
func TestReadFrameLargeGrows(t *testing.T) {
	payload := make([]byte, DefaultMaxBuffer)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	for _, r := range []io.Reader{
		bytes.NewReader(frameOf(payload)),
		iotest.HalfReader(bytes.NewReader(frameOf(payload))),
	} {
		got, err := ReadFrame(r, 0, make([]byte, 0, 100))
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("large frame: len %d, err %v", len(got), err)
		}
	}
	cut := frameOf(payload)[:3*frameChunk]
	if _, err := ReadFrame(bytes.NewReader(cut), 0, nil); err != io.ErrUnexpectedEOF {
		t.Fatalf("cut large frame: %v", err)
	}
}
