package consensus

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// syncsDuring appends 200 bytes to a probe file in dir and fdatasyncs it
// in a loop, 2 ms apart, while act runs, and returns the longest and the
// 99th percentile of the syncs that overlapped act, and how long act took.
func syncsDuring(b *testing.B, dir string, act func()) (maxMs, p99Ms float64, took time.Duration) {
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
	act()
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
