package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/auth/jaas"
	"github.com/zkraft/zkraft/auth/sasl"
)

func writeJAAS(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func TestLoadSASL(t *testing.T) {
	digest := writeJAAS(t, `Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_super="adminsecret" user_bob="${bob.password}";
};
Client { org.apache.zookeeper.server.auth.DigestLoginModule required username="bob" password="x"; };
`)
	props := map[string]string{"bob.password": "bobsecret"}
	l, err := loadSASL(Security{JAASFile: digest, SystemProperties: props}, jaas.SystemProperties(props))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"super": "adminsecret", "bob": "bobsecret"}, l.mech.(*sasl.DigestMD5).Users, "${} expands to a -D property")

	l, err = loadSASL(Security{JAASFile: digest, SASLSuperPassword: "override"}, jaas.SystemProperties(props))
	require.NoError(t, err)
	require.Equal(t, "override", l.mech.(*sasl.DigestMD5).Users["super"], "zookeeper.SASLAuthenticationProvider.superPassword")

	l, err = loadSASL(Security{JAASFile: digest, JAASSection: "ZkServer"}, jaas.SystemProperties(props))
	require.NoError(t, err)
	require.Nil(t, l, "no such section: no SASL login, as ZooKeeper")

	l, err = loadSASL(Security{}, jaas.SystemProperties(nil))
	require.NoError(t, err)
	require.Nil(t, l)

	_, err = loadSASL(Security{JAASFile: filepath.Join(t.TempDir(), "missing.conf")}, jaas.SystemProperties(nil))
	require.Error(t, err, "a JAAS file that cannot be read stops the start")

	_, err = loadSASL(Security{JAASFile: writeJAAS(t, "Server {\n org.apache.zookeeper.server.auth.DigestLoginModule required\n user_bob=\"x\"\n};\n")}, jaas.SystemProperties(nil))
	require.ErrorContains(t, err, "line", "a syntax error names its line")

	ticketCache := writeJAAS(t, `Server {
  com.sun.security.auth.module.Krb5LoginModule required
  useTicketCache=true principal="zookeeper/host@EXAMPLE.COM";
};
`)
	_, err = loadSASL(Security{JAASFile: ticketCache}, jaas.SystemProperties(nil))
	require.ErrorIs(t, err, errNoKeytab, "a Kerberos login zkraft cannot perform is refused, not ignored")

	noKeytab := writeJAAS(t, `Server {
  com.sun.security.auth.module.Krb5LoginModule required
  useKeyTab=true keyTab="/nonexistent/zk.keytab" principal="zookeeper/host@EXAMPLE.COM";
};
`)
	_, err = loadSASL(Security{JAASFile: noKeytab}, jaas.SystemProperties(nil))
	require.ErrorContains(t, err, "/nonexistent/zk.keytab")

	other := writeJAAS(t, "Server {\n  com.example.LdapLoginModule required;\n};\n")
	_, err = loadSASL(Security{JAASFile: other}, jaas.SystemProperties(nil))
	require.ErrorIs(t, err, errUnsupportedSecurity)
}
