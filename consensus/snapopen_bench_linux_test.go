package consensus

import (
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	"golang.org/x/sys/unix"
)

// BenchmarkSnapshotOpenRead opens a 512 MiB snapshot and reads it to the
// end, as a restore or a send to a follower does, with hashicorp/raft's
// FileSnapshotStore.Open (a CRC pass, then the read) and with the
// one-pass Open (snapopen.go); warm, and cold (the file evicted from the
// page cache first, as after a reboot or under memory pressure). TMPDIR
// picks the file system:
//
//	go test -run '^$' -bench SnapshotOpenRead -benchtime 3x ./consensus
func BenchmarkSnapshotOpenRead(b *testing.B) {
	base := b.TempDir()
	store, err := newReapingSnapshots(base, 2, nil)
	if err != nil {
		b.Fatal(err)
	}
	sink, err := store.Create(raft.SnapshotVersionMax, 10, 1, raft.Configuration{}, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	rand.Read(chunk)
	for range 512 {
		if _, err := sink.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	if err := sink.Close(); err != nil {
		b.Fatal(err)
	}
	state := filepath.Join(base, snapshotsSubdir, sink.ID(), snapshotStateFile)
	opens := map[string]func(string) (*raft.SnapshotMeta, io.ReadCloser, error){
		"file-store": store.FileSnapshotStore.Open,
		"one-pass":   store.Open,
	}
	for _, cache := range []string{"warm", "cold"} {
		for _, way := range []string{"file-store", "one-pass"} {
			b.Run(cache+"/"+way, func(b *testing.B) {
				b.SetBytes(512 << 20)
				for range b.N {
					if cache == "cold" {
						b.StopTimer()
						evict(b, state)
						b.StartTimer()
					}
					_, rc, err := opens[way](sink.ID())
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, rc); err != nil {
						b.Fatal(err)
					}
					rc.Close()
				}
			})
		}
	}
}

// evict drops path's pages from the page cache.
func evict(b *testing.B, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		b.Fatal(err)
	}
}
