package admin

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
)

// superCreds are the super user's, superAuth their Authorization header.
const (
	superCreds = "admin:adminpw"
	superAuth  = "digest " + superCreds
)

// testWait bounds a wait for replicas to converge; testTick is its poll.
const testWait, testTick = 20 * time.Second, 20 * time.Millisecond

// TestSnapshotAndRestoreOverHTTP runs ZooKeeper 3.9's commands against a
// real three-server ensemble with a superDigest: "/" is locked to one
// digest user, who is refused (the commands need super), a snapshot
// streamed from a follower's AdminServer carries last_zxid and
// snapshot_size, later writes are undone by POSTing it to the leader's
// restore, and every server ends with the snapshot's tree. Without the
// right credentials both answer 401 or 403, and a follower refuses the
// restore.
func TestSnapshotAndRestoreOverHTTP(t *testing.T) {
	c := integration.StartCluster(t, 3, integration.WithServerConfig(func(c *server.Config) { c.SuperDigest = datatree.DigestID(superCreds) }))
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	require.NoError(t, conn.AddAuth("digest", []byte("root:secret")))
	_, err := conn.Create("/kept", []byte("before"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = conn.SetACL("/", zk.DigestACL(zk.PermAll, "root", "secret"), -1)
	require.NoError(t, err)

	base := func(i int) string {
		return startAdmin(t, c.Servers[i], Options{Backups: ServerBackups(c.Servers[i])}) + "/commands/"
	}
	fbase, lbase := base(follower), base(leader)

	status, _, _ := fetch(t, http.MethodGet, fbase+"snapshot", nil)
	require.Equal(t, http.StatusUnauthorized, status, "no Authorization header")
	status, _, _ = fetch(t, http.MethodGet, fbase+"snapshot", nil, "Authorization", "digest root:wrong")
	require.Equal(t, http.StatusUnauthorized, status, "a wrong password")
	status, _, _ = fetch(t, http.MethodGet, fbase+"snapshot", nil, "Authorization", "digest root:secret")
	require.Equal(t, http.StatusForbidden, status, "ALL on / is not super")

	status, hdr, snap := fetch(t, http.MethodGet, fbase+"snapshot", nil, "Authorization", superAuth)
	require.Equal(t, http.StatusOK, status, string(snap))
	require.Equal(t, strconv.Itoa(len(snap)), hdr.Get("snapshot_size"))
	snapZxid, err := strconv.ParseInt(hdr.Get("last_zxid"), 0, 64)
	require.NoError(t, err, hdr.Get("last_zxid"))
	require.NotZero(t, snapZxid)

	_, err = conn.Set("/kept", []byte("after"), -1)
	require.NoError(t, err)
	_, err = conn.Create("/later", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	status, _, body := fetch(t, http.MethodPost, fbase+"restore", bytes.NewReader(snap), "Authorization", superAuth)
	require.NotEqual(t, http.StatusOK, status, "a follower restores nothing: %s", body)
	t.Logf("follower restore: %d %s", status, body)
	status, _, body = fetch(t, http.MethodPost, lbase+"restore", bytes.NewReader(snap), "Authorization", superAuth)
	require.Equal(t, http.StatusOK, status, string(body))
	reply, err := decodeOrdered(body)
	require.NoError(t, err, string(body))
	errField, _ := reply.Get("error")
	require.Nil(t, errField, string(body))

	want := c.Servers[leader].DumpTree()
	require.NotContains(t, want, "/later")
	for i := range c.Servers {
		require.Eventually(t, func() bool { return c.Servers[i].DumpTree() == want }, testWait, testTick, "server %d", i)
	}
	fresh, _ := c.Connect(t, c.Servers[follower].Addr())
	require.NoError(t, fresh.AddAuth("digest", []byte("root:secret")))
	require.Eventually(t, func() bool {
		data, _, err := fresh.Get("/kept")
		return err == nil && string(data) == "before"
	}, testWait, testTick)
}
