package recipes_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
)

// BenchmarkLock measures lock acquire/release cycles per second through a
// standalone in-process server, with 1, 8 and 64 contenders, each on its
// own client session:
//
//	go test ./recipes/ -run '^$' -bench Lock -benchtime 2000x
//
// One op is one acquire plus one release by some contender.
func BenchmarkLock(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("contenders=%d", n), func(b *testing.B) {
			// 64 sessions from one address exceed ZooKeeper's default
			// maxClientCnxns of 60.
			srv := integration.StartServer(b, integration.WithConfig(func(c *server.Config) { c.MaxClientCnxns = 0 }))
			ctx := testCtx(b)
			locks := make([]*recipes.Lock, n)
			for i, c := range clients(b, srv, n) {
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
		})
	}
}
