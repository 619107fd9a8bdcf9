package server

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// sslQuorum without usable stores stops the start instead of running the
// ensemble's links in plaintext.
func TestQuorumTLSNeedsItsStores(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, _, err := quorumTLS(Security{SSLQuorum: true}, nil, log)
	require.ErrorIs(t, err, errQuorumKeyStore)

	missing := filepath.Join(t.TempDir(), "missing.pem")
	_, _, err = quorumTLS(Security{SSLQuorum: true, SSLQuorumProps: map[string]string{
		"ssl.quorum.keyStore.location": missing}}, nil, log)
	require.ErrorContains(t, err, "missing.pem")

	c, err := parseCfg("tickTime=2000\nclientPort=2181\nsslQuorum=true\nzookeeper.ssl.quorum.keyStore.location=/k.pem\nssl.quorum.hostnameVerification=false\n")
	require.NoError(t, err)
	require.True(t, c.Security.SSLQuorum)
	require.Equal(t, map[string]string{"ssl.quorum.keyStore.location": "/k.pem", "ssl.quorum.hostnameVerification": "false"},
		c.Security.SSLQuorumProps)
}
