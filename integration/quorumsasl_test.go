package integration

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
)

// quorumJAAS is a JAAS file with ZooKeeper's quorum sections, whose
// learner logs in with learnerPassword (the servers know "secret").
func quorumJAAS(t *testing.T, learnerPassword string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	text := fmt.Sprintf(`QuorumServer {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       user_zk="secret";
};
QuorumLearner {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       username="zk"
       password=%q;
};
`, learnerPassword)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// Steps of the rollout, as ZooKeeper's documentation orders them.
var (
	saslOff      = server.QuorumSASL{}
	saslEnabled  = server.QuorumSASL{Enabled: true}
	saslLearner  = server.QuorumSASL{Enabled: true, LearnerRequire: true}
	saslRequired = server.QuorumSASL{Enabled: true, LearnerRequire: true, ServerRequire: true}
)

// withQuorumSASL gives server i (0-based) the JAAS file jaas[i] and the
// quorum.auth.* settings q[i].
func withQuorumSASL(jaas []string, q []server.QuorumSASL) ClusterOption {
	return WithServerConfig(func(c *server.Config) {
		c.Security.JAASFile = jaas[c.ServerID-1]
		c.Security.QuorumSASL = q[c.ServerID-1]
	})
}

// withLogs logs server i into logs[i].
func withLogs(logs []*testlog.Buffer) ClusterOption {
	return WithServerOptions(func(i int) []server.Option {
		return []server.Option{server.WithLogger(slog.New(slog.NewTextHandler(logs[i], nil)))}
	})
}

// writeEverywhere writes path through the cluster's servers and checks
// that every running server has it. A client whose connection is closed
// under it (an election on a loaded machine) retries.
func writeEverywhere(t *testing.T, c *Cluster, path string) {
	t.Helper()
	cl, _ := c.Connect(t)
	for retried := false; ; retried = true {
		_, err := cl.Create(path, []byte("v"), 0, zk.WorldACL(zk.PermAll))
		if errors.Is(err, zk.ErrConnectionClosed) {
			continue
		}
		if retried && errors.Is(err, zk.ErrNodeExists) {
			break // the lost try went through
		}
		require.NoError(t, err, path)
		break
	}
	for i, s := range c.Servers {
		if s == nil {
			continue
		}
		one, _ := c.Connect(t, s.Addr())
		_, err := one.Sync(path)
		require.NoError(t, err, "server %d", i+1)
		ok, _, err := one.Exists(path)
		require.NoError(t, err)
		require.True(t, ok, "server %d has %s", i+1, path)
		one.Close()
	}
	cl.Close()
}

// With SASL enabled and required both ways the ensemble elects,
// replicates and forwards as without it.
func TestQuorumSASL_EnsembleServes(t *testing.T) {
	jaas := quorumJAAS(t, "secret")
	c := StartCluster(t, 3, withQuorumSASL([]string{jaas, jaas, jaas},
		[]server.QuorumSASL{saslRequired, saslRequired, saslRequired}))
	leader := c.Leader()
	follower := (leader + 1) % 3
	cl, _ := c.Connect(t, c.Servers[follower].Addr())
	_, err := cl.Create("/via-follower", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, "a follower forwards the write to the leader over an authenticated link")
	writeEverywhere(t, c, "/sasl")
}

// requireLeftOut checks that server out never follows or leads while the
// two others commit writes over several election timeouts, and never
// applies them.
func requireLeftOut(t *testing.T, c *Cluster, out int, path string) {
	t.Helper()
	leader := c.Leader()
	require.NotEqual(t, out, leader)
	cl, _ := c.Connect(t, c.Servers[leader].Addr())
	_, err := cl.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, "the two others are a quorum")
	for start := time.Now(); time.Since(start) < 4*ClusterTick; {
		_, err := cl.Set(path, []byte(time.Now().String()), -1)
		if errors.Is(err, zk.ErrConnectionClosed) {
			continue // an election on a loaded machine; see TestQuorumTLS_UntrustedServerCannotJoin
		}
		require.NoError(t, err)
		require.NotContains(t, []string{"follower", "leader"}, c.Servers[out].Role())
	}
	require.NotContains(t, c.Servers[out].DumpTree(), path)
}

// A server whose QuorumLearner password is wrong never joins: the others
// refuse the links it dials, and the links they dial to it too (it must
// prove itself in return). It logs the refusal once per peer, not once
// per redial.
func TestQuorumSASL_WrongPasswordCannotJoin(t *testing.T) {
	good, bad := quorumJAAS(t, "secret"), quorumJAAS(t, "wrong")
	logs := []*testlog.Buffer{{}, {}, {}}
	c := StartCluster(t, 3, withQuorumSASL([]string{good, good, bad},
		[]server.QuorumSASL{saslRequired, saslRequired, saslRequired}), WithLeaderAmong(0, 1), withLogs(logs))
	requireLeftOut(t, c, 2, "/good-password-only")

	failed := logs[2].Lines("quorum SASL authentication failed")
	require.NotEmpty(t, failed, "the server with the wrong password says why it cannot join")
	peers := map[string]int{}
	for _, l := range failed {
		if strings.Contains(l, "side=dialling") {
			peer := strings.Fields(l[strings.Index(l, "peer="):])[0]
			peers[peer]++
		}
	}
	require.NotEmpty(t, peers)
	for peer, n := range peers {
		require.Equal(t, 1, n, "dialling %s: logged once, however often Raft redials", peer)
	}
	require.NotEmpty(t, append(logs[0].Lines("quorum SASL authentication failed"), logs[1].Lines("quorum SASL authentication failed")...),
		"the good servers log the refused links too")
}

// A server that does not authenticate (learnerRequireSasl=false) joins
// servers that do not require it, and cannot join servers that do.
func TestQuorumSASL_PlainLearner(t *testing.T) {
	jaas := quorumJAAS(t, "secret")
	js := []string{jaas, jaas, jaas}
	t.Run("serverRequireSasl=false", func(t *testing.T) {
		c := StartCluster(t, 3, withQuorumSASL(js, []server.QuorumSASL{saslLearner, saslLearner, saslEnabled}))
		writeEverywhere(t, c, "/plain-joins")
	})
	t.Run("serverRequireSasl=true", func(t *testing.T) {
		c := StartCluster(t, 3, withQuorumSASL(js, []server.QuorumSASL{saslRequired, saslRequired, saslEnabled}),
			WithLeaderAmong(0, 1))
		requireLeftOut(t, c, 2, "/plain-refused")
	})
}

// The rollout on a running ensemble: every server restarted in turn with
// quorum.auth.enableSasl, then learnerRequireSasl, then serverRequireSasl;
// after each restart the ensemble has a leader followed by all three and
// a write reaches every server.
func TestQuorumSASL_Rollout(t *testing.T) {
	jaas := quorumJAAS(t, "secret")
	c := StartCluster(t, 3, withQuorumSASL([]string{jaas, jaas, jaas}, []server.QuorumSASL{saslOff, saslOff, saslOff}))
	writeEverywhere(t, c, "/before")
	for _, step := range []server.QuorumSASL{saslEnabled, saslLearner, saslRequired} {
		for i := range c.Servers {
			c.EditConfig(i, func(cfg *server.Config) { cfg.Security.QuorumSASL = step })
			c.Restart(i)
			c.WaitForLeader()
			writeEverywhere(t, c, fmt.Sprintf("/step-%t-%t-server-%d", step.LearnerRequire, step.ServerRequire, i+1))
		}
	}
	// The rolled-out ensemble enforces it: a server restarted with a
	// wrong password is left out.
	c.EditConfig(2, func(cfg *server.Config) { cfg.Security.JAASFile = quorumJAAS(t, "wrong") })
	c.Restart(2)
	c.WaitForLeaderAmong(0, 1)
	requireLeftOut(t, c, 2, "/after-rollout")
}

// With sslQuorum too, SASL runs inside TLS on every link.
func TestQuorumSASL_InsideTLS(t *testing.T) {
	pki := testpki.New(t, "quorum CA")
	stores := quorumStores(t, []*testpki.PKI{pki, pki, pki})
	jaas := quorumJAAS(t, "secret")
	c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) {
		stores(cfg)
		cfg.Security.JAASFile = jaas
		cfg.Security.QuorumSASL = saslRequired
	}))
	writeEverywhere(t, c, "/tls-and-sasl")
}
