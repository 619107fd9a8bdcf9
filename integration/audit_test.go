package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
	"github.com/zkraft/zkraft/server"
)

// operations are the log's "operation znode" pairs, in order.
func operations(log *testlog.Buffer) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := map[string]string{}
		_, body, _ := strings.Cut(line, ": ")
		for _, kv := range strings.Split(body, "\t") {
			k, v, _ := strings.Cut(kv, "=")
			f[k] = v
		}
		out = append(out, f["operation"]+" "+f["znode"])
	}
	return out
}

// TestAuditOnlyWhereTheClientIs: in an ensemble, a client's writes are in
// the audit log of the server it is connected to (a follower here), and
// in no other: the leader and the other follower apply them without a
// line, as ZooKeeper writes its audit log only where the request arrived.
func TestAuditOnlyWhereTheClientIs(t *testing.T) {
	logs := []*testlog.Buffer{{}, {}, {}}
	c := StartCluster(t, 3,
		WithServerConfig(func(c *server.Config) { c.Audit.Enable = true }),
		WithServerOptions(func(i int) []server.Option { return []server.Option{server.WithAuditWriter(logs[i])} }))
	leader := c.Leader()
	follower := (leader + 1) % 3
	other := (leader + 2) % 3

	client, _ := c.Connect(t, c.Servers[follower].Addr())
	_, err := client.Create("/audited", []byte("a"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = client.Set("/audited", []byte("b"), -1)
	require.NoError(t, err)
	client.Close()
	want := []string{"createSession ", "create /audited", "setData /audited", "closeSession "}
	require.Eventually(t, func() bool { return len(operations(logs[follower])) >= len(want) }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, want, operations(logs[follower]))

	// A write of the leader's own client, after those: when its line is
	// there, any line the leader had queued for them would be too.
	own, _ := c.Connect(t, c.Servers[leader].Addr())
	_, err = own.Create("/leaders", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(operations(logs[leader])) >= 2 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, []string{"createSession ", "create /leaders"}, operations(logs[leader]))
	require.Empty(t, operations(logs[other]))
}
