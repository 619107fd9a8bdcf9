package main

import (
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
)

// TestTLS connects to a zkraft secure client port with the -tls-* flags
// and with a zkCli.sh -client-configuration file, and checks that the
// session carries the client certificate's x509 identity.
func TestTLS(t *testing.T) {
	pki := testpki.New(t, "zkcli test CA")
	serverKS, ca := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zkserver"}))
	clientKS, _ := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "alice", Organization: []string{"Example"}}))
	s := integration.StartServer(t, integration.WithConfig(func(c *server.Config) {
		c.Security.SecureClientPort = server.EphemeralPort
		c.Security.SSLProps = map[string]string{"ssl.keyStore.location": serverKS, "ssl.trustStore.location": ca}
	}))
	want := "Auth scheme: User\nip: 127.0.0.1\nx509: CN=alice,O=Example\n"

	flags := []string{"-tls-ca", ca, "-tls-cert", clientKS, "-tls-key", clientKS}
	if got, code := zkcli(t, s.SecureAddr(), append(flags, "whoami")...); code != 0 || got != want {
		t.Errorf("whoami with -tls-*: exit %d\n%s", code, got)
	}

	props := filepath.Join(t.TempDir(), "client.properties")
	text := "# as for zkCli.sh\nzookeeper.client.secure=true\nzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty\n" +
		"zookeeper.ssl.keyStore.location=" + clientKS + "\nzookeeper.ssl.trustStore.location=" + ca + "\n"
	if err := os.WriteFile(props, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, code := zkcli(t, s.SecureAddr(), "-client-configuration", props, "whoami"); code != 0 || got != want {
		t.Errorf("whoami with -client-configuration: exit %d\n%s", code, got)
	}

	// Trusting another CA, zkcli refuses the server's certificate.
	other := testpki.New(t, "another CA")
	_, otherCA := other.WritePEM(t, other.Issue(t, pkix.Name{CommonName: "x"}))
	got, code := zkcli(t, s.SecureAddr(), "-timeout", "1s", "-tls-ca", otherCA, "-tls-cert", clientKS, "-tls-key", clientKS, "ls", "/")
	if code != 1 || !strings.HasPrefix(got, "Unable to connect to ") {
		t.Errorf("untrusted server: exit %d, %q", code, got)
	}
	if got, code := zkcli(t, s.SecureAddr(), "-tls-cert", clientKS, "ls", "/"); code != 1 || got != errTLSKeyPair.Error()+"\n" {
		t.Errorf("-tls-cert without -tls-key: exit %d, %q", code, got)
	}
}
