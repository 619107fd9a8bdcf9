package sasl

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// python is Debian's interpreter, where python3-pure-sasl installs.
const python = "/usr/bin/python3"

// needPureSASL skips unless Debian's python3 can import puresasl.
func needPureSASL(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(python); err != nil {
		t.Skipf("python3 not installed: %v", err)
	}
	if out, err := exec.Command(python, "-c", "import puresasl").CombinedOutput(); err != nil {
		t.Skipf("pure-sasl not importable by %s (apt-get install python3-pure-sasl): %v: %s", python, err, out)
	}
}

// pureSASLUsers adds an ASCII user with a non-Latin password: pure-sasl
// hashes UTF-8 only, which ZooKeeper matches only when every hashed string
// falls outside ISO-8859-1 or is ASCII.
var pureSASLUsers = map[string]string{
	"bob":    "bobsecret",
	"jürgen": "pässword",
	"zoë":    "пароль",
	"ivan":   "пароль",
}

// pureSASLCases are kazoo's logins. pure-sasl sends qop=auth, realm, nc
// and digest-uri but no charset, ignores authorization_id, and hashes
// user name and password as UTF-8 always, so a user name or password with
// non-ASCII ISO-8859-1 characters cannot log in to ZooKeeper (nor here).
var pureSASLCases = map[string]peerCase{
	"plain":           {"bob", "bobsecret", nil, "bob"},
	"authzid ignored": {"bob", "bobsecret", strp("super"), "bob"},
	"wrong password":  {"bob", "bobsecret!", nil, ""},
	"unknown user":    {"alice", "bobsecret", nil, ""},
	"utf8 password":   {"ivan", "пароль", nil, "ivan"},
	"latin1 password": {"jürgen", "pässword", nil, ""},
	"latin1 username": {"zoë", "пароль", nil, ""},
}

// TestPureSASLClient logs in with pure-sasl as kazoo drives it, against
// this package's server and, when Java is there, the JDK's server with
// ZooKeeper's handler; both must give the expected verdict.
func TestPureSASLClient(t *testing.T) {
	needPureSASL(t)
	client := startProc(t, python, "testdata/puresasl_client.py")
	servers := map[string]func(t *testing.T) Server{
		"go": func(*testing.T) Server { return (&DigestMD5{Users: pureSASLUsers}).NewServer() },
	}
	if _, err := exec.LookPath("java"); err == nil {
		jdk := startJDKServer(t, false, pureSASLUsers)
		servers["jdk"] = func(t *testing.T) Server { return jdk.NewServer(t) }
	} else {
		t.Log("java not installed: checking pure-sasl against the Go server only")
	}
	for name, c := range pureSASLCases {
		t.Run(name, func(t *testing.T) {
			for srvName, newServer := range servers {
				o := runClient(t, client, newServer(t), c.user, c.pass, c.authzid)
				require.Empty(t, o.clientErr, srvName)
				if c.wantID == "" {
					require.ErrorIs(t, o.serverErr, ErrAuthFailed, srvName)
					continue
				}
				require.NoError(t, o.serverErr, srvName)
				require.Equal(t, c.wantID, o.authID, srvName)
			}
		})
	}
}
