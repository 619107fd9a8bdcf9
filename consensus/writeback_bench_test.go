package consensus

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWritebackSyncWait writes a 1 GiB file 1 MiB at a time, about
// as fast as a snapshot's walk of a large tree writes it, and syncs it,
// while another file on the same file system appends 200 bytes and
// fdatasyncs in a loop; once with the file left to its final sync and
// once with its write-out paced (writeback.go). It reports the longest
// and the 99th percentile sync that overlapped the file's writing and
// sync, and how long that took. TMPDIR picks the file system, and
// ZKRAFT_WRITEBACK_STEP_MIB another step than writebackStep:
//
//	go test -run '^$' -bench WritebackSyncWait -benchtime 1x ./consensus
func BenchmarkWritebackSyncWait(b *testing.B) {
	if v := os.Getenv("ZKRAFT_WRITEBACK_STEP_MIB"); v != "" {
		var n int64
		fmt.Sscan(v, &n)
		writebackStep = n << 20
	}
	for _, way := range []string{"at-close", "paced"} {
		b.Run(way, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				dir := b.TempDir()
				maxMs, p99Ms, took := syncsDuring(b, dir, func() { writeBigFile(b, dir, way == "paced") })
				b.ReportMetric(maxMs, "sync-max-ms")
				b.ReportMetric(p99Ms, "sync-p99-ms")
				b.ReportMetric(took.Seconds()*1000, "write-ms")
			}
		})
	}
}

func writeBigFile(b *testing.B, dir string, paced bool) {
	path := filepath.Join(dir, "big")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var pace *writeback
	if paced {
		pace = openWriteback(path)
		defer pace.close()
	}
	chunk := make([]byte, 1<<20)
	rand.Read(chunk)
	for range 1024 {
		n, err := f.Write(chunk)
		if err != nil {
			b.Fatal(err)
		}
		pace.add(n)
		time.Sleep(2 * time.Millisecond)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
}
