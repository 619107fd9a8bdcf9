package console

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
)

// replicationOf reads a console's replication route after the cursors.
func replicationOf(t *testing.T, base, after string) replicationAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+ReplicationPath+"?after="+after, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", rootAuth)
	resp, err := httpClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	code := resp.StatusCode
	require.Equal(t, http.StatusOK, code, "%s", body)
	var ans replicationAnswer
	require.NoError(t, json.Unmarshal(body, &ans), "%s", body)
	return ans
}

// cursorsOf is the after parameter that continues from ans.
func cursorsOf(ans replicationAnswer) string {
	var parts []string
	for _, m := range ans.Members {
		parts = append(parts, fmt.Sprintf("%d:%d:%d", m.ID, m.Run, m.Next))
	}
	return strings.Join(parts, ",")
}

// TestReplicationRoute: a follower's console answers the messages of the
// whole ensemble; a client's write through it shows as its forward and
// the leader's AppendEntries carrying the write's zxid, labelled
// broadcast and both named "create /steps"; the cursors it answers continue where the last answer
// stopped, with nothing twice.
func TestReplicationRoute(t *testing.T) {
	c := integration.StartCluster(t, 3, superRoot)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	bases := serveCluster(t, c, time.Second)
	base := bases[follower]
	first := replicationOf(t, base, "")
	require.Equal(t, int64(follower+1), first.Server)
	waitFor(t, 10*time.Second, "every member recording", func() bool {
		return len(replicationOf(t, base, "").Members) == 3
	})

	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	_, err := conn.Create("/steps", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, stat, err := conn.Exists("/steps")
	require.NoError(t, err)

	seen := map[string]bool{}
	var fwd, prop *server.TraceMessage
	after := ""
	waitFor(t, 20*time.Second, "the write's forward and proposal", func() bool {
		ans := replicationOf(t, base, after)
		after = cursorsOf(ans)
		for i, m := range ans.Messages {
			key := fmt.Sprintf("%d/%d", m.From, m.Seq)
			require.False(t, seen[key], "message %s answered twice", key)
			seen[key] = true
			switch {
			case m.Kind == "forward" && m.FirstZxid == stat.Czxid:
				fwd = &ans.Messages[i]
			case m.Kind == "append" && m.FirstZxid <= stat.Czxid && stat.Czxid <= m.LastZxid && m.To == int64(follower+1):
				prop = &ans.Messages[i]
			}
		}
		return fwd != nil && prop != nil
	})
	require.Equal(t, int64(leader+1), fwd.To)
	require.Equal(t, "REQUEST", fwd.Zab)
	require.Equal(t, "create /steps", fwd.Op, "the JSON names the forwarded write (\"op\")")
	require.Equal(t, "create /steps", prop.Op, "and the leader's proposal that carries it")
	require.Equal(t, int64(leader+1), prop.From)
	require.Equal(t, "broadcast", string(prop.Phase))
	require.True(t, strings.HasPrefix(prop.Zab, "PROPOSAL"), prop.Zab)
}

// Without a replication view (a View that lacks it) the route is 404; a
// malformed cursor is 400.
func TestReplicationRouteErrors(t *testing.T) {
	ts := httptest.NewServer(New(newFakeView(), Options{}))
	defer ts.Close()
	code, _, _ := get(t, ts.URL+ReplicationPath)
	require.Equal(t, http.StatusNotFound, code)

	for _, bad := range []string{"1", "1:2", "x:1:2", "1:2:-3"} {
		_, err := parseCursors(bad)
		require.ErrorIs(t, err, ErrBadRequest, bad)
	}
	got, err := parseCursors("1:17:5,3:18:0")
	require.NoError(t, err)
	require.Equal(t, map[int64]server.TraceCursor{1: {Run: 17, Seq: 5}, 3: {Run: 18}}, got)
}
