package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// startRealZK starts Apache ZooKeeper 3.8 with extra zoo.cfg keys and JVM
// properties, or skips the test.
func startRealZK(t *testing.T, cfg, props map[string]string) *realzk.Server {
	t.Helper()
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	z, err := realzk.Start("", realzk.Options{ExtraConfig: cfg, SystemProps: props})
	require.NoError(t, err)
	t.Cleanup(func() { z.Stop() })
	return z
}

// createOn creates path with acl through a plain go-zookeeper client.
func createOn(t *testing.T, addr, path string, acl []zk.ACL) {
	t.Helper()
	cl, _ := connectTo(t, []string{addr})
	_, err := cl.Create(path, nil, 0, acl)
	require.NoError(t, err)
}

// The same SASL logins against Apache ZooKeeper 3.8 and zkraft, both
// started with the same JAAS file and authProvider: kazoo (pure-sasl) and
// the Java client get the same outcome from each. (The unknown-user login
// ZooKeeper lets through is left out: DIFFERENCES.md §2.3.)
func TestDiffSecurity_SASL(t *testing.T) {
	py := kazooPython(t)
	jaasFile := filepath.Join(t.TempDir(), "jaas.conf")
	require.NoError(t, os.WriteFile(jaasFile, []byte(saslJAAS), 0o600))
	real := startRealZK(t,
		map[string]string{"authProvider.1": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"},
		map[string]string{"java.security.auth.login.config": jaasFile})
	ours := startSASLServer(t, nil)
	bobOnly := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}}
	for _, addr := range []string{real.Addr(), ours.Addr()} {
		createOn(t, addr, "/sasl-only", bobOnly)
	}

	for _, login := range [][2]string{{"bob", "bobsecret"}, {"alice", "alicesecret"}, {"bob", "wrong"}, {"super", "adminsecret"}} {
		want := kazooDigest(t, py, real.Addr(), login[0], login[1])
		require.Equal(t, want, kazooDigest(t, py, ours.Addr(), login[0], login[1]), "kazoo as %s/%s", login[0], login[1])
	}
	for _, login := range [][2]string{{"bob", "bobsecret"}, {"bob", "wrong"}} {
		want := javaSASL(t, real.Addr(), login[0], login[1])
		require.Equal(t, want, javaSASL(t, ours.Addr(), login[0], login[1]), "Java client as %s/%s", login[0], login[1])
	}
}

// The same TLS clients against Apache ZooKeeper 3.8 (NettyServerCnxnFactory)
// and zkraft, both serving the same PEM stores on a secure client port:
// the Java client with a certificate gets the same ids and ACL outcome,
// and go-zookeeper with an untrusted certificate or none is refused by both.
func TestDiffSecurity_TLS(t *testing.T) {
	pki := testpki.New(t, "client CA")
	serverKS, ts := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zkserver"}))
	clientKS, _ := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "kafka", Organization: []string{"Example"}}))
	securePort := FreePort(t)
	real := startRealZK(t, map[string]string{
		"serverCnxnFactory":       "org.apache.zookeeper.server.NettyServerCnxnFactory",
		"secureClientPort":        fmt.Sprint(securePort),
		"secureClientPortAddress": "127.0.0.1",
		"ssl.keyStore.location":   serverKS,
		"ssl.trustStore.location": ts,
		"authProvider.x509":       "org.apache.zookeeper.server.auth.X509AuthenticationProvider",
	}, nil)
	realSecure := net.JoinHostPort("127.0.0.1", fmt.Sprint(securePort))
	ours := StartServer(t, WithConfig(func(c *server.Config) {
		c.Security.SecureClientPort = server.EphemeralPort
		c.Security.SSLProps = map[string]string{"ssl.keyStore.location": serverKS, "ssl.trustStore.location": ts}
	}))
	kafkaOnly := []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: "CN=kafka,O=Example"}}
	createOn(t, real.Addr(), "/x509-only", kafkaOnly)
	createOn(t, ours.Addr(), "/x509-only", kafkaOnly)

	want := javaTLS(t, realSecure, clientKS, ts)
	require.Equal(t, "connected ids=ip:127.0.0.1,x509:CN=kafka,O=Example x509=OK", want)
	require.Equal(t, want, javaTLS(t, ours.SecureAddr(), clientKS, ts))

	if py, ok := kazooPythonOrSkipReason(); ok {
		cert, key := splitPEMKeyStore(t, clientKS)
		want := kazooTLS(t, py, realSecure, ts, cert, key)
		require.Equal(t, "ok", want, "kazoo with use_ssl against ZooKeeper")
		require.Equal(t, want, kazooTLS(t, py, ours.SecureAddr(), ts, cert, key))
	}

	kafka := pki.Issue(t, pkix.Name{CommonName: "kafka", Organization: []string{"Example"}})
	for _, addr := range []string{realSecure, ours.SecureAddr()} {
		cl := connectWithTLS(t, addr, pki, &kafka)
		_, _, err := cl.Get("/x509-only")
		require.NoError(t, err, "%s: go-zookeeper over TLS holds the certificate's x509 id", addr)
	}

	rogue := testpki.New(t, "rogue CA")
	mallory := rogue.Issue(t, pkix.Name{CommonName: "kafka", Organization: []string{"Example"}})
	for _, addr := range []string{realSecure, ours.SecureAddr()} {
		for name, cert := range map[string]*tls.Certificate{"untrusted": &mallory, "none": nil} {
			require.Error(t, tlsHandshakeAndPing(addr, pki, cert), "%s: a client with %s certificate is refused", addr, name)
		}
	}
}

// tlsHandshakeAndPing dials addr with cert (nil: none), trusting pki,
// and runs a ZooKeeper handshake: the error says whether the server took
// the client.
func tlsHandshakeAndPing(addr string, pki *testpki.PKI, cert *tls.Certificate) error {
	cfg := &tls.Config{RootCAs: pki.Pool, ServerName: "127.0.0.1"}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	nc, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	c := &rawClient{addr: addr, conn: nc}
	defer c.Close()
	if _, err := c.Handshake(wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)}); err != nil {
		return err
	}
	_, err = c.Ping()
	return err
}

// kazooPythonOrSkipReason is kazooPython for a test that goes on without it.
func kazooPythonOrSkipReason() (string, bool) {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import kazoo").Run() == nil {
			return path, true
		}
	}
	return "", false
}

// splitPEMKeyStore writes a PEM key store's key and certificates to two
// files, as kazoo's keyfile and certfile want them.
func splitPEMKeyStore(t *testing.T, keyStore string) (certFile, keyFile string) {
	t.Helper()
	data, err := os.ReadFile(keyStore)
	require.NoError(t, err)
	var certs, keys []byte
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if strings.Contains(b.Type, "PRIVATE KEY") {
			keys = append(keys, pem.EncodeToMemory(b)...)
		} else {
			certs = append(certs, pem.EncodeToMemory(b)...)
		}
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, certs, 0o600))
	require.NoError(t, os.WriteFile(keyFile, keys, 0o600))
	return certFile, keyFile
}

// kazooTLS runs testdata/kazoo_tls.py and returns its verdict.
func kazooTLS(t *testing.T, py, addr, ca, cert, key string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, filepath.Join("testdata", "kazoo_tls.py"), addr, ca, cert, key).CombinedOutput()
	require.NoError(t, err, "kazoo_tls.py: %s", out)
	return lastLine(out)
}

// connectWithTLS connects go-zookeeper through a TLS dialer presenting
// cert and trusting pki, and waits for its session.
func connectWithTLS(t *testing.T, addr string, pki *testpki.PKI, cert *tls.Certificate) *zk.Conn {
	t.Helper()
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		cfg := &tls.Config{RootCAs: pki.Pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{*cert}}
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, address, cfg)
	}
	cl, _ := connectTo(t, []string{addr}, zk.WithDialer(dialer))
	return cl
}
