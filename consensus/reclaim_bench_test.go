package consensus

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"slices"
	"sync"
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
	probe, err := os.Create(filepath.Join(dir, "probe"))
	if err != nil {
		b.Fatal(err)
	}
	defer probe.Close()

	type span struct{ start, end time.Time }
	var mu sync.Mutex
	var spans []span
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		rec := make([]byte, 200)
		for {
			select {
			case <-stop:
				return
			default:
			}
			probe.Write(rec)
			s := time.Now()
			probe.Sync()
			mu.Lock()
			spans = append(spans, span{s, time.Now()})
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
		}
	}()
	time.Sleep(200 * time.Millisecond)
	b.StartTimer()
	start := time.Now()
	if paced {
		r := newReclaimer(reclaimStep, func() { time.Sleep(reclaimPause) })
		if err := r.retire(big, big+reclaimedSuffix); err != nil {
			b.Fatal(err)
		}
		r.wait()
	} else if err := os.Remove(big); err != nil {
		b.Fatal(err)
	}
	end := time.Now()
	b.StopTimer()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	<-done
	var lat []float64
	for _, s := range spans {
		if s.start.Before(end) && s.end.After(start) {
			lat = append(lat, float64(s.end.Sub(s.start).Microseconds())/1000)
		}
	}
	if len(lat) == 0 {
		return 0, 0, end.Sub(start)
	}
	slices.Sort(lat)
	return lat[len(lat)-1], lat[len(lat)*99/100], end.Sub(start)
}
