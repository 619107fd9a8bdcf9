package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// saslJAAS is a JAAS file as ZooKeeper's documentation writes one.
const saslJAAS = `Server {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       user_super="adminsecret"
       user_bob="bobsecret"
       user_alice="alicesecret";
};
`

// startSASLServer starts a server that logs SASL users in from saslJAAS
// and lets ACLs name them (authProvider.1 = SASLAuthenticationProvider).
func startSASLServer(t *testing.T, edit func(*server.Config)) *Server {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	require.NoError(t, os.WriteFile(path, []byte(saslJAAS), 0o600))
	return startWithJAAS(t, path, edit)
}

// startWithJAAS starts a server whose zoo.cfg names the JAAS file at path
// and the SASL provider, then applies edit.
func startWithJAAS(t *testing.T, path string, edit func(*server.Config)) *Server {
	t.Helper()
	zoo := "clientPort=2181\nauthProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n" +
		"java.security.auth.login.config=" + path + "\n"
	cfg, err := server.ParseConfig(strings.NewReader(zoo), "")
	require.NoError(t, err)
	return StartServer(t, WithConfig(func(c *server.Config) {
		c.Security = cfg.Security
		if edit != nil {
			edit(c)
		}
	}))
}

// lastLine is a client program's verdict: the last line it printed.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// kazooDigest runs testdata/kazoo_digest.py and returns its verdict.
func kazooDigest(t *testing.T, py, addr, user, password string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, filepath.Join("testdata", "kazoo_digest.py"), addr, user, password).CombinedOutput()
	require.NoError(t, err, "kazoo_digest.py: %s", out)
	return lastLine(out)
}

// kazoo (pure-sasl) logs in with DIGEST-MD5 as against ZooKeeper: the
// right password earns the sasl id its ACLs name, another user is refused
// by the ACL, and a wrong password ends the login with AUTH_FAILED.
func TestSASL_KazooDigestMD5(t *testing.T) {
	py := kazooPython(t)
	s := startSASLServer(t, nil)
	cl, _ := s.Connect(t)
	_, err := cl.Create("/sasl-only", nil, 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}})
	require.NoError(t, err)

	require.Equal(t, "ok", kazooDigest(t, py, s.Addr(), "bob", "bobsecret"))
	require.Equal(t, "noauth", kazooDigest(t, py, s.Addr(), "alice", "alicesecret"))
	require.Equal(t, "authfailed", kazooDigest(t, py, s.Addr(), "bob", "wrong"))
	require.Equal(t, "authfailed", kazooDigest(t, py, s.Addr(), "mallory", "bobsecret"))
	// The JAAS user "super" matches every sasl ACL (SASLAuthenticationProvider).
	require.Equal(t, "ok", kazooDigest(t, py, s.Addr(), "super", "adminsecret"))

	_, _, err = cl.Children("/sasl-only")
	require.ErrorIs(t, err, zk.ErrNoAuth, "a client without the sasl id cannot list /sasl-only")
}

// javaClientClasspath returns the classpath of the Debian package's
// ZooKeeper client, or skips the test.
func javaClientClasspath(t *testing.T) (java, cp string) {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java not installed (apt-get install -y zookeeper brings it and the client jars)")
	}
	jars := []string{"zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar", "slf4j-nop.jar"}
	for i, j := range jars {
		jars[i] = filepath.Join("/usr/share/java", j)
		if _, err := os.Stat(jars[i]); err != nil {
			t.Skipf("%s not found (apt-get install -y zookeeper)", jars[i])
		}
	}
	return java, strings.Join(jars, string(os.PathListSeparator))
}

// javaSASL runs testdata/JavaSASL.java, the stock Java client logging in
// as user with DIGEST-MD5, and returns its verdict.
func javaSASL(t *testing.T, addr, user, password string) string {
	t.Helper()
	client := "Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n  username=\"" + user +
		"\"\n  password=\"" + password + "\";\n};\n"
	return javaSASLWith(t, addr, client)
}

// javaSASLWith runs testdata/JavaSASL.java with jaasText as its JAAS file
// and the given extra JVM flags, and returns its verdict.
func javaSASLWith(t *testing.T, addr, jaasText string, jvmFlags ...string) string {
	t.Helper()
	java, cp := javaClientClasspath(t)
	jaasFile := filepath.Join(t.TempDir(), "client.jaas")
	require.NoError(t, os.WriteFile(jaasFile, []byte(jaasText), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"-cp", cp, "-Djava.security.auth.login.config=" + jaasFile}, jvmFlags...)
	args = append(args, filepath.Join("testdata", "JavaSASL.java"), addr)
	out, err := exec.CommandContext(ctx, java, args...).CombinedOutput()
	require.NoError(t, err, "JavaSASL.java: %s", out)
	return lastLine(out)
}

// The ZooKeeper 3.8 Java client logs in with DIGEST-MD5 from its JAAS
// Client section, gets SaslAuthenticated and the sasl id (whoAmI), or
// AuthFailed with a wrong password. The same program against Apache
// ZooKeeper 3.8.0 with the same JAAS users printed the same two lines.
func TestSASL_JavaClientDigestMD5(t *testing.T) {
	s := startSASLServer(t, nil)
	cl, _ := s.Connect(t)
	_, err := cl.Create("/sasl-only", nil, 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}})
	require.NoError(t, err)

	require.Equal(t, "authenticated ids=ip:127.0.0.1,sasl:bob read=OK", javaSASL(t, s.Addr(), "bob", "bobsecret"))
	require.Equal(t, "authfailed", javaSASL(t, s.Addr(), "bob", "wrong"))
}
