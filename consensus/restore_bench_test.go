package consensus

import (
	"bytes"
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// heapPeak samples the live heap every millisecond until stop is
// closed and returns the largest sample.
func heapPeak(stop <-chan struct{}) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(s)
		peak = max(peak, s[0].Value.Uint64())
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// BenchmarkRestoreMemory measures how much more heap a restore holds at
// its peak than before it began, and how much the installed state holds
// once it is done, against the backup's size, for a backup
// of 100,000 znodes restored into an empty standalone node with a data
// directory (Raft's snapshot store on disk, as in production):
//
//	go test ./consensus/ -run '^$' -bench RestoreMemory -benchtime 3x
func BenchmarkRestoreMemory(b *testing.B) {
	ctx := context.Background()
	src, err := Start(ctx, Config{ServerID: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := src.Propose(ctx, &Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1}); err != nil {
		b.Fatal(err)
	}
	fillTree(b, src, 100_000)
	bk, err := src.OpenBackup(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := bk.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	bk.Close()
	src.Close()
	backup := buf.Bytes()
	var ratio, installed float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst, err := Start(ctx, Config{ServerID: 1, Storage: Storage{DataDir: b.TempDir(), NoSync: true}})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		base := heapPeak(closedChan())
		stop := make(chan struct{})
		var peak uint64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); peak = heapPeak(stop) }()
		if _, err := dst.RestoreBackup(ctx, bytes.NewReader(backup)); err != nil {
			b.Fatal(err)
		}
		close(stop)
		wg.Wait()
		ratio = float64(peak-base) / float64(len(backup))
		runtime.GC()
		installed = float64(heapPeak(closedChan())-base) / float64(len(backup))
		dst.Close()
	}
	b.ReportMetric(float64(len(backup))/(1<<20), "backup-MiB")
	b.ReportMetric(ratio, "peak-heap/backup")
	b.ReportMetric(installed, "installed-heap/backup")
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
