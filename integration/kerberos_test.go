package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testkdc"
	"github.com/zkraft/zkraft/server"
)

// kerberosRealm is a test KDC with a ZooKeeper service key and a client
// key, and the JAAS files that use them as ZooKeeper's documentation
// writes them.
type kerberosRealm struct {
	kdc                    *testkdc.KDC
	serverJAAS, clientJAAS string
}

func startKerberosRealm(t *testing.T) *kerberosRealm {
	t.Helper()
	if ok, reason := testkdc.Available(); !ok {
		t.Skip(reason)
	}
	kdc := testkdc.Start(t, "ZKRAFT.TEST")
	service := kdc.AddPrincipal(t, "zookeeper/localhost")
	client := kdc.AddPrincipal(t, "zkclient")
	dir := t.TempDir()
	r := &kerberosRealm{kdc: kdc, serverJAAS: filepath.Join(dir, "server.jaas")}
	require.NoError(t, os.WriteFile(r.serverJAAS, []byte(fmt.Sprintf(`Server {
  com.sun.security.auth.module.Krb5LoginModule required
  useKeyTab=true
  keyTab="%s"
  storeKey=true
  useTicketCache=false
  principal="zookeeper/localhost@ZKRAFT.TEST";
};
`, service)), 0o600))
	r.clientJAAS = fmt.Sprintf(`Client {
  com.sun.security.auth.module.Krb5LoginModule required
  useKeyTab=true
  keyTab="%s"
  storeKey=true
  useTicketCache=false
  principal="zkclient@ZKRAFT.TEST";
};
`, client)
	return r
}

// login runs the stock Java client with the realm's Client section
// against addr and returns JavaSASL.java's verdict.
func (r *kerberosRealm) login(t *testing.T, addr string) string {
	t.Helper()
	return javaSASLWith(t, addr, r.clientJAAS, "-Djava.security.krb5.conf="+r.kdc.Krb5Conf)
}

// startKerberosServer starts zkraft with the realm's Server section.
func startKerberosServer(t *testing.T, r *kerberosRealm, edit func(*server.Config)) *Server {
	t.Helper()
	return startWithJAAS(t, r.serverJAAS, edit)
}

// The stock Java client logs in with Kerberos (GSSAPI) from a keytab, as
// Kafka and HBase do: it gets SaslAuthenticated and the id
// sasl:zkclient@ZKRAFT.TEST, which an ACL can name; with
// kerberos.removeRealmFromPrincipal the id is sasl:zkclient.
func TestKerberos_JavaClient(t *testing.T) {
	r := startKerberosRealm(t)
	s := startKerberosServer(t, r, nil)
	cl, _ := s.Connect(t)
	_, err := cl.Create("/sasl-only", nil, 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "zkclient@ZKRAFT.TEST"}})
	require.NoError(t, err)
	require.Equal(t, "authenticated ids=ip:127.0.0.1,sasl:zkclient@ZKRAFT.TEST read=OK", r.login(t, s.Addr()))

	short := startKerberosServer(t, r, func(c *server.Config) { c.Security.KerberosRemoveRealm = true })
	cl, _ = short.Connect(t)
	_, err = cl.Create("/sasl-only", nil, 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "zkclient"}})
	require.NoError(t, err)
	require.Equal(t, "authenticated ids=ip:127.0.0.1,sasl:zkclient read=OK", r.login(t, short.Addr()))

	// A server logged in as another service cannot read the client's ticket
	// for zookeeper/localhost: the login fails, the client hears AuthFailed.
	otherKeytab := r.kdc.AddPrincipal(t, "zookeeper/otherhost")
	otherJAAS := filepath.Join(t.TempDir(), "other.jaas")
	require.NoError(t, os.WriteFile(otherJAAS, []byte(fmt.Sprintf("Server {\n  com.sun.security.auth.module.Krb5LoginModule required\n"+
		"  useKeyTab=true keyTab=\"%s\" storeKey=true principal=\"zookeeper/otherhost@ZKRAFT.TEST\";\n};\n", otherKeytab)), 0o600))
	wrong := startKerberosServer(t, r, func(c *server.Config) { c.Security.JAASFile = otherJAAS })
	require.Equal(t, "authfailed", r.login(t, wrong.Addr()))
}

// The same Kerberos login against Apache ZooKeeper 3.8 started with the
// same Server section and krb5.conf gives the same line.
func TestDiffSecurity_Kerberos(t *testing.T) {
	r := startKerberosRealm(t)
	real := startRealZK(t,
		map[string]string{"authProvider.1": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"},
		map[string]string{"java.security.auth.login.config": r.serverJAAS, "java.security.krb5.conf": r.kdc.Krb5Conf})
	ours := startKerberosServer(t, r, nil)
	acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "zkclient@ZKRAFT.TEST"}}
	createOn(t, real.Addr(), "/sasl-only", acl)
	createOn(t, ours.Addr(), "/sasl-only", acl)
	want := r.login(t, real.Addr())
	require.Equal(t, "authenticated ids=ip:127.0.0.1,sasl:zkclient@ZKRAFT.TEST read=OK", want)
	require.Equal(t, want, r.login(t, ours.Addr()))
}
