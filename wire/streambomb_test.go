package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"
)

// TestStreamDecoderAllocatesFromBytesRead: a stream decoder whose source
// announces 1 GiB and holds a 1 GiB buffer length, then ends, allocates
// about what arrived, not what was announced; a count it accepts against
// the announced length is preallocated only up to its window.
func TestStreamDecoderAllocatesFromBytesRead(t *testing.T) {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, int32(1<<30-8))
	b.Write(make([]byte, 4096))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := NewReaderDecoder(bytes.NewReader(b.Bytes()), 1<<30, 0)
	if got := d.Buffer(); got != nil || !errors.Is(d.Err(), ErrShortBuffer) {
		t.Fatalf("Buffer of a cut stream: %d bytes, err %v", len(got), d.Err())
	}
	runtime.ReadMemStats(&after)
	if used := after.TotalAlloc - before.TotalAlloc; used > 4<<20 {
		t.Fatalf("a 4 KiB stream announcing 1 GiB allocated %d bytes", used)
	}

	d = NewReaderDecoder(bytes.NewReader([]byte{0, 0, 0, 1}), 1<<30, 0)
	if n := d.Count(12); n != 1 || d.Prealloc(50_000_000, 12) > streamChunk {
		t.Fatalf("Count %d, Prealloc %d", n, d.Prealloc(50_000_000, 12))
	}
	if got := NewDecoder(make([]byte, 1200), 0).Prealloc(100, 12); got != 100 {
		t.Fatalf("an in-memory decoder's Prealloc(100) = %d", got)
	}
}
