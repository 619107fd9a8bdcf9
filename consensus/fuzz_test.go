package consensus

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
)

// FuzzScanSegment feeds arbitrary bytes to the raft-wal segment scanner
// that runs before every durable start and in zkserver verify: it must
// never panic, must stay inside the input, and must find the same
// committed prefix when given only that prefix. The committed corpus
// (testdata/fuzz/FuzzScanSegment) holds real segments: the newest, a
// sealed one, one with a torn tail.
func FuzzScanSegment(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := scanSegment(bytes.NewReader(data), int64(len(data)), 0, 0)
		n := int64(len(data))
		if s.end > n || s.badAt >= n || s.entryErrO > n {
			t.Fatalf("offsets past the input (%d bytes): %+v", n, s)
		}
		if s.badAt >= 0 {
			laterCommit(data[s.end:], s.badAt-s.end)
		}
		if s.end > 0 {
			p := scanSegment(bytes.NewReader(data[:s.end]), s.end, 0, 0)
			if p.end != s.end || p.entries != s.entries || p.badAt >= 0 || (p.entryErr == nil) != (s.entryErr == nil) {
				t.Fatalf("committed prefix scans differently: %+v vs %+v", p, s)
			}
		}
	})
}

// FuzzRestoreSnapshot feeds arbitrary bytes to the snapshot decoder (what
// Raft restores at start and zkserver verify decodes): it must never
// panic, and a state it accepts must snapshot and restore again.
func FuzzRestoreSnapshot(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fsm := newFSM(treeCfg, nil, 1)
		if err := fsm.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
			return
		}
		snap, err := fsm.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		var sink memSink
		if err := snap.Persist(&sink); err != nil {
			t.Fatal(err)
		}
		if err := newFSM(treeCfg, nil, 1).Restore(io.NopCloser(bytes.NewReader(sink.plain()))); err != nil {
			t.Fatalf("restoring its own snapshot: %v", err)
		}
	})
}

// FuzzOpenEntry checks an arbitrary entry: never a panic; an entry sealed
// by sealEntry always opens to itself; changing any byte of a sealed
// entry's data is always caught.
func FuzzOpenEntry(f *testing.F) {
	f.Add(uint64(7), uint64(2), uint8(raft.LogCommand), []byte("data"), []byte{}, 0)
	f.Add(uint64(1), uint64(1), uint8(raft.LogConfiguration), []byte{}, []byte{sumMarker, sumVersion, 0, 0, 0, 0}, 3)
	f.Fuzz(func(t *testing.T, index, term uint64, typ uint8, data, ext []byte, flip int) {
		l := raft.Log{Index: index, Term: term, Type: raft.LogType(typ), Data: data, Extensions: ext}
		raw := l
		openEntry(&raw, false) // arbitrary: must not panic
		sealed := sealEntry(&l)
		opened := sealed
		if err := openEntry(&opened, false); err != nil {
			t.Fatalf("sealed entry does not open: %v", err)
		}
		if !bytes.Equal(opened.Data, l.Data) || !bytes.Equal(opened.Extensions, l.Extensions) && len(l.Extensions) > 0 {
			t.Fatalf("opened entry differs")
		}
		if len(data) == 0 {
			return
		}
		changed := sealed
		changed.Data = bytes.Clone(data)
		changed.Data[uint(flip)%uint(len(data))] ^= 1 << (uint(flip) % 8)
		if openEntry(&changed, false) == nil {
			t.Fatalf("a changed byte went unnoticed")
		}
	})
}

// TestFuzzSeedsAreRealFiles checks that the committed segment seeds are
// what their names say, so the fuzzers start from real structure.
func TestFuzzSeedsAreRealFiles(t *testing.T) {
	for name, want := range map[string]func(s segmentScan) bool{
		"sealed": func(s segmentScan) bool { return s.sealed && s.entries > 0 && s.badAt < 0 && s.uncommit == 0 },
		"newest": func(s segmentScan) bool { return !s.sealed && s.entries > 0 && s.badAt < 0 && s.uncommit == 0 },
		"torn":   func(s segmentScan) bool { return s.entries > 0 && s.badAt >= 0 && s.uncommit == 0 },
	} {
		data := readSeed(t, "FuzzScanSegment", name)
		if s := scanSegment(bytes.NewReader(data), int64(len(data)), 0, 0); !want(s) {
			t.Errorf("seed %s scans as %+v", name, s)
		}
	}
}

func readSeed(t *testing.T, fuzz, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", fuzz, name))
	if err != nil {
		t.Fatal(err)
	}
	lit := strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[1])
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

var treeCfg = datatree.Config{ExtendedTypesEnabled: true}

// TestWriteFuzzSeeds regenerates the committed seed corpora from real
// files when ZKRAFT_WRITE_FUZZ_SEEDS is set; otherwise it does nothing.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("ZKRAFT_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set ZKRAFT_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz seeds")
	}
	smallSegments(t)
	dir := t.TempDir()
	fillDurable(t, dir, false, 70)
	segs := segmentFiles(t, dir)
	sealed, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	newest, err := os.ReadFile(segs[len(segs)-1])
	if err != nil {
		t.Fatal(err)
	}
	newest = newest[:lastNonZero(newest, 0)]
	torn := append(bytes.Clone(newest), frameEntry, 0, 0, 0, 40, 0, 0, 0, 1, 2, 3)
	writeSeed(t, "FuzzScanSegment", "sealed", sealed[:lastNonZero(sealed, 0)])
	writeSeed(t, "FuzzScanSegment", "newest", newest)
	writeSeed(t, "FuzzScanSegment", "torn", torn)

	fsm := filledFSM(t, 0)
	snap, err := fsm.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	writeSeed(t, "FuzzRestoreSnapshot", "small", sink.plain())
	writeSeed(t, "FuzzRestoreSnapshot", "format1", sink.plain()[headerLen:])
}

func writeSeed(t *testing.T, fuzz, name string, data []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", fuzz)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n")
	if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
		t.Fatal(err)
	}
}
