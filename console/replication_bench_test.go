package console

import (
	"encoding/json"
	"testing"
	"time"
)

// BenchmarkFollowerSetDataTraced is BenchmarkFollowerSetData with nobody
// watching and then with the replication view polled on the follower's
// console, so that every member records its messages: the trace's cost.
//
//	go test ./console/ -run '^$' -bench FollowerSetDataTraced -benchtime 3000x -count 5
func BenchmarkFollowerSetDataTraced(b *testing.B) {
	c, follower, run := followerWrites(b)
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
