package sasl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// peerCase is one login by a real client library.
type peerCase struct {
	user, pass string
	authzid    *string
	wantID     string // "" when the login must fail
}

var jdkClientCases = map[string]peerCase{
	"plain":                {"bob", "bobsecret", nil, "bob"},
	"zookeeper client":     {"bob", "bobsecret", strp("bob"), "bob"}, // ZooKeeper passes the user as authzid
	"other authzid":        {"bob", "bobsecret", strp("super"), "bob"},
	"wrong password":       {"bob", "bobsecret!", nil, ""},
	"unknown user":         {"alice", "bobsecret", nil, ""},
	"latin1 password":      {"jürgen", "pässword", nil, "jürgen"},
	"latin1 authzid":       {"jürgen", "pässword", strp("jürgen"), "jürgen"},
	"utf8 password":        {"zoë", "пароль", nil, "zoë"},
	"latin1 wrong":         {"jürgen", "password", nil, ""},
	"utf8 wrong":           {"zoë", "пapoль", nil, ""},
	"empty password wrong": {"super", "", nil, ""},
}

// TestJDKClient logs in with the JDK's DIGEST-MD5 client, set up as
// ZooKeeper's Java client sets it up, against this package's server and,
// for reference, against the JDK's server with ZooKeeper's handler: both
// must agree with the expectation. A success also proves the client
// accepted our rspauth.
func TestJDKClient(t *testing.T) {
	client := startProc(t, needJava(t), "testdata/DigestClient.java")
	jdk := startJDKServer(t, false, peerUsers)
	for name, c := range jdkClientCases {
		t.Run(name, func(t *testing.T) {
			for _, srv := range []struct {
				name string
				s    Server
			}{{"go", peerServer().NewServer()}, {"jdk", jdk.NewServer(t)}} {
				o := runClient(t, client, srv.s, c.user, c.pass, c.authzid)
				require.Empty(t, o.clientErr, srv.name)
				if c.wantID == "" {
					require.ErrorIs(t, o.serverErr, ErrAuthFailed, srv.name)
					continue
				}
				require.NoError(t, o.serverErr, srv.name)
				require.Equal(t, c.wantID, o.authID, srv.name)
			}
		})
	}
}

// TestJDKServerAgrees runs every unit-test response against the JDK's
// server too: it must accept and refuse the same ones, and send the same
// rspauth and authorization id.
func TestJDKServerAgrees(t *testing.T) {
	jdk := startJDKServer(t, false, testServer().Users)
	for name, c := range successCases {
		t.Run("accept/"+name, func(t *testing.T) {
			s := jdk.NewServer(t)
			require.NoError(t, runExchange(t, s, c))
			require.Equal(t, c.user, s.AuthorizationID())
		})
	}
	for name, tc := range failureCases {
		t.Run("refuse/"+name, func(t *testing.T) {
			err := runExchange(t, jdk.NewServer(t), tc.c)
			if name == "nc twice" {
				// The JDK never reads "nc" (its table says
				// "nonce-count"), so it does not see the repeat.
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrAuthFailed)
		})
	}
}

// TestJDKSharedHandler shows why an unknown user fails here although
// ZooKeeper may let it in: its one callback handler per server keeps the
// last known user in a field, and hands out that user's password when the
// next name is unknown.
func TestJDKSharedHandler(t *testing.T) {
	jdk := startJDKServer(t, true, peerUsers)
	bob := testClient{user: "bob", pass: "bobsecret"}
	mallory := testClient{user: "mallory", pass: "bobsecret"}
	require.NoError(t, runExchange(t, jdk.NewServer(t), bob))
	s := jdk.NewServer(t)
	require.NoError(t, runExchange(t, s, mallory), "ZooKeeper takes mallory with bob's password")
	require.Equal(t, "mallory", s.AuthorizationID())

	_, err := exchange(t, peerServer(), bob)
	require.NoError(t, err)
	_, err = exchange(t, peerServer(), mallory)
	require.ErrorIs(t, err, ErrAuthFailed)
}

// TestJDKKerberosNames shows the other place ZooKeeper's handler departs
// from "the authorization id is the user name": a DIGEST user whose name
// looks like a Kerberos principal of a realm that is not the default one
// fails the name rules, and the JDK then authorizes the authzid the client
// asked for. This server always answers with the user name.
func TestJDKKerberosNames(t *testing.T) {
	users := map[string]string{"bob@EXAMPLE.COM": "pw", "svc/host@EXAMPLE.COM": "pw"}
	jdk := startJDKServer(t, false, users)
	if jdk.handler != "org.apache.zookeeper.server.auth.SaslServerCallbackHandler" {
		t.Skip("ZooKeeper's jar is not installed (libzookeeper-java); set ZK_CLASSPATH")
	}
	d := &DigestMD5{Users: users}
	for _, user := range []string{"bob@EXAMPLE.COM", "svc/host@EXAMPLE.COM"} {
		c := testClient{user: user, pass: "pw", authzid: strp("super")}
		s := jdk.NewServer(t)
		require.NoError(t, runExchange(t, s, c))
		require.Equal(t, "super", s.AuthorizationID(), user)
		c.authzid = nil
		s = jdk.NewServer(t)
		require.NoError(t, runExchange(t, s, c))
		require.Equal(t, user, s.AuthorizationID())

		c.authzid = strp("super")
		s, err := exchange(t, d, c)
		require.NoError(t, err)
		require.Equal(t, user, s.AuthorizationID())
	}
}
