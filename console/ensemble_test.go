package console

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
)

// serveCluster serves a console for each of c's servers and returns their
// base URLs.
func serveCluster(t testing.TB, c *integration.Cluster, interval time.Duration) []string {
	t.Helper()
	bases := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		con := New(s, Options{Interval: interval})
		ts := httptest.NewServer(con)
		t.Cleanup(func() {
			con.CloseStreams()
			ts.Close()
		})
		bases[i] = ts.URL
	}
	return bases
}

// snapshotOf reads a console's JSON snapshot.
func snapshotOf(t *testing.T, base string) state {
	t.Helper()
	_, _, body := get(t, base+SnapshotPath)
	var st state
	require.NoError(t, json.Unmarshal(body, &st), "%s", body)
	return st
}

// member returns st's member id.
func member(st state, id int64) server.EnsembleMember {
	for _, m := range st.Members {
		if m.ID == id {
			return m
		}
	}
	return server.EnsembleMember{}
}

// TestEnsembleView runs a three-server ensemble: a follower's console
// shows every server's figures, gathered over the links between servers,
// and the leader's match index and lag of each follower; after the leader
// is killed, the follower's stream shows the new leader and its timeline
// the election.
func TestEnsembleView(t *testing.T) {
	c := integration.StartCluster(t, 3)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	bases := serveCluster(t, c, 100*time.Millisecond)
	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	_, err := conn.Create("/console", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	want := c.Servers[follower].LastZxid()

	leaderID, followerID := int64(leader+1), int64(follower+1)
	var st state
	waitFor(t, 15*time.Second, "every server's figures on the follower's console", func() bool {
		st = snapshotOf(t, bases[follower])
		if st.Server != followerID || len(st.Members) != 3 {
			return false
		}
		for _, m := range st.Members {
			if m.Status == nil || m.Status.LastZxid < want || m.AgeMs > 3000 {
				return false
			}
		}
		l := member(st, leaderID).Status
		if l.Role != "leader" || len(l.Followers) != 2 {
			return false
		}
		for _, f := range l.Followers {
			if f.Match == nil || *f.Lag != 0 {
				return false
			}
		}
		return true
	})
	self := member(st, followerID)
	require.True(t, self.Self)
	require.Equal(t, "follower", self.Status.Role)
	require.Equal(t, leaderID, self.Status.LeaderID)
	require.Positive(t, self.Status.Znodes)
	require.Equal(t, 1, self.Status.Connections)
	require.Equal(t, 1, self.Status.Sessions)
	l := member(st, leaderID).Status
	require.Equal(t, l.Epoch, self.Status.Epoch)
	require.GreaterOrEqual(t, l.CommitIndex, self.Status.CommitIndex-1)
	require.Equal(t, uint64(want>>32), l.Epoch, "the zxid's epoch is the Raft term")
	require.Equal(t, l.LastLogIndex, *l.Followers[0].Match)

	ev := openEvents(t, bases[follower])
	ev.next(t)
	c.Kill(leader)
	var newLeader int64
	var events []server.TimelineEvent
	deadline := time.Now().Add(20 * time.Second)
	for newLeader == 0 || member(st, newLeader).Status == nil || member(st, newLeader).Status.Role != "leader" {
		require.True(t, time.Now().Before(deadline), "the follower's stream never showed a new leader")
		st = ev.next(t)
		events = append(events, st.Timeline...)
		if id := member(st, followerID).Status.LeaderID; id != 0 && id != leaderID {
			newLeader = id
		}
	}
	require.NotEqual(t, leaderID, newLeader)
	var looking, elected bool
	for _, e := range append(snapshotOf(t, bases[follower]).Timeline, events...) {
		looking = looking || e.Kind == "looking" && e.Term >= l.Epoch
		elected = elected || e.Kind == "leader" && e.Leader == strconv.FormatInt(newLeader, 10) && e.Term > l.Epoch
	}
	require.True(t, looking, "the timeline shows the election: %+v", events)
	require.True(t, elected, "the timeline shows the new leader: %+v", events)

	// The whole ensemble's timeline: the other survivor's own record of the
	// election, gathered over the links, and the killed leader's events
	// from before it died, each labelled with its server.
	other := 6 - leaderID - followerID
	waitFor(t, 15*time.Second, "the other servers' events on the follower's console", func() bool {
		var fromOther, fromDead bool
		for _, e := range snapshotOf(t, bases[follower]).PeerTimeline {
			fromOther = fromOther || e.Server == other && e.Kind == "leader" && e.Leader == strconv.FormatInt(newLeader, 10) && e.Term > l.Epoch
			fromDead = fromDead || e.Server == leaderID && e.Kind == "leader" && e.Self
		}
		return fromOther && fromDead
	})
}

// ensembleShowing starts a three-server ensemble with every console
// served (refreshing every 250 ms) and a node /shown ("in the browser")
// created through a follower, for the browser tests: it returns the
// ensemble, the leader's and that follower's indexes, and the consoles'
// base URLs.
func ensembleShowing(t *testing.T) (c *integration.Cluster, leader, follower int, bases []string) {
	c = integration.StartCluster(t, 3)
	leader = c.WaitForLeader()
	follower = (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	bases = serveCluster(t, c, 250*time.Millisecond)
	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	_, err := conn.Create("/shown", []byte("in the browser"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	return c, leader, follower, bases
}
