package migrate

import (
	"fmt"
	"io"
	"time"
)

// progressEvery is how often a progress line is written.
const progressEvery = 2 * time.Second

// progress writes a line to w at most every progressEvery while a long
// step runs: what it is doing and how far it is. A nil *progress, or one
// with a nil writer, writes nothing.
type progress struct {
	w     io.Writer
	what  string
	count int64
	next  time.Time
	start time.Time
}

func newProgress(w io.Writer) *progress {
	now := time.Now()
	return &progress{w: w, start: now, next: now.Add(progressEvery)}
}

// begin names a new step and resets its count.
func (p *progress) begin(what string) {
	if p == nil {
		return
	}
	p.what, p.count = what, 0
}

// step counts one item and writes a line when one is due; detail, called
// only then, adds to it.
func (p *progress) step(detail func() string) {
	if p == nil || p.w == nil {
		return
	}
	p.count++
	if p.count&1023 != 0 {
		return
	}
	if now := time.Now(); now.After(p.next) {
		p.next = now.Add(progressEvery)
		fmt.Fprintf(p.w, "%s: %d %s after %s\n", p.what, p.count, detail(), now.Sub(p.start).Round(time.Millisecond))
	}
}

// percent formats how far through a file of size bytes off is.
func (p *progress) percent(off, size int64) string {
	if size <= 0 {
		return ""
	}
	return fmt.Sprintf("(%d%% of the file)", off*100/size)
}

// say writes a line now.
func (p *progress) say(format string, args ...any) {
	if p == nil || p.w == nil {
		return
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}
