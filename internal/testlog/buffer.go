package testlog

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer collects log output; it is safe for one writer and readers at
// once. The zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines returns the lines written so far that contain substr, each with
// its newline.
func (b *Buffer) Lines(substr string) []string {
	var out []string
	for l := range strings.Lines(b.String()) {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// Count returns how many times substr was written so far.
func (b *Buffer) Count(substr string) int {
	return strings.Count(b.String(), substr)
}
