package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/server"
)

// BenchmarkSlowLeaderDisk measures what a slow log disk on the leader
// costs the writes when the followers' disks are fast (issue 28: a write
// commits once any majority holds it on disk). A three-server durable
// ensemble, forceSync=yes, every log on tmpfs; the leader's appends are
// then delayed by a fault (consensus.DiskFaults.SetDelay: the append
// sleeps, so the slow disk takes no CPU from the others, unlike a real
// one on a 2-core machine), and at last stalled outright for two seconds.
// One client sets a znode, one request at a time, through the leader and
// through a follower in turn:
//
//	go test ./integration/ -run '^$' -bench SlowLeaderDisk -benchtime 1x -v
//
// ZKRAFT_SLOWDISK_PHASE (a Go duration, default 3s) sets each phase's
// length. With commitment on the leader's own disk, the p50 would follow
// the delay; on any majority's disks it stays at the all-tmpfs figure.
func BenchmarkSlowLeaderDisk(b *testing.B) {
	phase := envDuration("ZKRAFT_SLOWDISK_PHASE", 3*time.Second)
	dir := tmpfsDir(b)
	disks := []*consensus.DiskFaults{{}, {}, {}}
	for _, d := range disks {
		b.Cleanup(d.Resume)
	}
	c := StartCluster(b, 3, WithDiskFaults(disks...), WithServerConfig(func(cfg *server.Config) {
		cfg.ForceSync = true
		cfg.DataDir = filepath.Join(dir, fmt.Sprint(cfg.ServerID))
	}))
	leader := c.WaitForLeader()
	via := map[string]*zk.Conn{}
	via["leader"], _ = c.Connect(b, c.Servers[leader].Addr())
	via["follower"], _ = c.Connect(b, c.Servers[(leader+1)%3].Addr())
	if _, err := via["leader"].Create("/slowdisk", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, delay := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
			disks[leader].SetDelay(delay)
			for _, role := range []string{"leader", "follower"} {
				lat := timeSets(b, via[role], phase)
				b.Logf("leader disk +%-5v client on the %-8s sets %6d  p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms",
					delay, role, len(lat), ms(pct(lat, 50)), ms(pct(lat, 99)), ms(lat[len(lat)-1]))
			}
		}
		disks[leader].SetDelay(0)
		disks[leader].Stall()
		lat := timeSets(b, via["leader"], 2*time.Second)
		still := c.Leader() == leader
		disks[leader].Resume()
		b.Logf("leader disk stalled 2 s, client on the leader  sets %6d  p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms  (same leader throughout: %v)",
			len(lat), ms(pct(lat, 50)), ms(pct(lat, 99)), ms(lat[len(lat)-1]), still)
	}
}

// timeSets sets /slowdisk through conn, one request at a time, for d,
// and returns the latencies sorted.
func timeSets(b *testing.B, conn *zk.Conn, d time.Duration) []time.Duration {
	data := make([]byte, 100)
	var lat []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		t0 := time.Now()
		if _, err := conn.Set("/slowdisk", data, -1); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	return lat
}

// tmpfsDir is a fresh directory on tmpfs (/dev/shm), removed when b ends;
// b is skipped where there is none.
func tmpfsDir(b *testing.B) string {
	if _, err := os.Stat("/dev/shm"); err != nil {
		b.Skip("needs tmpfs at /dev/shm for the followers' logs")
	}
	dir, err := os.MkdirTemp("/dev/shm", "zkraft-slowdisk-")
	if err != nil {
		b.Skip("cannot use /dev/shm: ", err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
