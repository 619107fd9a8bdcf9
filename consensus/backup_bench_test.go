package consensus

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// timedLocker records how long each hold of a lock lasts.
type timedLocker struct {
	sync.Locker
	since time.Time
	holds []time.Duration
}

func (l *timedLocker) Lock()   { l.Locker.Lock(); l.since = time.Now() }
func (l *timedLocker) Unlock() { l.holds = append(l.holds, time.Since(l.since)); l.Locker.Unlock() }

// BenchmarkBackupLockHold measures the longest time a backup keeps the
// state lock, which is the longest an apply can wait for it: the freeze
// (under the write lock) and each step of the view's walk (under the read
// lock), on a 100,000-znode tree while a client proposes creates:
//
//	go test ./consensus/ -run '^$' -bench BackupLockHold -benchtime 5x
func BenchmarkBackupLockHold(b *testing.B) {
	ctx := context.Background()
	n, err := Start(ctx, Config{ServerID: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	if _, err := n.Propose(ctx, &Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1}); err != nil {
		b.Fatal(err)
	}
	fillTree(b, n, 100_000)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // writes go on during the backups
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			n.Propose(ctx, createCmd("/m/p0/w-"+time.Now().Format("150405.000000000")))
		}
	}()
	var freezes, steps []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := n.fsm
		t0 := time.Now()
		f.mu.Lock()
		s := f.freeze()
		f.mu.Unlock()
		freezes = append(freezes, time.Since(t0))
		tl := &timedLocker{Locker: s.lock}
		s.lock = tl
		if err := s.encode(); err != nil {
			b.Fatal(err)
		}
		s.Release()
		steps = append(steps, tl.holds...)
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	slices.Sort(freezes)
	slices.Sort(steps)
	b.ReportMetric(ms(freezes[len(freezes)-1]), "freeze-max-ms")
	b.ReportMetric(ms(steps[len(steps)*99/100]), "step-p99-ms")
	b.ReportMetric(ms(steps[len(steps)-1]), "step-max-ms")
	b.ReportMetric(float64(len(steps)/b.N), "steps/backup")
}
