package lab

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/console"
)

// labStatus reads the lab route of the console at base.
func labStatus(t *testing.T, base string) console.LabStatus {
	t.Helper()
	resp, err := http.Get(base + "console/api/lab")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var st console.LabStatus
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	return st
}

// TestLinkKillRestartAndLoadThroughConsole drives the lab's other buttons
// through a console's routes, as the page does, and checks their effect
// on the ensemble: a write load runs and keeps writing across a leader
// kill; a lossy link leaves its follower behind the leader until it is
// cleared; a killed leader is replaced and, restarted, follows again in
// step.
func TestLinkKillRestartAndLoadThroughConsole(t *testing.T) {
	l, leader := startLab(t)
	urls := l.ConsoleURLs()
	follower := leader%3 + 1
	other := 6 - leader - follower
	via := urls[other-1] // a console that stays up throughout
	const auth = "digest lab:lab"

	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/load", auth, `{"clients":2}`))
	require.Equal(t, http.StatusConflict, post(t, via+"console/api/lab/load", auth, `{"clients":2}`), "one load at a time")
	require.Eventually(t, func() bool { return labStatus(t, via).Load.Writes >= 20 }, 60*time.Second, 20*time.Millisecond)

	// A slow, lossy link between the leader and the follower: the
	// follower falls behind while the load writes, then catches up.
	bad := fmt.Sprintf(`{"a":%d,"b":%d,"loss":1}`, leader, follower)
	require.Equal(t, http.StatusBadRequest, post(t, via+"console/api/lab/link", auth, bad), "loss below 1")
	link := fmt.Sprintf(`{"a":%d,"b":%d,"delayMs":200,"loss":0.5}`, leader, follower)
	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/link", auth, link))
	require.Equal(t, []console.LabLink{{A: min(leader, follower), B: max(leader, follower), DelayMs: 200, Loss: 0.5}},
		labStatus(t, via).Links)
	// The load's clients may all be on that follower, whose own writes
	// then wait for it; so a client of the leader writes too, each write
	// committed by the leader and the other follower alone.
	direct, _, err := zk.Connect([]string{l.ClientAddrs()[leader-1]}, 4*time.Second, zk.WithLogger(quiet{}))
	require.NoError(t, err)
	defer direct.Close()
	_, err = direct.Create("/behind", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := direct.Set("/behind", nil, -1)
		require.NoError(t, err)
		return lagOf(urls[leader-1], follower) >= 5
	}, 60*time.Second, 20*time.Millisecond, "the follower behind a slow link does not fall behind")
	clear := fmt.Sprintf(`{"a":%d,"b":%d}`, leader, follower)
	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/link", auth, clear))
	require.Empty(t, labStatus(t, via).Links)
	waitInStep(t, l, follower)

	// Kill the leader: another leads, the load goes on writing.
	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/kill", auth, fmt.Sprintf(`{"id":%d}`, leader)))
	require.False(t, labStatus(t, via).Servers[leader-1].Running)
	require.Eventually(t, func() bool { id := leaderOf(l); return id != 0 && id != leader }, 60*time.Second, 20*time.Millisecond)
	before := labStatus(t, via).Load.Writes
	require.Eventually(t, func() bool { return labStatus(t, via).Load.Writes >= before+20 }, 60*time.Second, 20*time.Millisecond,
		"the load stopped writing after the leader's kill")
	require.Equal(t, http.StatusConflict, post(t, via+"console/api/lab/kill", auth, fmt.Sprintf(`{"id":%d}`, leader)), "killed twice")

	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/restart", auth, fmt.Sprintf(`{"id":%d}`, leader)))
	require.True(t, labStatus(t, via).Servers[leader-1].Running)
	waitInStep(t, l, leader)

	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/load", auth, `{"clients":0}`))
	require.Equal(t, console.LabLoad{}, labStatus(t, via).Load)
}

// waitInStep waits until server id follows the current leader with no lag.
func waitInStep(t *testing.T, l *Lab, id int64) {
	t.Helper()
	urls := l.ConsoleURLs()
	require.Eventually(t, func() bool {
		ld := leaderOf(l)
		return ld != 0 && ld != id && role(urls[id-1], id) == "follower" && lagOf(urls[ld-1], id) == 0
	}, 60*time.Second, 20*time.Millisecond, "server %d does not follow in step", id)
}
