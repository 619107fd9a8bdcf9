package console

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/integration"
)

// BenchmarkFollowerSetData writes through a follower of a three-server
// ensemble (8 goroutines on one session, each setData forwarded to the
// leader and answered after the follower applies it), with nobody
// watching the console and then with an event stream open on every
// server's console, so that the console's cost shows:
//
//	go test ./console/ -run '^$' -bench FollowerSetData -benchtime 3000x -count 5
func BenchmarkFollowerSetData(b *testing.B) {
	c, _, run := followerWrites(b)
	b.Run("unwatched", run)
	b.Run("watched", func(b *testing.B) {
		for _, base := range serveCluster(b, c, DefaultInterval) {
			openEvents(b, base).next(b)
		}
		time.Sleep(2 * DefaultInterval) // let the gathering between servers start
		run(b)
	})
}

// followerWrites starts a three-server ensemble and returns it, the index
// of a follower, and a benchmark body that runs setData through that
// follower (8 goroutines on one session).
func followerWrites(b *testing.B) (*integration.Cluster, int, func(*testing.B)) {
	c := integration.StartCluster(b, 3)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	conn, _ := c.Connect(b, c.Servers[follower].Addr())
	if _, err := conn.Create("/bench", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 100)
	return c, follower, func(b *testing.B) {
		b.SetParallelism(8)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := conn.Set("/bench", data, -1); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
}
