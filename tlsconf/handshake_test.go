package tlsconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"testing"
)

func TestClientAuthNeed(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.config(t, nil), nil) // ssl.clientAuth defaults to need
	addr, res := serve(t, src.ServerConfig())

	if err := mustFail(t, addr, f.clientTLS(nil), res); !strings.Contains(err.Error(), "certificate") {
		t.Errorf("client without a certificate: %v", err)
	}
	_, sres := mustHandshake(t, addr, f.clientTLS(&f.client), res)
	if len(sres.state.VerifiedChains) == 0 {
		t.Error("server accepted the client certificate without verifying it")
	}
	mustFail(t, addr, f.clientTLS(&f.stranger), res)
}

func TestClientAuthWant(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.config(t, map[string]string{"ssl.clientAuth": "want"}), nil)
	addr, res := serve(t, src.ServerConfig())

	_, sres := mustHandshake(t, addr, f.clientTLS(nil), res)
	if len(sres.state.PeerCertificates) != 0 {
		t.Error("anonymous client shows a certificate")
	}
	_, sres = mustHandshake(t, addr, f.clientTLS(&f.client), res)
	if len(sres.state.VerifiedChains) == 0 {
		t.Error("want: the given certificate was not verified")
	}
	mustFail(t, addr, f.clientTLS(&f.stranger), res) // given but untrusted
}

func TestClientAuthNone(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.config(t, map[string]string{"ssl.clientAuth": "none"}), nil)
	addr, res := serve(t, src.ServerConfig())
	_, sres := mustHandshake(t, addr, f.clientTLS(&f.stranger), res)
	if len(sres.state.PeerCertificates) != 0 {
		t.Error("none: the server asked for a client certificate")
	}
}

func TestSystemPoolWhenNoTrustStore(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(t, nil)
	cfg.TrustStore = Store{}
	src := load(t, cfg, nil)
	addr, res := serve(t, src.ServerConfig())
	// The test CA is in no system pool, so its client is not trusted.
	mustFail(t, addr, f.clientTLS(&f.client), res)
}

func TestNoKeyStoreCannotServe(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(t, nil)
	cfg.KeyStore = Store{}
	src := load(t, cfg, nil)
	addr, res := serve(t, src.ServerConfig())
	if err := mustFail(t, addr, f.clientTLS(&f.client), res); !errors.Is(err, ErrNoKeyStore) {
		t.Errorf("err = %v, want ErrNoKeyStore", err)
	}
}

func TestProtocolLimits(t *testing.T) {
	f := newFixture(t)
	only12 := load(t, f.config(t, nil), nil) // TLSv1.2 only, as ZooKeeper by default
	addr, res := serve(t, only12.ServerConfig())
	c := f.clientTLS(&f.client)
	c.MinVersion = tls.VersionTLS13
	mustFail(t, addr, c, res)
	st, _ := mustHandshake(t, addr, f.clientTLS(&f.client), res)
	if st.Version != tls.VersionTLS12 {
		t.Errorf("negotiated %x, want TLS 1.2 although the client offers 1.3", st.Version)
	}

	only13 := load(t, f.config(t, map[string]string{"ssl.enabledProtocols": "TLSv1.3"}), nil)
	addr, res = serve(t, only13.ServerConfig())
	c = f.clientTLS(&f.client)
	c.MaxVersion = tls.VersionTLS12
	mustFail(t, addr, c, res)
	if st, _ := mustHandshake(t, addr, f.clientTLS(&f.client), res); st.Version != tls.VersionTLS13 {
		t.Errorf("negotiated %x, want TLS 1.3", st.Version)
	}
}

func TestCipherSuiteLimits(t *testing.T) {
	f := newFixture(t) // ECDSA certificates
	src := load(t, f.config(t, map[string]string{"ssl.ciphersuites": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"}), nil)
	addr, res := serve(t, src.ServerConfig())
	c := f.clientTLS(&f.client)
	c.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	mustFail(t, addr, c, res)
	st, _ := mustHandshake(t, addr, f.clientTLS(&f.client), res)
	if st.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 {
		t.Errorf("negotiated %s", tls.CipherSuiteName(st.CipherSuite))
	}
}

// fakeResolver answers reverse and forward lookups from maps.
type fakeResolver struct {
	ptr map[string][]string
	a   map[string][]string
}

func (r fakeResolver) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if n, ok := r.ptr[addr]; ok {
		return n, nil
	}
	return nil, &net.DNSError{Err: "no PTR", Name: addr, IsNotFound: true}
}

func (r fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	var out []net.IPAddr
	for _, s := range r.a[host] {
		out = append(out, net.IPAddr{IP: net.ParseIP(s)})
	}
	if out == nil {
		return nil, &net.DNSError{Err: "no A", Name: host, IsNotFound: true}
	}
	return out, nil
}

// quorumConfig reads the fixture's stores as ssl.quorum.* keys.
func (f *fixture) quorumConfig(t *testing.T, extra map[string]string) Config {
	t.Helper()
	props := map[string]string{
		"ssl.quorum.keyStore.location":   f.keyStore,
		"ssl.quorum.trustStore.location": f.caStore,
	}
	for k, v := range extra {
		props[k] = v
	}
	cfg, _, err := FromProps(props, "ssl.quorum.")
	if err != nil {
		t.Fatal(err)
	}
	cfg.PollInterval = -1
	return cfg
}

func TestQuorumChecksClientAddress(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.quorumConfig(t, nil), nil)
	src.resolver = fakeResolver{
		ptr: map[string][]string{"127.0.0.1": {"spoofed.zk.test", "peer.zk.test"}},
		a:   map[string][]string{"peer.zk.test": {"127.0.0.1"}, "spoofed.zk.test": {"10.1.1.1"}},
	}
	addr, res := serve(t, src.ServerConfig())

	byIP := issue(t, certSpec{cn: "p1", ips: []net.IP{net.IPv4(127, 0, 0, 1)}, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, &f.ca)
	mustHandshake(t, addr, f.clientTLS(&byIP), res)

	elsewhere := issue(t, certSpec{cn: "p2", ips: []net.IP{net.IPv4(10, 9, 9, 9)}, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, &f.ca)
	if err := mustFail(t, addr, f.clientTLS(&elsewhere), res); !errors.Is(err, ErrHostname) {
		t.Errorf("certificate for another address: %v, want ErrHostname", err)
	}

	// Reverse DNS (on by default for quorum) finds peer.zk.test, which
	// resolves back to 127.0.0.1.
	byName := issue(t, certSpec{cn: "p3", dns: []string{"peer.zk.test"}, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, &f.ca)
	mustHandshake(t, addr, f.clientTLS(&byName), res)

	// A PTR name that does not resolve back to the address proves nothing.
	spoofed := issue(t, certSpec{cn: "p4", dns: []string{"spoofed.zk.test"}, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, &f.ca)
	mustFail(t, addr, f.clientTLS(&spoofed), res)

	noReverse := load(t, f.quorumConfig(t, map[string]string{"ssl.quorum.allowReverseDnsLookup": "false"}), nil)
	noReverse.resolver = src.resolver
	addr2, res2 := serve(t, noReverse.ServerConfig())
	mustFail(t, addr2, f.clientTLS(&byName), res2)
}

func TestClientPortDoesNotCheckClientAddress(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.config(t, nil), nil) // ssl.hostnameVerification defaults to true
	addr, res := serve(t, src.ServerConfig())
	elsewhere := issue(t, certSpec{cn: "c", ips: []net.IP{net.IPv4(10, 9, 9, 9)}, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, &f.ca)
	mustHandshake(t, addr, f.clientTLS(&elsewhere), res)

	// 3.9.4's ssl.clientHostnameVerification turns the check on.
	strict := load(t, f.config(t, map[string]string{"ssl.clientHostnameVerification": "true"}), nil)
	addr, res = serve(t, strict.ServerConfig())
	mustFail(t, addr, f.clientTLS(&elsewhere), res)
}

func TestClientConfigDialsPeers(t *testing.T) {
	f := newFixture(t)
	server := load(t, f.quorumConfig(t, nil), nil)
	addr, res := serve(t, server.ServerConfig())
	dialer := load(t, f.quorumConfig(t, nil), nil)

	_, sres := mustHandshake(t, addr, dialer.ClientConfigFor("127.0.0.1"), res)
	if len(sres.state.PeerCertificates) == 0 || !sres.state.PeerCertificates[0].Equal(f.server.cert) {
		t.Error("the dialling side did not present its certificate")
	}
	cfg := dialer.ClientConfig()
	cfg.ServerName = "localhost" // sent as SNI, so the check sees it
	mustHandshake(t, addr, cfg, res)

	for host, want := range map[string]string{"zk9.example": "zk9.example", "": "dialled host is unknown"} {
		_, cerr, _ := handshake(t, addr, dialer.ClientConfigFor(host), res)
		if !errors.Is(cerr, ErrHostname) || !strings.Contains(cerr.Error(), want) {
			t.Errorf("host %q: client err = %v; want ErrHostname mentioning %q", host, cerr, want)
		}
	}
	lax := load(t, f.quorumConfig(t, map[string]string{"ssl.quorum.hostnameVerification": "false"}), nil)
	mustHandshake(t, addr, lax.ClientConfigFor("zk9.example"), res)

	// A server whose certificate the trust store does not vouch for.
	other := issue(t, serverSpec("imposter"), &f.otherCA)
	bad := f.quorumConfig(t, nil)
	bad.KeyStore.Location = writeFile(t, f.dir, "imposter.pem", pemKeyStoreBytes(t, other))
	impostor := load(t, bad, nil)
	addr3, res3 := serve(t, impostor.ServerConfig())
	_, cerr, _ := handshake(t, addr3, lax.ClientConfigFor("127.0.0.1"), res3)
	if cerr == nil || !strings.Contains(cerr.Error(), "server certificate") {
		t.Errorf("untrusted server: client err = %v", cerr)
	}
}
