package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// testPKI is a CA with a server certificate and client certificates.
type testPKI struct {
	pool   *x509.CertPool
	server tls.Certificate
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	p := &testPKI{pool: x509.NewCertPool(), ca: ca, caKey: key}
	p.pool.AddCert(ca)
	p.server = p.issue(t, pkix.Name{CommonName: "zkserver"}, p.ca, p.caKey)
	return p
}

// issue signs a leaf certificate for subject with the given issuer.
func (p *testPKI) issue(t *testing.T, subject pkix.Name, issuer *x509.Certificate, issuerKey *ecdsa.PrivateKey) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, issuerKey)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func (p *testPKI) serverConfig(auth tls.ClientAuthType) func() *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{p.server}, ClientCAs: p.pool, ClientAuth: auth, MinVersion: tls.VersionTLS12}
	return func() *tls.Config { return cfg }
}

// tlsDialer is a go-zookeeper dialer that speaks TLS with cert.
func (p *testPKI) tlsDialer(cert *tls.Certificate) zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		cfg := &tls.Config{RootCAs: p.pool, ServerName: "localhost"}
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

	alice := pki.issue(t, pkix.Name{CommonName: "alice", Organization: []string{"Example"}}, pki.ca, pki.caKey)
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
	mallory := other.issue(t, pkix.Name{CommonName: "alice", Organization: []string{"Example"}}, other.ca, other.caKey)
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

// writePEM writes cert's chain and key as one PEM key store, and the CA
// as a PEM trust store, the layout ZooKeeper's PEM stores use.
func (p *testPKI) writePEM(t *testing.T, cert tls.Certificate) (keyStore, trustStore string) {
	t.Helper()
	dir := t.TempDir()
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	require.NoError(t, err)
	ks := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	for _, c := range cert.Certificate {
		ks = append(ks, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c})...)
	}
	keyStore, trustStore = filepath.Join(dir, "server.pem"), filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(keyStore, ks, 0o600))
	require.NoError(t, os.WriteFile(trustStore, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.ca.Raw}), 0o644))
	return keyStore, trustStore
}

// The ssl.* keys of a zoo.cfg configure the secure client port.
func TestSecureClientPortFromSSLKeys(t *testing.T) {
	pki := newTestPKI(t)
	ks, ts := pki.writePEM(t, pki.server)
	s := startTestServer(t, func(c *Config) {
		c.Security.SecureClientPort = EphemeralPort
		c.Security.SSLProps = map[string]string{"ssl.keyStore.location": ks, "ssl.trustStore.location": ts}
	})
	bob := pki.issue(t, pkix.Name{CommonName: "bob"}, pki.ca, pki.caKey)
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
