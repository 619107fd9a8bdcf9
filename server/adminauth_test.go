package server

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/internal/testpki"
)

func TestAuthorizeAdmin(t *testing.T) {
	s := startTestServer(t, func(c *Config) {
		c.SuperDigest = datatree.DigestID("super:superpw")
		c.Security.Providers = map[string]string{"1": providerX509}
		c.Security.X509SuperUser = "CN=admin"
	})
	c := connect(t, s)
	_, err := c.SetACL("/", []zk.ACL{
		{Perms: zk.PermAll, Scheme: "digest", ID: datatree.DigestID("root:secret")},
		{Perms: zk.PermRead | zk.PermWrite | zk.PermCreate | zk.PermDelete, Scheme: "digest", ID: datatree.DigestID("almost:pw")},
		{Perms: zk.PermAll, Scheme: "ip", ID: "10.1.0.0/16"},
		{Perms: zk.PermAll, Scheme: "x509", ID: "CN=operator"},
	}, -1)
	require.NoError(t, err)

	pki := testpki.New(t, "admin-auth")
	cert := func(cn string) []*x509.Certificate {
		c, err := x509.ParseCertificate(pki.Issue(t, pkix.Name{CommonName: cn}).Certificate[0])
		require.NoError(t, err)
		return []*x509.Certificate{c}
	}
	cases := []struct {
		name   string
		header string
		certs  []*x509.Certificate
		ip     string
		want   error
	}{
		{"missing", "", nil, "127.0.0.1", ErrAdminAuthMissing},
		{"digest with ALL", "digest root:secret", nil, "127.0.0.1", nil},
		{"trailing space", "digest root:secret ", nil, "127.0.0.1", nil},
		{"wrong password", "digest root:wrong", nil, "127.0.0.1", ErrAdminNotAuthorized},
		{"no ADMIN on /", "digest almost:pw", nil, "127.0.0.1", ErrAdminNotAuthorized},
		{"super digest", "digest super:superpw", nil, "127.0.0.1", nil},
		{"digest without data", "digest", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"two spaces", "digest  root:secret", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"unknown scheme", "kerberos root", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"ip inside the ACL's range", "ip", nil, "10.1.2.3", nil},
		{"ip with a port", "ip ", nil, "10.1.2.3:4567", nil},
		{"ip outside", "ip", nil, "127.0.0.1", ErrAdminNotAuthorized},
		{"x509 without a certificate", "x509", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"x509 named in the ACL", "x509", cert("operator"), "127.0.0.1", nil},
		{"x509 super user", "x509", cert("admin"), "127.0.0.1", nil},
		{"x509 someone else", "x509", cert("intruder"), "127.0.0.1", ErrAdminNotAuthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := s.AuthorizeAdmin(tc.header, tc.certs, tc.ip)
			if tc.want == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.want)
			}
		})
	}
}

func TestAuthorizeAdminX509NeedsTheScheme(t *testing.T) {
	s := startTestServer(t, nil)
	pki := testpki.New(t, "admin-auth")
	c, err := x509.ParseCertificate(pki.Issue(t, pkix.Name{CommonName: "admin"}).Certificate[0])
	require.NoError(t, err)
	require.ErrorIs(t, s.AuthorizeAdmin("x509", []*x509.Certificate{c}, "127.0.0.1"), ErrAdminNotAuthenticated,
		"no client port speaks TLS and no authProvider names x509")
	require.NoError(t, s.AuthorizeAdmin("digest anyone:at-all", nil, "127.0.0.1"), "/ is world:anyone by default")
}
