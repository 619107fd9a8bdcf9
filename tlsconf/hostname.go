package tlsconf

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"strings"
)

// matchHost checks that cert names host, an IP address or DNS name, with
// the rules of ZooKeeper's ZKHostnameVerifier (taken from Apache
// HttpClient): an IP is matched against IP subject alternative names, a DNS
// name against DNS ones with a wildcard standing for part of one label,
// and only a certificate with no DNS or IP alternative names at all falls
// back to its subject's common name.
func matchHost(cert *x509.Certificate, host string) error {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	ip := net.ParseIP(host)
	if len(cert.DNSNames) == 0 && len(cert.IPAddresses) == 0 {
		cn := cert.Subject.CommonName
		if cn != "" && (matchIdentity(strings.ToLower(host), strings.ToLower(cn)) || ip != nil && ip.Equal(net.ParseIP(cn))) {
			return nil
		}
		return fmt.Errorf("%q is not the certificate's common name %q and it has no alternative names: %w",
			host, cn, ErrHostname)
	}
	if ip != nil {
		if slices.ContainsFunc(cert.IPAddresses, ip.Equal) {
			return nil
		}
		return fmt.Errorf("IP %s is not among the certificate's IP addresses %v: %w", ip, cert.IPAddresses, ErrHostname)
	}
	h := strings.ToLower(host)
	for _, name := range cert.DNSNames {
		if matchIdentity(h, strings.ToLower(name)) {
			return nil
		}
	}
	return fmt.Errorf("%q is not among the certificate's DNS names %v: %w", host, cert.DNSNames, ErrHostname)
}

// matchIdentity matches a lower-case host against a lower-case pattern in
// which one '*' may stand for a non-empty run of characters within a
// single label ("*.example.com", "zk*.example.com"). ZooKeeper also lets
// the star match nothing; that is refused here.
func matchIdentity(host, pattern string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return host == pattern
	}
	prefix, suffix := pattern[:star], pattern[star+1:]
	if len(host) <= len(prefix)+len(suffix) || !strings.HasPrefix(host, prefix) || !strings.HasSuffix(host, suffix) {
		return false
	}
	return !strings.Contains(host[len(prefix):len(host)-len(suffix)], ".")
}

// resolver is the part of net.Resolver the reverse-DNS check uses; tests
// substitute their own.
type resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// matchPeerAddr is ZKTrustManager.performHostVerification for a connecting
// peer: the certificate must name the peer's IP address or, when reverse
// lookups are allowed, a name the address resolves back to. Java's
// InetAddress.getHostName accepts a reverse name only if it resolves
// forward to the same address; so does this, so a PTR record alone cannot
// claim a name.
func matchPeerAddr(ctx context.Context, cert *x509.Certificate, ip net.IP, reverse bool, r resolver) error {
	ipErr := matchHost(cert, ip.String())
	if ipErr == nil || !reverse {
		return ipErr
	}
	names, err := r.LookupAddr(ctx, ip.String())
	if err != nil {
		return fmt.Errorf("%w; reverse lookup of %s failed: %v", ipErr, ip, err)
	}
	for _, name := range names {
		if matchHost(cert, name) == nil && resolvesTo(ctx, r, name, ip) {
			return nil
		}
	}
	return fmt.Errorf("%w; nor does any forward-confirmed reverse name of %s (%v)", ipErr, ip, names)
}

func resolvesTo(ctx context.Context, r resolver, name string, ip net.IP) bool {
	addrs, err := r.LookupIPAddr(ctx, name)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(addrs, func(a net.IPAddr) bool { return a.IP.Equal(ip) })
}
