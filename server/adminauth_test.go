package server

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/wire"
)

func certOf(t *testing.T, pki *testpki.PKI, cn string) []*x509.Certificate {
	t.Helper()
	c, err := x509.ParseCertificate(pki.Issue(t, pkix.Name{CommonName: cn}).Certificate[0])
	require.NoError(t, err)
	return []*x509.Certificate{c}
}

// TestAuthorizeAdminNeedsSuper: snapshot and restore read or replace the
// whole tree, ACLs included, so they need super whatever "/" grants: a
// user with ALL on "/" is refused, and so is a made-up digest user.
func TestAuthorizeAdminNeedsSuper(t *testing.T) {
	s := startTestServer(t, func(c *Config) {
		c.SuperDigest = datatree.DigestID("super:superpw")
		c.Security.Providers = map[string]string{"1": providerX509}
		c.Security.X509SuperUser = "CN=admin"
	})
	c := connect(t, s)
	_, err := c.SetACL("/", []zk.ACL{
		{Perms: zk.PermAll, Scheme: "digest", ID: datatree.DigestID("root:secret")},
		{Perms: zk.PermAll, Scheme: "ip", ID: "10.1.0.0/16"},
		{Perms: zk.PermAll, Scheme: "x509", ID: "CN=operator"},
	}, -1)
	require.NoError(t, err)
	pki := testpki.New(t, "admin-auth")
	cases := []struct {
		name   string
		header string
		certs  []*x509.Certificate
		ip     string
		want   error
	}{
		{"missing", "", nil, "127.0.0.1", ErrAdminAuthMissing},
		{"super digest", "digest super:superpw", nil, "127.0.0.1", nil},
		{"trailing space", "digest super:superpw ", nil, "127.0.0.1", nil},
		{"wrong super password", "digest super:wrong", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"ALL on / is not super", "digest root:secret", nil, "127.0.0.1", ErrAdminNotAuthorized},
		{"made-up user", "digest nobody:x", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"digest without data", "digest", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"two spaces", "digest  super:superpw", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"unknown scheme", "kerberos root", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"ip inside the ACL's range", "ip", nil, "10.1.2.3", ErrAdminNotAuthorized},
		{"x509 without a certificate", "x509", nil, "127.0.0.1", ErrAdminNotAuthenticated},
		{"x509 named in the ACL", "x509", certOf(t, pki, "operator"), "127.0.0.1", ErrAdminNotAuthorized},
		{"x509 super user", "x509", certOf(t, pki, "admin"), "127.0.0.1", nil},
		{"x509 super user, no header", "", certOf(t, pki, "admin"), "127.0.0.1", nil},
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

// TestAuthorizeAdminWithoutSuperConfigured: with no super identity
// configured, snapshot and restore are refused to everyone with a message
// naming the key to set, even though "/" is world:anyone.
func TestAuthorizeAdminWithoutSuperConfigured(t *testing.T) {
	s := startTestServer(t, nil)
	err := s.AuthorizeAdmin("digest anyone:at-all", nil, "127.0.0.1")
	require.ErrorIs(t, err, ErrAdminNoSuper)
	require.ErrorContains(t, err, "superDigest")
	require.ErrorIs(t, s.AuthorizeAdmin("", nil, "127.0.0.1"), ErrAdminNoSuper)
}

// TestHTTPReadersAndWriters: a console reader is anonymous (its address)
// unless it sends verified credentials; an invented digest user is never
// verified; writes need verified credentials.
func TestHTTPReadersAndWriters(t *testing.T) {
	s := startTestServer(t, nil)
	c := connect(t, s)
	_, err := c.Create("/alice", nil, 0, zk.DigestACL(zk.PermAll, "alice", "pw"))
	require.NoError(t, err)

	ids, err := s.ReaderIDs(AdminCredentials{RemoteIP: "127.0.0.1:5555"})
	require.NoError(t, err)
	require.Equal(t, []wire.Id{{Scheme: "ip", ID: "127.0.0.1"}}, ids)
	_, err = s.ReaderIDs(AdminCredentials{Authorization: "digest nobody:x", RemoteIP: "127.0.0.1"})
	require.ErrorIs(t, err, ErrAdminNotAuthenticated, "an invented digest user")
	ids, err = s.ReaderIDs(AdminCredentials{Authorization: "digest alice:pw", RemoteIP: "127.0.0.1"})
	require.NoError(t, err)
	require.Contains(t, ids, wire.Id{Scheme: "digest", ID: datatree.DigestID("alice:pw")})

	_, err = s.AuthorizeWrite(AdminCredentials{RemoteIP: "127.0.0.1"})
	require.ErrorIs(t, err, ErrAdminAuthMissing, "anonymous writes")
	_, err = s.AuthorizeWrite(AdminCredentials{Authorization: "ip", RemoteIP: "127.0.0.1"})
	require.ErrorIs(t, err, ErrAdminAuthMissing, "an address alone")
	_, err = s.AuthorizeWrite(AdminCredentials{Authorization: "digest alice:wrong", RemoteIP: "127.0.0.1"})
	require.ErrorIs(t, err, ErrAdminNotAuthenticated)
	_, err = s.AuthorizeWrite(AdminCredentials{Authorization: "digest alice:pw", RemoteIP: "127.0.0.1"})
	require.NoError(t, err)
}

// TestHTTPFollowsEnforcedAuth: where the client port requires SASL, HTTP
// readers need a sasl identity (checked against the JAAS users) or super;
// a digest user the tree knows is not enough, as on the client port.
func TestHTTPFollowsEnforcedAuth(t *testing.T) {
	jaasFile := writeJAAS(t, "Server {\n org.apache.zookeeper.server.auth.DigestLoginModule required\n user_bob=\"bobpw\";\n};\n")
	s := startTestServer(t, func(c *Config) {
		c.Security.JAASFile = jaasFile
		c.Security.Providers = map[string]string{"1": providerSASL}
		c.Security.EnforceAuth, c.Security.EnforceAuthSchemes = true, []string{"sasl"}
		c.SuperDigest = datatree.DigestID("super:superpw")
	})
	for _, tc := range []struct {
		header string
		want   error
	}{
		{"", ErrAdminAuthRequired},
		{"ip", ErrAdminAuthRequired},
		{"sasl bob:wrong", ErrAdminNotAuthenticated},
		{"sasl nobody:x", ErrAdminNotAuthenticated},
		{"sasl bob:bobpw", nil},
		{"digest super:superpw", nil},
	} {
		_, err := s.ReaderIDs(AdminCredentials{Authorization: tc.header, RemoteIP: "127.0.0.1"})
		if tc.want == nil {
			require.NoError(t, err, tc.header)
		} else {
			require.ErrorIs(t, err, tc.want, tc.header)
		}
	}
	ids, err := s.AuthorizeWrite(AdminCredentials{Authorization: "sasl bob:bobpw", RemoteIP: "127.0.0.1"})
	require.NoError(t, err)
	require.Contains(t, ids, wire.Id{Scheme: "sasl", ID: "bob"})
}

// TestSessionTableFollowsACLs: the console's sessions table lists an
// ephemeral or a watch only where the reader may read its parent, as
// getChildren would show the name.
func TestSessionTableFollowsACLs(t *testing.T) {
	s := startTestServer(t, nil)
	c := connect(t, s)
	require.NoError(t, c.AddAuth("digest", []byte("alice:pw")))
	_, err := c.Create("/alice", nil, 0, zk.DigestACL(zk.PermAll, "alice", "pw"))
	require.NoError(t, err)
	_, err = c.Create("/alice/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = c.Create("/open-eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	paths := func(cred AdminCredentials) []string {
		rows, err := s.SessionTable(cred)
		require.NoError(t, err)
		var out []string
		for _, r := range rows {
			out = append(out, r.Ephemerals...)
		}
		return out
	}
	require.Equal(t, []string{"/open-eph"}, paths(AdminCredentials{RemoteIP: "127.0.0.1"}))
	require.Equal(t, []string{"/alice/eph", "/open-eph"}, paths(AdminCredentials{Authorization: "digest alice:pw", RemoteIP: "127.0.0.1"}))
	_, err = s.SessionTable(AdminCredentials{Authorization: "digest nobody:x", RemoteIP: "127.0.0.1"})
	require.ErrorIs(t, err, ErrAdminNotAuthenticated)
}
