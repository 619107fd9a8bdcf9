package tlsconf

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"net"
	"testing"
)

func TestMatchHost(t *testing.T) {
	withSANs := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "ignored.example"},
		DNSNames:    []string{"zk1.example.com", "*.zk.example.com", "node*.example.org"},
		IPAddresses: []net.IP{net.ParseIP("10.0.0.1"), net.ParseIP("fd00::1")},
	}
	cnOnly := &x509.Certificate{Subject: pkix.Name{CommonName: "Legacy.Example"}}
	cases := []struct {
		cert *x509.Certificate
		host string
		ok   bool
	}{
		{withSANs, "zk1.example.com", true},
		{withSANs, "ZK1.Example.COM.", true},
		{withSANs, "a.zk.example.com", true},
		{withSANs, "a.b.zk.example.com", false}, // a star covers one label
		{withSANs, "zk.example.com", false},     // and not nothing
		{withSANs, "node7.example.org", true},   // ZooKeeper's partial-label wildcard
		{withSANs, "10.0.0.1", true},
		{withSANs, "[fd00:0::1]", true},
		{withSANs, "10.0.0.2", false},
		{withSANs, "ignored.example", false}, // the CN does not count beside SANs
		{cnOnly, "legacy.example", true},     // but does without them
		{cnOnly, "other.example", false},
		{&x509.Certificate{Subject: pkix.Name{CommonName: "10.0.0.1"}}, "10.0.0.1", true},
	}
	for _, c := range cases {
		err := matchHost(c.cert, c.host)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrHostname) {
			t.Errorf("matchHost(%v, %q) = %v, want ok=%v", c.cert.DNSNames, c.host, err, c.ok)
		}
	}
}

func TestMatchPeerAddrReverseLookupFailure(t *testing.T) {
	cert := &x509.Certificate{DNSNames: []string{"peer.zk.test"}}
	r := fakeResolver{}
	err := matchPeerAddr(context.Background(), cert, net.ParseIP("127.0.0.1"), true, r)
	if !errors.Is(err, ErrHostname) {
		t.Errorf("err = %v, want ErrHostname when the reverse lookup fails", err)
	}
}
