package integration

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/server"
)

// BenchmarkBackupStall measures how much a backup taken during a write
// load stalls the writes (issue 15: at most 10 ms at p99). A durable
// three-node ensemble holds a tree of 100k znodes (100-byte data); writers
// spread over the three servers set their own znode in a loop, and their
// latency is measured without backups, then while a loop takes backups
// (OpenBackup + WriteTo(io.Discard) + Close, back to back) on the leader,
// then on a follower, then without again:
//
//	go test ./integration/ -run '^$' -bench BackupStall -benchtime 1x -v
//
// ZKRAFT_STALL_NODES, ZKRAFT_STALL_WRITERS and ZKRAFT_STALL_PHASE (a Go
// duration) change the tree size, the writers (16) and each phase's length (5s).
func BenchmarkBackupStall(b *testing.B) {
	nodes, writers := envInt("ZKRAFT_STALL_NODES", 100_000), envInt("ZKRAFT_STALL_WRITERS", 16)
	phase := envDuration("ZKRAFT_STALL_PHASE", 5*time.Second)
	c := StartCluster(b, 3)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	conns := make([]*zk.Conn, 3)
	for i, s := range c.Servers {
		conns[i], _ = c.Connect(b, s.Addr())
	}
	start := time.Now()
	fillTree(b, conns[leader], nodes)
	b.Logf("tree: %d znodes in %v", nodes, time.Since(start).Round(time.Millisecond))
	for i := 0; i < writers; i++ {
		if _, err := conns[0].Create(fmt.Sprintf("/w%d", i), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range []struct {
			name   string
			backup *server.Server
			every  time.Duration
		}{
			{"no backup", nil, 0},
			{"leader, back to back", c.Servers[leader], 0},
			{"leader, one a second", c.Servers[leader], time.Second},
			{"follower, back to back", c.Servers[follower], 0},
			{"no backup again", nil, 0},
		} {
			lat, during, snaps := stallPhase(b, conns, writers, phase, p.backup, p.every)
			b.Logf("%-24s writes %6d  p50 %6.2f ms  p99 %6.2f ms  p99.9 %6.2f ms  max %7.2f ms  %s",
				p.name, len(lat), ms(pct(lat, 50)), ms(pct(lat, 99)), ms(pct(lat, 99.9)), ms(lat[len(lat)-1]), snaps)
			if len(during) > 0 {
				b.Logf("%-24s writes %6d  p50 %6.2f ms  p99 %6.2f ms  p99.9 %6.2f ms  max %7.2f ms  (only writes that overlapped a backup)",
					"", len(during), ms(pct(during, 50)), ms(pct(during, 99)), ms(pct(during, 99.9)), ms(during[len(during)-1]))
			}
		}
	}
}

// fillTree creates /tree/<k>/n<i> for n nodes, 100 bytes each, with many
// requests in flight.
func fillTree(b *testing.B, conn *zk.Conn, n int) {
	const fanout = 1000
	data := make([]byte, 100)
	if _, err := conn.Create("/tree", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	for k := 0; k*fanout < n; k++ {
		if _, err := conn.Create(fmt.Sprintf("/tree/%d", k), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if _, err := conn.Create(fmt.Sprintf("/tree/%d/n%d", i/fanout, i), data, 0, zk.WorldACL(zk.PermAll)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// timedWrite is one write's start and latency.
type timedWrite struct {
	at  time.Time
	lat time.Duration
}

// window is the time one backup took, from OpenBackup to Close.
type window struct{ from, to time.Time }

// stallPhase runs the writers for d, with a backup loop on backup when it
// is set, and returns the sorted write latencies, the sorted latencies of
// the writes that overlapped a backup, and a line about the backups.
func stallPhase(b *testing.B, conns []*zk.Conn, writers int, d time.Duration, backup *server.Server, every time.Duration) ([]time.Duration, []time.Duration, string) {
	stop := make(chan struct{})
	var mu sync.Mutex
	var all []timedWrite
	var wg sync.WaitGroup
	data := make([]byte, 100)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, path := conns[w%len(conns)], fmt.Sprintf("/w%d", w)
			var lat []timedWrite
			for {
				select {
				case <-stop:
					mu.Lock()
					all = append(all, lat...)
					mu.Unlock()
					return
				default:
				}
				t0 := time.Now()
				if _, err := conn.Set(path, data, -1); err != nil {
					b.Error(err)
				}
				lat = append(lat, timedWrite{t0, time.Since(t0)})
			}
		}()
	}
	snaps := "no backups"
	done := make(chan string)
	var windows []window
	go func() {
		s, w := backupLoop(b, backup, every, stop)
		windows = w
		done <- s
	}()
	time.Sleep(d) // the phase's length: a measurement window, not a synchronisation
	close(stop)
	wg.Wait()
	if s := <-done; s != "" {
		snaps = s
	}
	lat, during := make([]time.Duration, 0, len(all)), []time.Duration(nil)
	for _, w := range all {
		lat = append(lat, w.lat)
		if overlaps(w, windows) {
			during = append(during, w.lat)
		}
	}
	slices.Sort(lat)
	slices.Sort(during)
	return lat, during, snaps
}

// overlaps tells whether a write was in flight during one of windows.
func overlaps(w timedWrite, windows []window) bool {
	end := w.at.Add(w.lat)
	for _, win := range windows {
		if w.at.Before(win.to) && end.After(win.from) {
			return true
		}
	}
	return false
}

// backupLoop takes backups on s until stop, back to back or one every
// period, describes them and returns when each ran.
func backupLoop(b *testing.B, s *server.Server, every time.Duration, stop <-chan struct{}) (string, []window) {
	if s == nil {
		return "", nil
	}
	var took []time.Duration
	var windows []window
	var size int64
	next := time.Now()
	for {
		wait := time.Until(next)
		select {
		case <-time.After(wait):
		case <-stop:
			slices.Sort(took)
			if len(took) == 0 {
				return "no backup finished", windows
			}
			return fmt.Sprintf("%d backups of %.1f MB, each %v (median)", len(took), float64(size)/1e6, took[len(took)/2].Round(time.Millisecond)), windows
		}
		next = next.Add(every)
		t0 := time.Now()
		bk, err := s.OpenBackup(context.Background())
		if err != nil {
			b.Error(err)
			return "failed", windows
		}
		if _, err := bk.WriteTo(io.Discard); err != nil {
			b.Error(err)
		}
		size = bk.Size
		bk.Close()
		took = append(took, time.Since(t0))
		windows = append(windows, window{t0, time.Now()})
	}
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p/100))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int) int {
	var v int
	if _, err := fmt.Sscan(os.Getenv(name), &v); err == nil && v > 0 {
		return v
	}
	return def
}

// envDuration reads a Go duration from the environment, or def.
func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}
