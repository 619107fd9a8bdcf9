package console

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/integration"
)

// BenchmarkFollowerSetDataTraced is BenchmarkFollowerSetData with nobody
// watching and then with the replication view polled on the follower's
// console, so that every member records its messages: the trace's cost.
//
//	go test ./console/ -run '^$' -bench FollowerSetDataTraced -benchtime 3000x -count 5
func BenchmarkFollowerSetDataTraced(b *testing.B) {
	c := integration.StartCluster(b, 3)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	conn, _ := c.Connect(b, c.Servers[follower].Addr())
	if _, err := conn.Create("/bench", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 100)
	run := func(b *testing.B) {
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
	b.Run("unwatched", run)
	b.Run("traced", func(b *testing.B) {
		base := serveCluster(b, c, DefaultInterval)[follower]
		after := ""
		poll := func() int { // as the page does, from the cursors of the last answer
			resp, err := httpClient.Get(base + ReplicationPath + "?after=" + after)
			if err != nil {
				return 0
			}
			defer resp.Body.Close()
			var ans replicationAnswer
			if json.NewDecoder(resp.Body).Decode(&ans) != nil {
				return 0
			}
			after = cursorsOf(ans)
			return len(ans.Members)
		}
		waitFor(b, 10*time.Second, "every member recording", func() bool { return poll() == 3 })
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // the page's polls, twice a second
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(500 * time.Millisecond):
					poll()
				}
			}
		}()
		run(b)
		b.StopTimer()
		close(stop)
		<-done
	})
}
