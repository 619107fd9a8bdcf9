package integration

import (
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
)

// quorumStores gives server i (0-based) the ssl.quorum.* key and trust
// stores of its PKI, with sslQuorum on.
func quorumStores(t *testing.T, pkis []*testpki.PKI) func(*server.Config) {
	stores := make(map[int64][2]string, len(pkis))
	for i, p := range pkis {
		ks, ts := p.WritePEM(t, p.Issue(t, pkix.Name{CommonName: fmt.Sprintf("zk%d", i+1)}))
		stores[int64(i+1)] = [2]string{ks, ts}
	}
	return func(c *server.Config) {
		s := stores[c.ServerID]
		c.Security.SSLQuorum = true
		c.Security.SSLQuorumProps = map[string]string{
			"ssl.quorum.keyStore.location":   s[0],
			"ssl.quorum.trustStore.location": s[1],
		}
	}
}

// With sslQuorum=true the ensemble elects, replicates and forwards over
// TLS, as without it.
func TestQuorumTLS_EnsembleServes(t *testing.T) {
	pki := testpki.New(t, "quorum CA")
	c := StartCluster(t, 3, WithServerConfig(quorumStores(t, []*testpki.PKI{pki, pki, pki})))
	leader := c.Leader()
	follower := (leader + 1) % 3
	cl, _ := c.Connect(t, c.Servers[follower].Addr())
	_, err := cl.Create("/over-tls", []byte("v"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, "a follower forwards the write to the leader over TLS")
	for i := range c.Servers {
		other, _ := c.Connect(t, c.Servers[i].Addr())
		_, err := other.Sync("/over-tls")
		require.NoError(t, err)
		data, _, err := other.Get("/over-tls")
		require.NoError(t, err, "server %d", i+1)
		require.Equal(t, "v", string(data))
	}
}

// A server whose certificate the others' trust stores do not vouch for
// (signed by another CA, and trusting only that CA) never joins: it cannot
// replicate, vote or forward, while the two others keep serving.
func TestQuorumTLS_UntrustedServerCannotJoin(t *testing.T) {
	good, rogue := testpki.New(t, "quorum CA"), testpki.New(t, "rogue CA")
	c := StartCluster(t, 3, WithServerConfig(quorumStores(t, []*testpki.PKI{good, good, rogue})), WithLeaderAmong(0, 1))
	leader := c.Leader()
	require.Contains(t, []int{0, 1}, leader, "the rogue server cannot lead")
	cl, _ := c.Connect(t, c.Servers[leader].Addr())
	_, err := cl.Create("/trusted-only", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, "two trusting servers are a quorum")

	// While the pair commits writes over several election timeouts, the
	// rogue server follows no one and applies nothing.
	// A loaded machine (-race, 2 cores) can delay a heartbeat past the
	// election timeout, and the pair then elects again; the client's
	// connection is closed and it reconnects, so that error is retried.
	for start := time.Now(); time.Since(start) < 4*ClusterTick; {
		_, err := cl.Set("/trusted-only", []byte(time.Now().String()), -1)
		if errors.Is(err, zk.ErrConnectionClosed) {
			continue
		}
		require.NoError(t, err)
		require.NotContains(t, []string{"follower", "leader"}, c.Servers[2].Role())
	}
	require.NotContains(t, c.Servers[2].DumpTree(), "/trusted-only")
}
