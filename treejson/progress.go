package treejson

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ImportProgress is how far an import is, as Progress is told.
type ImportProgress struct {
	// Nodes counts the nodes done: created, updated, unchanged or skipped.
	Nodes int
	// Read is how many bytes of the export were decoded: with the size of
	// the file, how far through it the import is.
	Read int64
	// Counter is the parent whose sequence counter is being moved (after
	// the nodes), and CounterSteps how many creates and deletes it has had.
	Counter      string
	CounterSteps int64
	// Done is set on the last call.
	Done bool
}

// defaultProgressEvery is ImportOptions.ProgressEvery's default.
const defaultProgressEvery = time.Second

// startProgress calls opts.Progress every ProgressEvery until the
// returned function is called, which makes the last call (Done).
func (im *importer) startProgress() (stop func()) {
	report := im.opts.Progress
	if report == nil {
		return func() {}
	}
	every := im.opts.ProgressEvery
	if every <= 0 {
		every = defaultProgressEvery
	}
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				report(im.progress(false))
			}
		}
	}()
	return func() {
		close(quit)
		<-exited
		report(im.progress(true))
	}
}

func (im *importer) progress(done bool) ImportProgress {
	im.mu.Lock()
	defer im.mu.Unlock()
	return ImportProgress{Nodes: im.done(), Read: im.read.Load(), Counter: im.counter, CounterSteps: im.counterSteps, Done: done}
}

// TerminalProgress returns a Progress function for a terminal: it
// rewrites one line of w with the nodes done and, when size (the
// export's size in bytes) is known, the share of the file read; then the
// sequence counter being moved. The last call ends the line.
func TerminalProgress(w io.Writer, size int64) func(ImportProgress) {
	width := 0
	return func(p ImportProgress) {
		line := p.line(size)
		pad := max(width-len(line), 0)
		width = len(line)
		fmt.Fprintf(w, "\r%s%s", line, strings.Repeat(" ", pad))
		if p.Done {
			fmt.Fprintln(w)
		}
	}
}

func (p ImportProgress) line(size int64) string {
	s := fmt.Sprintf("imported %d nodes", p.Nodes)
	if size > 0 {
		s += fmt.Sprintf(" (%d%% of the file)", min(p.Read*100/size, 100))
	}
	if p.Counter != "" {
		s += fmt.Sprintf("; moving the sequence counter of %s: %d of at most %d steps", p.Counter, p.CounterSteps, MaxCounterSteps)
	}
	return s
}
