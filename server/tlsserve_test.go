package server

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testpki"
)

// testPKI is a CA with a server certificate.
type testPKI struct {
	*testpki.PKI
	server tls.Certificate
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{PKI: testpki.New(t, "test CA")}
	p.server = p.Issue(t, pkix.Name{CommonName: "zkserver"})
	return p
}

func (p *testPKI) serverConfig(auth tls.ClientAuthType) func() *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{p.server}, ClientCAs: p.Pool, ClientAuth: auth, MinVersion: tls.VersionTLS12}
	return func() *tls.Config { return cfg }
}

// tlsDialer is a go-zookeeper dialer that speaks TLS with cert.
func (p *testPKI) tlsDialer(cert *tls.Certificate) zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		cfg := &tls.Config{RootCAs: p.Pool, ServerName: "localhost"}
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, addr, cfg)
	}
}

func connectWith(t *testing.T, addr string, dialer zk.Dialer) *zk.Conn {
	t.Helper()
	c, ev, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}), zk.WithDialer(dialer))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	deadline := time.After(10 * time.Second)
	for c.State() != zk.StateHasSession {
		select {
		case <-ev:
		case <-deadline:
			t.Fatal("no session over TLS")
		}
	}
	return c
}

// A client certificate's subject is the connection's x509 id: an ACL that
// names it lets that client in and keeps plaintext clients out.
func TestTLSClientPortAndX509Auth(t *testing.T) {
	pki := newTestPKI(t)
	s := startTestServer(t, func(c *Config) { c.Security.SecureClientPort = EphemeralPort },
		WithClientTLS(pki.serverConfig(tls.RequireAndVerifyClientCert)))
	require.NotEmpty(t, s.SecureAddr())

	alice := pki.Issue(t, pkix.Name{CommonName: "alice", Organization: []string{"Example"}})
	tc := connectWith(t, s.SecureAddr(), pki.tlsDialer(&alice))
	acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: "CN=alice,O=Example"}}
	_, err := tc.Create("/secret", []byte("s"), 0, acl)
	require.NoError(t, err)
	data, _, err := tc.Get("/secret")
	require.NoError(t, err)
	require.Equal(t, "s", string(data))
	require.NoError(t, tc.AddAuth("x509", nil), "addauth x509 on a connection with a certificate succeeds")

	plain := connect(t, s)
	_, _, err = plain.Get("/secret")
	require.ErrorIs(t, err, zk.ErrNoAuth)

	// Plaintext on the TLS port, and a certificate from another CA, are
	// closed at the handshake; the TLS client above is unaffected.
	nc, err := net.Dial("tcp", s.SecureAddr())
	require.NoError(t, err)
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	handshakeFrame := []byte{0, 0, 0, 44}
	nc.Write(append(handshakeFrame, make([]byte, 44)...))
	requireClosed(t, nc)

	other := newTestPKI(t)
	mallory := other.Issue(t, pkix.Name{CommonName: "alice", Organization: []string{"Example"}})
	conn, err := pki.tlsDialer(&mallory)("tcp", s.SecureAddr(), 5*time.Second)
	if err == nil {
		// Under TLS 1.3 the client learns of the refusal on its first read.
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	require.Error(t, err, "an untrusted client certificate is refused")
	_, _, err = tc.Get("/secret")
	require.NoError(t, err)
}

// With port unification the plaintext port serves TLS clients as well.
func TestPortUnificationServesTLSAndPlaintext(t *testing.T) {
	pki := newTestPKI(t)
	s := startTestServer(t, func(c *Config) { c.Security.PortUnification = true },
		WithClientTLS(pki.serverConfig(tls.VerifyClientCertIfGiven)))
	require.Empty(t, s.SecureAddr())
	plain := connect(t, s)
	_, err := plain.Create("/u", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	tc := connectWith(t, s.Addr(), pki.tlsDialer(nil))
	ok, _, err := tc.Exists("/u")
	require.NoError(t, err)
	require.True(t, ok)
	require.ErrorIs(t, tc.AddAuth("x509", nil), zk.ErrAuthFailed, "no certificate: no x509 id")
}

// The ssl.* keys of a zoo.cfg configure the secure client port.
func TestSecureClientPortFromSSLKeys(t *testing.T) {
	pki := newTestPKI(t)
	ks, ts := pki.WritePEM(t, pki.server)
	s := startTestServer(t, func(c *Config) {
		c.Security.SecureClientPort = EphemeralPort
		c.Security.SSLProps = map[string]string{"ssl.keyStore.location": ks, "ssl.trustStore.location": ts}
	})
	bob := pki.Issue(t, pkix.Name{CommonName: "bob"})
	tc := connectWith(t, s.SecureAddr(), pki.tlsDialer(&bob))
	_, err := tc.Create("/bob", nil, 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: "CN=bob"}})
	require.NoError(t, err)
	_, _, err = tc.Get("/bob")
	require.NoError(t, err)

	_, err = pki.tlsDialer(nil)("tcp", s.SecureAddr(), 5*time.Second)
	require.Error(t, err, "ssl.clientAuth defaults to need, and ssl.protocol to TLSv1.2, which refuses at the handshake")

	// A key store that cannot be read stops the start.
	cfg := DefaultConfig()
	cfg.ClientPort = 0
	cfg.Security.SecureClientPort = EphemeralPort
	cfg.Security.SSLProps = map[string]string{"ssl.keyStore.location": filepath.Join(t.TempDir(), "missing.pem")}
	srv, err := New(cfg)
	require.NoError(t, err)
	require.ErrorContains(t, srv.Start(context.Background()), "missing.pem")
	srv.Close()
}
