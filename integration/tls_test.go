package integration

import (
	"context"
	"crypto/x509/pkix"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
)

// javaTLS runs testdata/JavaTLS.java with a client certificate and returns
// its verdict.
func javaTLS(t *testing.T, addr, keyStore, trustStore string) string {
	t.Helper()
	java, cp := javaClientClasspath(t)
	for _, j := range []string{"buffer", "codec", "common", "handler", "resolver", "transport", "transport-native-unix-common"} {
		jar := filepath.Join("/usr/share/java", "netty-"+j+".jar")
		if _, err := os.Stat(jar); err != nil {
			t.Skipf("%s not found (apt-get install -y zookeeper brings it)", jar)
		}
		cp += string(os.PathListSeparator) + jar
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-cp", cp,
		filepath.Join("testdata", "JavaTLS.java"), addr, keyStore, trustStore).CombinedOutput()
	require.NoError(t, err, "JavaTLS.java: %s", out)
	return lastLine(out)
}

// The ZooKeeper 3.8 Java client connects to the secure client port with
// Netty and a PEM client certificate, as Kafka and HBase configure it, and
// holds the certificate's subject as its x509 id. Its whoAmI line is the
// one Apache ZooKeeper 3.8.0 (NettyServerCnxnFactory, the same stores)
// gave when run by hand.
func TestTLS_JavaClient(t *testing.T) {
	pki := testpki.New(t, "client CA")
	serverKS, ts := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zkserver"}))
	clientKS, _ := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "kafka", Organization: []string{"Example"}}))
	s := StartServer(t, WithConfig(func(c *server.Config) {
		c.Security.SecureClientPort = server.EphemeralPort
		c.Security.SSLProps = map[string]string{"ssl.keyStore.location": serverKS, "ssl.trustStore.location": ts}
	}))
	cl, _ := s.Connect(t)
	_, err := cl.Create("/x509-only", nil, 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: "CN=kafka,O=Example"}})
	require.NoError(t, err)

	require.Equal(t, "connected ids=ip:127.0.0.1,x509:CN=kafka,O=Example x509=OK", javaTLS(t, s.SecureAddr(), clientKS, ts))
}
