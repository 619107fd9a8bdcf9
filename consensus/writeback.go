package consensus

import (
	"os"
	"time"
)

// A snapshot is written through the page cache and synced once, when its
// sink closes. At 10M znodes that leaves 1.4 GB dirty for the final
// fsync, or for the kernel's flusher 30 s into the walk, to write in one
// go; on ext4 (data=ordered) a journal commit waits for that data, and
// with it every fdatasync on the disk: a log append under forceSync=yes,
// or raft-wal's metadata commit when it starts a segment, which holds the
// log's appends. Another file's fdatasync took up to 1.3 s while a 1 GiB
// file was synced at its end, and at most 13-47 ms while the same file
// was pushed out 2 MiB at a time as it was written
// (BenchmarkWritebackSyncWait, docs/scale.md). The price is that the
// disk is busy the whole time instead of at the end: the 99th percentile
// of those syncs rose from 1-2 ms to 10-15 ms (18-20 ms with steps of 4
// or 8 MiB, 8-14 ms with 1 MiB steps, which slowed the writer by 15%).
//
// A writeback starts the write-out of each step of a file as soon as it
// is written and waits for the step before it, so that no more than two
// steps of it are dirty at once. It is advisory: where the system cannot
// do it, the file is written as before, and the sink's final sync still
// reports any error.
type writeback struct {
	f       *os.File
	written int64 // bytes written to the file, as counted by add
	started int64 // end of the last step whose write-out was started
	off     bool  // the system refused a request, or closed; stop asking
	closed  bool
	waited  time.Duration // in the system's calls
}

// writebackStep is how much of a file is pushed out at once; a variable
// so that BenchmarkWritebackSyncWait can try others.
var writebackStep int64 = 2 << 20

// openWriteback opens path, a file another handle is writing, to pace its
// write-out. It returns nil (pacing off) if the file cannot be opened.
func openWriteback(path string) *writeback {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	return &writeback{f: f}
}

// add counts n more bytes written and starts the write-out of every whole
// step they complete, each after the one before it is on disk.
func (w *writeback) add(n int) {
	if w == nil {
		return
	}
	w.written += int64(n)
	for !w.off && w.written-w.started >= writebackStep {
		t := time.Now()
		err := w.step()
		w.waited += time.Since(t)
		if err != nil {
			w.off = true
			return
		}
		w.started += writebackStep
	}
}

// step starts the write-out of the step at w.started and waits for the
// one before it.
func (w *writeback) step() error {
	if err := startWriteOut(w.f, w.started, writebackStep); err != nil {
		return err
	}
	if w.started < writebackStep {
		return nil
	}
	return awaitWriteOut(w.f, w.started-writebackStep, writebackStep)
}

// steps reports how many steps' write-out add has started.
func (w *writeback) steps() int64 {
	if w == nil {
		return 0
	}
	return w.started / writebackStep
}

// wait reports the time spent in the system's calls.
func (w *writeback) wait() time.Duration {
	if w == nil {
		return 0
	}
	return w.waited
}

// close releases the file handle; a second close does nothing.
func (w *writeback) close() {
	if w != nil && !w.closed {
		w.closed, w.off = true, true
		w.f.Close()
	}
}
