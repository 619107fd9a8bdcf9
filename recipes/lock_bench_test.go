package recipes_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
)

// BenchmarkLock measures lock acquire/release cycles per second with 1, 8
// and 64 contenders, each on its own client session, against an in-process
// zkraft server and, when the Debian package is installed, against Apache
// ZooKeeper 3.8 (standalone, forceSync=no) on the same machine:
//
//	go test ./recipes/ -run '^$' -bench Lock -benchtime 2000x
//
// One op is one acquire plus one release by some contender.
func BenchmarkLock(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("zkraft/contenders=%d", n), func(b *testing.B) {
			// 64 sessions from one address exceed ZooKeeper's default
			// maxClientCnxns of 60.
			srv := integration.StartServer(b, integration.WithConfig(func(c *server.Config) { c.MaxClientCnxns = 0 }))
			benchLock(b, srv.Addr(), n)
		})
		b.Run(fmt.Sprintf("zookeeper/contenders=%d", n), func(b *testing.B) {
			if ok, reason := realzk.Available(); !ok {
				b.Skip("Apache ZooKeeper not available: " + reason)
			}
			real, err := realzk.Start(b.TempDir(), realzk.Options{ExtraConfig: map[string]string{"maxClientCnxns": "0"}})
			if err != nil {
				b.Fatal(err)
			}
			defer real.Stop()
			benchLock(b, real.Addr(), n)
		})
	}
}

func benchLock(b *testing.B, addr string, n int) {
	ctx := testCtx(b)
	locks := make([]*recipes.Lock, n)
	for i := range locks {
		c, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(silentLogger{}))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		for c.State() != zk.StateHasSession {
			<-events
		}
		locks[i] = recipes.NewLock(c, "/bench/lock")
	}
	work := make(chan struct{}, b.N)
	for i := 0; i < b.N; i++ {
		work <- struct{}{}
	}
	close(work)
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, l := range locks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if err := l.Lock(ctx); err != nil {
					b.Error(err)
					return
				}
				if err := l.Unlock(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "locks/s")
}

type silentLogger struct{}

func (silentLogger) Printf(string, ...any) {}
