package lab

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// snapshot is the part of the console's JSON snapshot the test reads.
type snapshot struct {
	Members []server.EnsembleMember `json:"members"`
}

func getSnapshot(base string) (snapshot, bool) {
	var st snapshot
	resp, err := http.Get(base + "console/api/ensemble")
	if err != nil {
		return st, false
	}
	defer resp.Body.Close()
	return st, resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&st) == nil
}

// role returns the role server id reports of itself in its console.
func role(base string, id int64) string {
	st, ok := getSnapshot(base)
	if !ok {
		return ""
	}
	for _, m := range st.Members {
		if m.ID == id && m.Self && m.Status != nil {
			return m.Status.Role
		}
	}
	return ""
}

// lagOf returns the lag of follower id that the console at base shows
// when its server leads: -2 when the leader knows no match index for it
// (it has lost touch), -1 when base does not lead.
func lagOf(base string, id int64) int64 {
	st, _ := getSnapshot(base)
	for _, m := range st.Members {
		if m.Self && m.Status != nil && m.Status.Role == "leader" {
			for _, f := range m.Status.Followers {
				switch {
				case f.ID == id && f.Lag != nil:
					return int64(*f.Lag)
				case f.ID == id:
					return -2
				}
			}
		}
	}
	return -1
}

func post(t *testing.T, url, auth, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// startLab starts a three-server lab, stopped when the test ends, and
// returns it with its first leader's id.
func startLab(t *testing.T) (*Lab, int64) {
	t.Helper()
	l, err := Start(context.Background(), Options{N: 3, Interval: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(l.Close)
	require.Eventually(t, func() bool { return leaderOf(l) != 0 }, 20*time.Second, 20*time.Millisecond)
	return l, leaderOf(l)
}

func leaderOf(l *Lab) int64 {
	for id := int64(1); id <= 3; id++ {
		if s := l.Server(id); s != nil && s.Role() == "leader" {
			return id
		}
	}
	return 0
}

// TestPartitionThroughConsole starts a lab, partitions a follower away
// through the lab route of the leader's console, and sees in the
// consoles' JSON snapshots the follower stop following and fall behind
// the leader's log; after the heal route, it follows again with no lag.
func TestPartitionThroughConsole(t *testing.T) {
	l, leader := startLab(t)
	urls := l.ConsoleURLs()
	follower := leader%3 + 1
	lurl, furl := urls[leader-1], urls[follower-1]
	require.Eventually(t, func() bool { return lagOf(lurl, follower) == 0 }, 10*time.Second, 20*time.Millisecond)

	body := `{"id":` + strconv.FormatInt(follower, 10) + `}`
	require.Equal(t, http.StatusUnauthorized, post(t, lurl+"console/api/lab/partition", "", body))
	require.Equal(t, http.StatusOK, post(t, lurl+"console/api/lab/partition", "digest lab:lab", body))

	// A write the cut-off follower cannot receive.
	conn, _, err := zk.Connect([]string{l.ClientAddrs()[leader-1]}, 4*time.Second, zk.WithLogger(quiet{}))
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Create("/written-while-cut", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	require.Eventually(t, func() bool { return role(furl, follower) == "looking" }, 20*time.Second, 20*time.Millisecond,
		"the partitioned server still follows")
	require.Eventually(t, func() bool { lag := lagOf(lurl, follower); return lag > 0 || lag == -2 }, 10*time.Second,
		20*time.Millisecond, "the leader's console still shows the partitioned server in step")

	require.Equal(t, http.StatusOK, post(t, lurl+"console/api/lab/heal", "digest lab:lab", "{}"))
	require.Eventually(t, func() bool { return role(furl, follower) == "follower" }, 20*time.Second, 20*time.Millisecond,
		"the healed server does not follow again")
	require.Eventually(t, func() bool {
		id := leaderOf(l)
		return id != 0 && id != follower && lagOf(urls[id-1], follower) == 0
	}, 20*time.Second, 20*time.Millisecond, "the healed server does not catch up")
	st := l.LabStatus()
	require.Len(t, st.Servers, 3)
	for _, s := range st.Servers {
		require.True(t, s.Running)
		require.False(t, s.Isolated)
	}
}
