package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// fixture is a CA with a server and a client certificate, plus a client
// certificate from a CA nobody trusts, with the server's PEM stores written
// to a temporary directory.
type fixture struct {
	dir               string
	ca, otherCA       keyPair
	server, client    keyPair
	stranger          keyPair
	keyStore, caStore string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), ca: newCA(t, "test CA"), otherCA: newCA(t, "other CA")}
	f.server = issue(t, serverSpec("server"), &f.ca)
	f.client = issue(t, clientSpec("client"), &f.ca)
	f.stranger = issue(t, clientSpec("stranger"), &f.otherCA)
	f.keyStore = writeFile(t, f.dir, "server.pem", pemKeyStoreBytes(t, f.server, f.ca.cert))
	f.caStore = writeFile(t, f.dir, "ca.pem", pemCert(f.ca.cert))
	return f
}

// config is the fixture's server side with ZooKeeper's defaults for every
// key not given in extra.
func (f *fixture) config(t *testing.T, extra map[string]string) Config {
	t.Helper()
	props := map[string]string{
		"ssl.keyStore.location":   f.keyStore,
		"ssl.trustStore.location": f.caStore,
	}
	for k, v := range extra {
		props[k] = v
	}
	cfg, _, err := FromProps(props, "ssl.")
	if err != nil {
		t.Fatal(err)
	}
	cfg.PollInterval = -1 // tests that watch set their own interval
	return cfg
}

// clientTLS is what a ZooKeeper client would use: trusts the fixture CA,
// presents kp when given.
func (f *fixture) clientTLS(kp *keyPair) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(f.ca.cert)
	c := &tls.Config{RootCAs: pool, ServerName: "localhost"}
	if kp != nil {
		// Sent whatever CAs the server lists, so an untrusted certificate
		// reaches the server's check instead of being withheld by Go's client.
		cert := tlsCert(*kp)
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	return c
}

func tlsCert(kp keyPair) tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{kp.cert.Raw}, PrivateKey: kp.key, Leaf: kp.cert}
}

func load(t *testing.T, cfg Config, log *slog.Logger) *Source {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := Load(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// serverResult is what the accepting side saw of one handshake.
type serverResult struct {
	err   error
	state tls.ConnectionState
}

// serve accepts TLS connections on 127.0.0.1 with cfg, handshakes each
// and reports the outcome; the listener closes when the test ends.
func serve(t *testing.T, cfg *tls.Config) (string, <-chan serverResult) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan serverResult, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tc := tls.Server(c, cfg)
			_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
			err = tc.Handshake()
			results <- serverResult{err: err, state: tc.ConnectionState()}
			tc.Close()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return ln.Addr().String(), results
}

// handshake dials addr with cfg and returns both sides' views.
func handshake(t *testing.T, addr string, cfg *tls.Config, results <-chan serverResult) (tls.ConnectionState, error, serverResult) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tc := tls.Client(c, cfg)
	_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
	clientErr := tc.Handshake()
	state := tc.ConnectionState()
	tc.Close()
	select {
	case r := <-results:
		return state, clientErr, r
	case <-time.After(10 * time.Second):
		t.Fatal("server did not finish the handshake")
	}
	return state, clientErr, serverResult{}
}

// mustHandshake requires both sides to succeed.
func mustHandshake(t *testing.T, addr string, cfg *tls.Config, results <-chan serverResult) (tls.ConnectionState, serverResult) {
	t.Helper()
	state, cerr, sres := handshake(t, addr, cfg, results)
	if cerr != nil || sres.err != nil {
		t.Fatalf("handshake failed: client: %v; server: %v", cerr, sres.err)
	}
	return state, sres
}

// mustFail requires the handshake to fail on at least one side and
// returns the server's error (or the client's when the server saw none).
func mustFail(t *testing.T, addr string, cfg *tls.Config, results <-chan serverResult) error {
	t.Helper()
	_, cerr, sres := handshake(t, addr, cfg, results)
	if cerr == nil && sres.err == nil {
		t.Fatal("handshake succeeded; want a failure")
	}
	if sres.err != nil {
		return sres.err
	}
	return cerr
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
