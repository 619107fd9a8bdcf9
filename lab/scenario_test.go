package lab

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/console"
)

// statusOf returns server id's entry in the lab's status.
func statusOf(l *Lab, id int64) console.LabServer { return l.LabStatus().Servers[id-1] }

// inStep says whether every server runs, one leads, and all hold the
// leader's last zxid in a membership of all of them.
func inStep(l *Lab) bool {
	st := l.LabStatus()
	leaders := 0
	var zxid int64
	for _, s := range st.Servers {
		if !s.Running || s.Status == nil {
			return false
		}
		if s.Status.Role == "leader" {
			leaders++
			zxid = s.Status.LastZxid
		}
	}
	if leaders != 1 || len(st.Members) != len(st.Servers) {
		return false
	}
	for _, s := range st.Servers {
		if s.Status.LastZxid != zxid {
			return false
		}
	}
	return true
}

// TestWriteAction writes through a follower with the lab's write route:
// the answer carries the zxid, which every server then holds. A write
// through a follower cut off from the others fails (409) once its
// timeout passes, and the heal brings it back in step.
func TestWriteAction(t *testing.T) {
	l, leader := startLab(t)
	follower := leader%3 + 1
	via := l.ConsoleURLs()[leader-1]
	const auth = "digest lab:lab"
	body := fmt.Sprintf(`{"id":%d,"count":3}`, follower)
	require.Equal(t, http.StatusUnauthorized, post(t, via+"console/api/lab/write", "", body))
	require.Equal(t, http.StatusBadRequest, post(t, via+"console/api/lab/write", auth, fmt.Sprintf(`{"id":%d,"count":0}`, follower)))
	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/write", auth, body))
	w := l.LabStatus().LastWrite
	require.NotNil(t, w)
	require.Equal(t, console.LabWrite{Server: follower, Count: 3, Written: 3, LastZxid: w.LastZxid,
		ZxidHex: fmt.Sprintf("0x%x", w.LastZxid), Ms: w.Ms}, *w)
	require.Positive(t, w.LastZxid)
	require.Eventually(t, func() bool { return inStep(l) }, 20*time.Second, 20*time.Millisecond)
	require.GreaterOrEqual(t, statusOf(l, leader).Status.LastZxid, w.LastZxid)

	require.NoError(t, l.Isolate(follower))
	require.Eventually(t, func() bool { return statusOf(l, follower).Status.Role == "looking" }, 20*time.Second, 20*time.Millisecond)
	require.Equal(t, http.StatusConflict, post(t, via+"console/api/lab/write", auth, fmt.Sprintf(`{"id":%d,"count":1}`, follower)))
	require.Zero(t, l.LabStatus().LastWrite.Written)
	require.NotEmpty(t, l.LabStatus().LastWrite.Error)
	l.Heal()
	require.Eventually(t, func() bool { return inStep(l) }, 20*time.Second, 20*time.Millisecond)
}

// TestSnapshotCatchUp cuts a follower off, writes more than the
// leader's trailing logs, has the leader snapshot (compacting its log
// past the follower) through the snapshot route, and heals: the follower
// installs the leader's snapshot, Raft's InstallSnapshot (ZAB's SNAP).
func TestSnapshotCatchUp(t *testing.T) {
	l, leader := startLab(t)
	follower := leader%3 + 1
	via := l.ConsoleURLs()[leader-1]
	const auth = "digest lab:lab"
	require.EqualValues(t, 10240, l.LabStatus().TrailingLogs)
	require.NoError(t, l.Isolate(follower))
	behind := statusOf(l, follower).Status.LastLogIndex
	for statusOf(l, leader).Status.LastLogIndex < behind+trailingLogs+200 {
		_, err := l.Write(leader, maxWrites)
		require.NoError(t, err)
	}
	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/snapshot", auth, fmt.Sprintf(`{"id":%d}`, leader)))
	snap := statusOf(l, leader).SnapshotZxid
	require.Positive(t, snap)
	require.Zero(t, statusOf(l, follower).SnapshotZxid)
	l.Heal()
	require.Eventually(t, func() bool { return inStep(l) && statusOf(l, follower).SnapshotZxid >= snap },
		30*time.Second, 20*time.Millisecond, "the follower did not install the leader's snapshot")
}

// TestRemoveAndAdd removes a follower through the remove route (it stays
// up, removed, and receives no more writes) and adds it back through the
// add route (it catches up and follows).
func TestRemoveAndAdd(t *testing.T) {
	l, leader := startLab(t)
	follower := leader%3 + 1
	via := l.ConsoleURLs()[leader-1]
	const auth = "digest lab:lab"
	id := fmt.Sprintf(`{"id":%d}`, follower)
	require.Equal(t, http.StatusConflict, post(t, via+"console/api/lab/add", auth, id), "already a member")
	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/remove", auth, id))
	require.NotContains(t, l.LabStatus().Members, follower)
	require.Len(t, l.LabStatus().Members, 2)
	require.Eventually(t, func() bool { return statusOf(l, follower).Status.Role == "removed" }, 20*time.Second, 20*time.Millisecond)
	require.Equal(t, http.StatusConflict, post(t, via+"console/api/lab/remove", auth, id), "removed twice")
	w, err := l.Write(leader, 5)
	require.NoError(t, err)
	require.Less(t, statusOf(l, follower).Status.LastZxid, w.LastZxid)

	require.Equal(t, http.StatusOK, post(t, via+"console/api/lab/add", auth, id))
	require.Eventually(t, func() bool { return inStep(l) && statusOf(l, follower).Status.Role == "follower" },
		20*time.Second, 20*time.Millisecond, "the server added back does not follow in step")
}
