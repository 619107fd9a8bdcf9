package admin

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// ensembleRoles returns the indexes of c's leader, a voting follower and
// the observer (the last server).
func ensembleRoles(t *testing.T, c *integration.Cluster) (leader, follower, observer int) {
	t.Helper()
	leader, observer = c.WaitForLeader(), len(c.Servers)-1
	for i := range c.Servers[:observer] {
		if i != leader {
			follower = i
		}
	}
	c.WaitForRole(follower, "follower")
	c.WaitForRole(observer, "observer")
	return leader, follower, observer
}

// TestEnsembleShapesMatchZooKeeper compares the leader's, a follower's and
// an observer's answers with a real ZooKeeper 3.8 ensemble of three voters
// and an observer after the same workload: a session on the follower
// creates /app/cfg and an ephemeral and watches the data, a session on the
// observer watches children.
func TestEnsembleShapesMatchZooKeeper(t *testing.T) {
	c := integration.StartCluster(t, 4, integration.WithObservers(1))
	leader, follower, observer := ensembleRoles(t, c)
	a, _ := c.Connect(t, c.Servers[follower].Addr())
	acl := zk.WorldACL(zk.PermAll)
	_, err := a.Create("/app", nil, 0, acl)
	require.NoError(t, err)
	_, err = a.Create("/app/cfg", []byte("x"), 0, acl)
	require.NoError(t, err)
	_, err = a.Create("/app/eph", nil, zk.FlagEphemeral, acl)
	require.NoError(t, err)
	_, _, _, err = a.GetW("/app/cfg")
	require.NoError(t, err)
	b, _ := c.Connect(t, c.Servers[observer].Addr())
	_, _, _, err = b.ChildrenW("/app")
	require.NoError(t, err)

	roles := map[string]int{"leader": leader, "follower": follower, "observer": observer}
	for role, i := range roles {
		base := startAdmin(t, c.Servers[i], Options{}) + "/commands/"
		for _, name := range []string{"leader", "zabstate", "voting_view", "observers", "dump", "connections", "is_read_only", "configuration"} {
			got := getJSON(t, base+name)
			require.Equal(t, shape(capture(t, role+"-"+name)), shape(got), "%s %s", role, name)
		}
		for _, name := range []string{"server_stats", "stats"} {
			got, want := getJSON(t, base+name), capture(t, role+"-"+name)
			require.Equal(t, keys(want), keys(got), "%s %s", role, name)
		}
		zab := getJSON(t, base+"zabstate")
		state, _ := zab.Get("zabstate")
		voting, _ := zab.Get("voting")
		require.Equal(t, "broadcast", state, role)
		require.Equal(t, role != "observer", voting, role)
		lead := getJSON(t, base+"leader")
		id, _ := lead.Get("leader_id")
		require.Equal(t, json.Number(strconv.Itoa(leader+1)), id, role)
	}
}

// TestQuorumLossAndReadiness stops two of three servers: the survivor's
// /commands/ruok says it is not serving, /ready answers 503 with the
// reason and /live 200; with one server back, both turn to 200 again.
func TestQuorumLossAndReadiness(t *testing.T) {
	c := integration.StartCluster(t, 3)
	leader := c.WaitForLeader()
	survivor := (leader + 1) % 3
	root := startAdmin(t, c.Servers[survivor], Options{Backups: fakeBackups(&fakeSource{})})
	requireReady(t, root, true)
	require.Equal(t, Object{{"command", "ruok"}, {"error", nil}}, getJSON(t, root+"/commands/ruok"))

	for i := range c.Servers {
		if i != survivor {
			c.Kill(i)
		}
	}
	notServing := Object{{"command", "ruok"}, {"error", errNotServing}}
	require.Eventually(t, func() bool { return equalObjects(getJSON(t, root+"/commands/ruok"), notServing) },
		10*time.Second, 20*time.Millisecond, "ruok must say not serving once the quorum is lost")
	requireReady(t, root, false)
	status, _, _ := fetch(t, http.MethodGet, root+"/live", nil)
	require.Equal(t, http.StatusOK, status)
	mode, _ := getJSON(t, root+"/commands/mntr").Get("server_state")
	require.Equal(t, "looking", mode, "monitor needs no quorum")
	require.Equal(t, notServing[1], getJSON(t, root+"/commands/srvr")[1])
	zab := getJSON(t, root+"/commands/zabstate")
	state, _ := zab.Get("zabstate")
	require.Equal(t, "election", state)
	status, _, body := fetch(t, http.MethodGet, root+"/commands/snapshot", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusOK, status, "not serving is a 200, as in ZooKeeper 3.9")
	require.Contains(t, string(body), errNotServing)

	c.Restart(leader)
	require.Eventually(t, func() bool {
		status, _, _ := fetch(t, http.MethodGet, root+"/ready", nil)
		return status == http.StatusOK
	}, 20*time.Second, 20*time.Millisecond, "ready again with a quorum")
	require.Equal(t, Object{{"command", "ruok"}, {"error", nil}}, getJSON(t, root+"/commands/ruok"))
}

// requireReady checks /ready's status and body once.
func requireReady(t *testing.T, root string, ready bool) {
	t.Helper()
	status, hdr, body := fetch(t, http.MethodGet, root+"/ready", nil)
	o, err := decodeOrdered(body)
	require.NoError(t, err, "%s", body)
	require.Equal(t, "application/json", hdr.Get("Content-Type"))
	got, _ := o.Get("ready")
	reason, _ := o.Get("reason")
	require.Equal(t, ready, got, "%s", body)
	if ready {
		require.Equal(t, http.StatusOK, status)
		require.Nil(t, reason)
	} else {
		require.Equal(t, http.StatusServiceUnavailable, status)
		require.NotEmpty(t, reason)
	}
}

func equalObjects(a, b Object) bool { return string(MarshalPretty(a)) == string(MarshalPretty(b)) }
