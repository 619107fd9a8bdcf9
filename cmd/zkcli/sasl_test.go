package main

import (
	"bytes"
	"crypto/x509/pkix"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// serverJAAS is the server's JAAS file, as ZooKeeper's documentation
// writes one.
const serverJAAS = `Server {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       user_super="adminsecret"
       user_bob="bobsecret";
};
`

// clientJAAS is a zkCli.sh user's JAAS file for bob with password pw.
func clientJAAS(t *testing.T, section, pw string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client-jaas.conf")
	text := section + ` {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       username="bob"
       password="` + pw + `";
};
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startSASLZkraft starts zkraft with SASL DIGEST-MD5 logins (and the
// SASL ACL provider), as zoo.cfg and a JAAS file configure ZooKeeper.
func startSASLZkraft(t *testing.T) string {
	t.Helper()
	jaasPath := filepath.Join(t.TempDir(), "server-jaas.conf")
	if err := os.WriteFile(jaasPath, []byte(serverJAAS), 0o600); err != nil {
		t.Fatal(err)
	}
	zoo := "clientPort=2181\nauthProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n" +
		"java.security.auth.login.config=" + jaasPath + "\n"
	cfg, err := server.ParseConfig(strings.NewReader(zoo), "")
	if err != nil {
		t.Fatal(err)
	}
	s := integration.StartServer(t, integration.WithConfig(func(c *server.Config) { c.Security = cfg.Security }))
	return s.Addr()
}

const saslWhoami = "Auth scheme: User\nip: 127.0.0.1\nsasl: bob\n"

// TestSASLLogin logs in with a JAAS file's Client section (the -D flag as
// zkCli.sh's JVM takes it, or CLIENT_JVMFLAGS, or -client-configuration
// naming the file and another section) and with -sasl-user: whoami shows
// the sasl id and an ACL naming it lets the session in.
func TestSASLLogin(t *testing.T) {
	addr := startSASLZkraft(t)
	jaasFlag := "-Djava.security.auth.login.config=" + clientJAAS(t, "Client", "bobsecret")
	if out, code := zkcli(t, addr, jaasFlag, "whoami"); out != saslWhoami || code != 0 {
		t.Fatalf("whoami: exit %d\n%s", code, out)
	}
	if out, code := zkcli(t, addr, jaasFlag, "create", "/bob-only", "x", "sasl:bob:cdrwa"); code != 0 {
		t.Fatalf("create: exit %d\n%s", code, out)
	}
	if out, code := zkcli(t, addr, "get", "/bob-only"); code != 1 || !strings.Contains(out, "Insufficient permission") {
		t.Errorf("get without SASL: exit %d\n%s", code, out)
	}

	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("bobsecret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	props := filepath.Join(t.TempDir(), "client.properties")
	text := "java.security.auth.login.config=" + clientJAAS(t, "ZkClient", "bobsecret") + "\nzookeeper.sasl.clientconfig=ZkClient\n"
	if err := os.WriteFile(props, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"plain flags":          {"-sasl-user", "bob", "-sasl-password-file", pwFile},
		"client-configuration": {"-client-configuration", props},
	} {
		if out, code := zkcli(t, addr, append(args, "get", "/bob-only")...); out != "x\n" || code != 0 {
			t.Errorf("%s: exit %d\n%s", name, code, out)
		}
	}
	t.Setenv("CLIENT_JVMFLAGS", "-Xmx64m "+jaasFlag)
	if out, code := zkcli(t, addr, "get", "/bob-only"); out != "x\n" || code != 0 {
		t.Errorf("CLIENT_JVMFLAGS: exit %d\n%s", code, out)
	}
	if out, code := zkcli(t, addr, "-Dzookeeper.sasl.client=false", "get", "/bob-only"); code != 1 {
		t.Errorf("zookeeper.sasl.client=false: exit %d\n%s", code, out)
	}
}

// TestSASLFailures: a wrong password ends zkcli with AUTH_FAILED and
// status 1, promptly, in one-shot mode and in a session; a missing
// section or another login module is refused before connecting.
func TestSASLFailures(t *testing.T) {
	addr := startSASLZkraft(t)
	wrong := "-Djava.security.auth.login.config=" + clientJAAS(t, "Client", "nope")
	start := time.Now()
	out, code := zkcli(t, addr, wrong, "ls", "/")
	if code != 1 || !strings.Contains(out, "AUTH_FAILED") || !strings.Contains(out, "SASL authentication failed") {
		t.Errorf("wrong password: exit %d\n%s", code, out)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("wrong password took %v", d)
	}

	s := startSessionArgs(t, "-server", addr, "-timeout", "10s", wrong)
	s.send("ls /")
	s.waitFor("Not connected")
	// As zkCli.sh's session (TestSASLWrongPasswordSideBySide), the
	// commands then print "Not connected", with status 0.
	if code := s.end(); code != 0 || !strings.Contains(s.out.String(), "SASL authentication failed as bob") {
		t.Errorf("session: exit %d\n%s", code, s.out.String())
	}

	noSection := "-Djava.security.auth.login.config=" + clientJAAS(t, "Other", "bobsecret")
	if out, code := zkcli(t, addr, noSection, "ls", "/"); code != 1 || !strings.Contains(out, "no JAAS configuration section named 'Client'") {
		t.Errorf("no section: exit %d\n%s", code, out)
	}
	krb := filepath.Join(t.TempDir(), "krb.conf")
	os.WriteFile(krb, []byte("Client { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true; };\n"), 0o600)
	if out, code := zkcli(t, addr, "-Djava.security.auth.login.config="+krb, "ls", "/"); code != 1 || !strings.Contains(out, "GSSAPI") {
		t.Errorf("Kerberos module: exit %d\n%s", code, out)
	}
	if out, code := zkcli(t, addr, "-sasl-user", "bob", "ls", "/"); code != 1 || !strings.Contains(out, "-sasl-password-file") {
		t.Errorf("no password: exit %d\n%s", code, out)
	}
}

// TestSASLReconnects: after the connection is cut, the session logs in
// again on the new connection before anything else is sent, so whoami
// still shows the sasl id and the sasl-only node still reads.
func TestSASLReconnects(t *testing.T) {
	addr := startSASLZkraft(t)
	jaasFlag := "-Djava.security.auth.login.config=" + clientJAAS(t, "Client", "bobsecret")
	if out, code := zkcli(t, addr, jaasFlag, "create", "/rc", "v", "sasl:bob:cdrwa"); code != 0 {
		t.Fatalf("create: exit %d\n%s", code, out)
	}
	p := newCutProxy(t, addr)
	s := startSessionArgs(t, "-server", p.addr(), "-timeout", "10s", jaasFlag)
	s.send("whoami")
	s.waitFor("sasl: bob\n")
	p.cut()
	s.waitFor("state:Disconnected")
	s.waitFor("state:SyncConnected type:None path:null\n" + watcherText(saslAuthenticatedEvent))
	s.send("whoami")
	s.send("get /rc")
	s.waitFor("v\n")
	if got := strings.Count(s.out.String(), "sasl: bob\n"); got != 2 {
		t.Errorf("whoami after the reconnection:\n%s", s.out.String())
	}
	// connect opens a new session, which logs in too.
	s.send("connect " + addr)
	s.send("whoami")
	waitFor(t, "whoami after connect", func() bool { return strings.Count(s.out.String(), "sasl: bob\n") == 3 })
	if code := s.end(); code != 0 {
		t.Errorf("exit %d\n%s", code, s.out.String())
	}
}

// TestSASLServerSilent: a server that grants the session but never answers
// the login cannot make zkcli hang: it fails within its -timeout (the
// connection is lost, not refused, so no AUTH_FAILED).
func TestSASLServerSilent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			defer nc.Close()
			if _, err := wire.ReadFrame(nc, 1<<20, nil); err != nil {
				return
			}
			nc.Write(wire.AppendFrame(nil, &wire.ConnectResponse{TimeOut: 10000, SessionID: 1, Passwd: make([]byte, 16)}))
			io.Copy(io.Discard, nc) // reads the sasl request, never answers
		}
	}()
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("bobsecret"), 0o600)
	start := time.Now()
	var b bytes.Buffer
	code := run([]string{"-server", ln.Addr().String(), "-timeout", "1s", "-sasl-user", "bob", "-sasl-password-file", pw, "ls", "/"}, &b, &b)
	if code != 1 || !strings.Contains(b.String(), "Unable to connect") {
		t.Errorf("exit %d\n%s", code, b.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestSASLPrompt: a session whose login failed shows AUTH_FAILED in its
// prompt, as zkCli.sh's, and runs no command.
func TestSASLPrompt(t *testing.T) {
	c := &client{server: "h:1", sess: newSession()}
	c.sess.link = &link{ready: make(chan struct{})}
	c.sess.link.authFailed.Store(true)
	if got := c.prompt(); got != "[zk: h:1(AUTH_FAILED) 0] " || c.alive() {
		t.Errorf("prompt %q, alive %v", got, c.alive())
	}
}

// TestSASLOverTLS: the login runs inside TLS (the tap wraps the TLS
// connection), and the connection holds both identities.
func TestSASLOverTLS(t *testing.T) {
	pki := testpki.New(t, "zkcli sasl CA")
	serverKS, ca := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zkserver"}))
	clientKS, _ := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "bob"}))
	jaasPath := filepath.Join(t.TempDir(), "server-jaas.conf")
	if err := os.WriteFile(jaasPath, []byte(serverJAAS), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := server.ParseConfig(strings.NewReader("clientPort=2181\njava.security.auth.login.config="+jaasPath+"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	srv := integration.StartServer(t, integration.WithConfig(func(c *server.Config) {
		c.Security = cfg.Security
		c.Security.SecureClientPort = server.EphemeralPort
		c.Security.SSLProps = map[string]string{"ssl.keyStore.location": serverKS, "ssl.trustStore.location": ca}
	}))
	jaasFlag := "-Djava.security.auth.login.config=" + clientJAAS(t, "Client", "bobsecret")
	out, code := zkcli(t, srv.SecureAddr(), "-tls-ca", ca, "-tls-cert", clientKS, "-tls-key", clientKS, jaasFlag, "whoami")
	if code != 0 || sortedLines(out) != sortedLines("Auth scheme: User\nip: 127.0.0.1\nx509: CN=bob\nsasl: bob\n") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
