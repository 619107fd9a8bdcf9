package consensus

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkReclaimSyncWait frees a 1 GiB file (written and synced first)
// while another file on the same file system appends 200 bytes and
// fdatasyncs in a loop, once by unlinking it in one call and once through
// the reclaimer, and reports the longest and the 99th percentile sync
// that overlapped the freeing, and how long the freeing took. TMPDIR
// picks the file system; on one mounted with discard the unlink holds
// the syncs (docs/scale.md):
//
//	go test -run '^$' -bench ReclaimSyncWait -benchtime 1x ./consensus
func BenchmarkReclaimSyncWait(b *testing.B) {
	for _, way := range []string{"unlink", "reclaimer"} {
		b.Run(way, func(b *testing.B) {
			for range b.N {
				maxMs, p99Ms, took := syncWaitWhileFreeing(b, way == "reclaimer")
				b.ReportMetric(maxMs, "sync-max-ms")
				b.ReportMetric(p99Ms, "sync-p99-ms")
				b.ReportMetric(took.Seconds()*1000, "free-ms")
			}
		})
	}
}

func syncWaitWhileFreeing(b *testing.B, paced bool) (maxMs, p99Ms float64, took time.Duration) {
	b.StopTimer()
	dir := b.TempDir()
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	rand.Read(chunk)
	for range 1024 {
		if _, err := f.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return syncsDuring(b, dir, func() {
		if paced {
			r := newReclaimer(reclaimStep, func() { time.Sleep(reclaimPause) })
			if err := r.retire(big, big+reclaimedSuffix); err != nil {
				b.Fatal(err)
			}
			r.wait()
		} else if err := os.Remove(big); err != nil {
			b.Fatal(err)
		}
	})
}
