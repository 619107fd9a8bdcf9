package admin

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"maps"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
)

// httpsAdmin starts a standalone server and its AdminServer with HTTPS as
// admin (the admin.* keys of server.Config) asks for, its key and trust
// stores in the ssl.quorum.* keys, and returns the AdminServer's address,
// the PKI that issued its certificate, and the server.
func httpsAdmin(t *testing.T, admin server.AdminOptions, edit func(*server.Config)) (string, *testpki.PKI, *server.Server) {
	t.Helper()
	pki := testpki.New(t, "admin-ca")
	ks, ts := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zk-admin"}))
	var cfg server.Config
	s := integration.StartServer(t, integration.WithConfig(func(c *server.Config) {
		c.Admin = admin
		c.Security.SSLQuorumProps = map[string]string{
			"ssl.quorum.keyStore.location":   ks,
			"ssl.quorum.trustStore.location": ts,
		}
		if edit != nil {
			edit(c)
		}
		cfg = *c
	}))
	backups := &realAuth{fakeSource: &fakeSource{snapshot: []byte("SNAP-x")}, srv: ServerBackups(s.Server)}
	return startTLSAdmin(t, s.Server, cfg, backups), pki, s.Server
}

// startTLSAdmin serves srv's AdminServer on 127.0.0.1:0 with the HTTPS
// that cfg's admin and ssl.quorum.* keys ask for, until the test ends, and
// returns its address.
func startTLSAdmin(t *testing.T, srv *server.Server, cfg server.Config, backups Backups) string {
	t.Helper()
	tc, closeTLS, err := TLSFrom(cfg, nil)
	require.NoError(t, err)
	t.Cleanup(closeTLS)
	opts := OptionsFrom(cfg)
	opts.Addr, opts.TLS, opts.Backups = "127.0.0.1:0", tc, backups
	a, err := Start(srv, opts)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a.Addr()
}

// realAuth is the fake backups with the real server's authorization.
type realAuth struct {
	*fakeSource
	srv Backups
}

func (r *realAuth) AuthorizeAdmin(auth string, certs []*x509.Certificate, ip string) error {
	return r.srv.AuthorizeAdmin(auth, certs, ip)
}

// httpsClient trusts pki and presents cert, if given.
func httpsClient(pki *testpki.PKI, cert *tls.Certificate) *http.Client {
	cfg := &tls.Config{RootCAs: pki.Pool}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
}

func get(t *testing.T, c *http.Client, url string, hdr ...string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// TestHTTPSOnly: admin.forceHttps serves the commands over HTTPS with the
// ssl.quorum.* key store, with Jetty's Strict-Transport-Security header;
// a plain HTTP request gets no command.
func TestHTTPSOnly(t *testing.T) {
	addr, pki, _ := httpsAdmin(t, server.AdminOptions{ForceHTTPS: true, PortUnification: true}, nil)
	resp, body, err := get(t, httpsClient(pki, nil), "https://"+addr+"/commands/ruok")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, `"command" : "ruok"`)
	require.Equal(t, "max-age=86400; includeSubDomains", resp.Header.Get("Strict-Transport-Security"))

	resp, body, err = get(t, httpClient, "http://"+addr+"/commands/ruok")
	if err == nil {
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "plain HTTP to an HTTPS-only port: %s", body)
		require.NotContains(t, body, "ruok")
	}
	_, _, err = get(t, &http.Client{Timeout: 10 * time.Second}, "https://"+addr+"/commands/ruok")
	require.Error(t, err, "a client that does not trust the CA")
}

// TestHTTPSAndHTTPOnOnePort: admin.portUnification answers both on one
// port, the security header on HTTPS only, and a connection that sends
// nothing holds up no one.
func TestHTTPSAndHTTPOnOnePort(t *testing.T) {
	addr, pki, _ := httpsAdmin(t, server.AdminOptions{PortUnification: true}, nil)
	silent, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer silent.Close()

	resp, body, err := get(t, httpsClient(pki, nil), "https://"+addr+"/commands/ruok")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, `"command" : "ruok"`)
	require.NotEmpty(t, resp.Header.Get("Strict-Transport-Security"))

	resp, body, err = get(t, httpClient, "http://"+addr+"/commands/ruok")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, `"command" : "ruok"`)
	require.Empty(t, resp.Header.Get("Strict-Transport-Security"))
}

// TestHTTPSNeedClientAuth: with admin.needClientAuth only clients with a
// certificate the quorum trust store vouches for get through, and the
// Authorization header's x509 scheme names that certificate's subject:
// the x509 superUser may take a snapshot of a server whose "/" only a
// digest user may touch; another certificate is refused with 403.
func TestHTTPSNeedClientAuth(t *testing.T) {
	const superSubject = "CN=operator,O=zkraft"
	addr, pki, srv := httpsAdmin(t, server.AdminOptions{ForceHTTPS: true, NeedClientAuth: true}, func(c *server.Config) {
		c.Security.X509SuperUser = superSubject
	})
	conn, _, err := zk.Connect([]string{srv.Addr()}, 10*time.Second, zk.WithLogger(quiet{}))
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.SetACL("/", zk.DigestACL(zk.PermAll, "root", "secret"), -1)
	require.NoError(t, err)

	_, _, err = get(t, httpsClient(pki, nil), "https://"+addr+"/commands/ruok")
	require.Error(t, err, "no client certificate")
	stranger := testpki.New(t, "other-ca")
	foreign := stranger.Issue(t, pkix.Name{CommonName: "operator", Organization: []string{"zkraft"}})
	_, _, err = get(t, httpsClient(pki, &foreign), "https://"+addr+"/commands/ruok")
	require.Error(t, err, "a certificate from a CA the trust store does not hold")

	operator := pki.Issue(t, pkix.Name{CommonName: "operator", Organization: []string{"zkraft"}})
	op := httpsClient(pki, &operator)
	resp, body, err := get(t, op, "https://"+addr+"/commands/ruok")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)

	resp, body, err = get(t, op, "https://"+addr+"/commands/snapshot", "Authorization", "x509")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Equal(t, "SNAP-x", body)

	other := pki.Issue(t, pkix.Name{CommonName: "intern", Organization: []string{"zkraft"}})
	resp, body, err = get(t, httpsClient(pki, &other), "https://"+addr+"/commands/snapshot", "Authorization", "x509")
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
}

// TestHTTPSNeedsAKeyStore: HTTPS without ssl.quorum.keyStore.location is
// refused, naming the key to set.
func TestHTTPSNeedsAKeyStore(t *testing.T) {
	var cfg server.Config
	cfg.Admin.ForceHTTPS = true
	_, _, err := TLSFrom(cfg, nil)
	require.ErrorIs(t, err, ErrAdminKeyStore)
	require.True(t, strings.Contains(err.Error(), "ssl.quorum.keyStore.location"))

	cfg.Admin.ForceHTTPS = false
	tc, closeTLS, err := TLSFrom(cfg, nil)
	require.NoError(t, err)
	require.Nil(t, tc, "plain HTTP unless asked")
	require.Nil(t, closeTLS)
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// TestHTTPSVersionsAndSuitesAsJetty: unless the quorum keys narrow them,
// the AdminServer speaks TLS 1.2 and 1.3 and no suite Jetty excludes, as
// ZooKeeper's does; ssl.quorum.enabledProtocols and ssl.quorum.ciphersuites
// narrow them (ZOOKEEPER-5023), ssl.quorum.protocol does not.
func TestHTTPSVersionsAndSuitesAsJetty(t *testing.T) {
	const sha1Suite = "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"
	gcm := []string{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
		"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"}
	for _, tc := range []struct {
		name     string
		keys     map[string]string
		versions []string
		suites   []string
	}{
		{"defaults", nil, []string{"TLS 1.2", "TLS 1.3"}, gcm},
		{"protocol ignored", map[string]string{"ssl.quorum.protocol": "TLSv1.3"}, []string{"TLS 1.2", "TLS 1.3"}, gcm},
		{"enabledProtocols", map[string]string{"ssl.quorum.enabledProtocols": "TLSv1.3"}, []string{"TLS 1.3"}, nil},
		{"enabledProtocols, system property spelling",
			map[string]string{"zookeeper.ssl.quorum.enabledProtocols": "TLSv1.2"}, []string{"TLS 1.2"}, gcm},
		{"ciphersuites", map[string]string{"ssl.quorum.ciphersuites": sha1Suite}, []string{"TLS 1.2"}, []string{sha1Suite}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, pki, _ := httpsAdmin(t, server.AdminOptions{ForceHTTPS: true}, func(c *server.Config) {
				maps.Copy(c.Security.SSLQuorumProps, tc.keys)
			})
			require.Equal(t, tc.versions, acceptedVersions(addr, pki.Pool))
			require.Equal(t, tc.suites, acceptedSuites12(addr, pki.Pool))
		})
	}
}
