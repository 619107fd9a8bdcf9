package consensus

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// wantSteps is how many steps a writeback starts for n bytes here: none
// where the system has no sync_file_range.
func wantSteps(n int64) int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	return n / writebackStep
}

func TestWritebackStartsEachWholeStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := openWriteback(path)
	if w == nil {
		t.Fatal("openWriteback returned nil for a file that exists")
	}
	chunk := bytes.Repeat([]byte{7}, 3<<20)
	var total int64
	for range 9 { // 27 MiB: three whole steps and a part
		n, err := f.Write(chunk)
		if err != nil {
			t.Fatal(err)
		}
		w.add(n)
		total += int64(n)
	}
	if got, want := w.steps(), wantSteps(total); got != want {
		t.Fatalf("started %d steps for %d bytes, want %d", got, total, want)
	}
	w.close()
	w.close() // a second close does nothing
	w.add(int(writebackStep))
	if got, want := w.steps(), wantSteps(total); got != want {
		t.Fatalf("a closed writeback started more steps: %d, want %d", got, want)
	}
	var none *writeback
	none.add(1) // pacing off: nothing to do, no panic
	none.close()
	if openWriteback(filepath.Join(t.TempDir(), "missing")) != nil {
		t.Fatal("openWriteback of a missing file is not nil")
	}
}

// A snapshot's sink finds the file the store writes, so the write-out is
// paced; this fails if hashicorp/raft moves the file.
func TestSnapshotSinkPacesItsFile(t *testing.T) {
	base := t.TempDir()
	store, err := newReapingSnapshots(base, 2, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	sink, err := store.Create(raft.SnapshotVersionMax, 10, 1, raft.Configuration{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := sink.(*reapingSink)
	if k.pace == nil {
		t.Fatal("the sink did not find its snapshot file")
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), int((2*writebackStep+writebackStep/2)/16))
	if _, err := sink.Write(data); err != nil {
		t.Fatal(err)
	}
	if got, want := k.pace.steps(), wantSteps(int64(len(data))); got != want {
		t.Fatalf("started %d steps, want %d", got, want)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	_, rc, err := store.Open(sink.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("the snapshot reads back %d bytes, not the %d written", len(got), len(data))
	}
}

func TestSnapshotSinkCancelClosesPace(t *testing.T) {
	store, err := newReapingSnapshots(t.TempDir(), 2, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	sink, err := store.Create(raft.SnapshotVersionMax, 10, 1, raft.Configuration{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Cancel(); err != nil {
		t.Fatal(err)
	}
	if k := sink.(*reapingSink); !k.pace.closed {
		t.Fatal("Cancel left the pacing handle open")
	}
	if metas, err := store.List(); err != nil || len(metas) != 0 {
		t.Fatalf("a cancelled snapshot is listed: %v, %v", metas, err)
	}
}

// Raft closes a sink its FSM's Persist already closed: the second Close
// must not reap or report again.
func TestSnapshotSinkClosesOnce(t *testing.T) {
	store, err := newReapingSnapshots(t.TempDir(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 3 {
		sink, err := store.Create(raft.SnapshotVersionMax, uint64(10+i), 1, raft.Configuration{}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		sink.Write([]byte("state"))
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		if err := sink.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		ids = append(ids, sink.ID())
	}
	fileReclaimer.wait()
	metas, err := store.List()
	if err != nil || len(metas) != 1 || metas[0].ID != ids[2] {
		t.Fatalf("listed %v (%v), want only %s", metas, err, ids[2])
	}
}
