package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A setting that asks for protection zkraft cannot give stops the start,
// with the key and its line named; none is ignored with a warning.
func TestSecuritySettingsThatCannotBeHonouredFailClosed(t *testing.T) {
	for _, line := range []string{
		"quorum.auth.enableSasl=true\nquorum.auth.kerberos.servicePrincipal=zkquorum/localhost",
		"quorum.auth.serverRequireSasl=true",
		"quorum.auth.learnerRequireSasl=true",
		"ssl.crl=true",
		"zookeeper.ssl.ocsp=true",
		"authProvider.1=com.example.MyProvider",
		"zookeeper.authProvider.ldap=com.example.Ldap",
		"ssl.authProvider=myprovider",
		"enforce.auth.enabled=true",
		"enforce.auth.enabled=true\nenforce.auth.schemes=sasl",
		"zookeeper.enforce.auth.enabled=true\nzookeeper.enforce.auth.schemes=x509",
		"sessionRequireClientSASLAuth=true",
	} {
		_, err := parseCfg("tickTime=2000\nclientPort=2181\n" + line + "\n")
		require.Error(t, err, line)
		require.Regexp(t, `zoo\.cfg(:\d+)?: `, err.Error(), line)
	}
}

func TestSecurityKeysParse(t *testing.T) {
	c, err := parseCfg(`tickTime=2000
clientPort=2181
secureClientPort=2281
secureClientPortAddress=127.0.0.1
zookeeper.client.portUnification=true
ssl.keyStore.location=/k.p12
zookeeper.ssl.trustStore.location=/t.pem
ssl.quorum.keyStore.location=/q.jks
sslQuorum=false
authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider
zookeeper.authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider
zookeeper.superUser=admin
X509AuthenticationProvider.superUser=CN=admin
sessionRequireClientSASLAuth=true
enforce.auth.schemes=digest
`)
	require.NoError(t, err)
	s := c.Security
	require.Equal(t, 2281, s.SecureClientPort)
	require.Equal(t, "127.0.0.1", s.SecureClientPortAddress)
	require.True(t, s.PortUnification)
	require.Equal(t, map[string]string{"ssl.keyStore.location": "/k.p12", "ssl.trustStore.location": "/t.pem"}, s.SSLProps,
		"ssl.quorum.* keys are not the client port's")
	require.Equal(t, []string{"digest", "ip", "sasl", "x509"}, s.Schemes())
	require.Equal(t, "admin", s.SuperUser)
	require.Equal(t, "CN=admin", s.X509SuperUser)
	require.True(t, s.EnforceAuth)
	require.Equal(t, []string{"sasl"}, s.EnforceAuthSchemes, "sessionRequireClientSASLAuth wins over enforce.auth.schemes")
	require.Equal(t, map[string]string{"ssl.quorum.keyStore.location": "/q.jks"}, s.SSLQuorumProps)
	require.False(t, s.SSLQuorum)

	c, err = parseCfg("tickTime=2000\nclientPort=2181\nenforce.auth.enabled=true\nenforce.auth.schemes=digest, ip\n")
	require.NoError(t, err)
	require.Equal(t, []string{"digest", "ip"}, c.Security.EnforceAuthSchemes)
}

// The JVM flags' -D properties apply under the zoo.cfg: the file's keys
// win, properties zkraft does not know are kept for the JAAS file only.
func TestSystemPropertiesApplyUnderTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "zoo.cfg")
	require.NoError(t, os.WriteFile(path, []byte("tickTime=2000\nclientPort=2181\nsuperUser=fromfile\n"), 0o600))
	props := map[string]string{
		"java.security.auth.login.config":  "/etc/zk/jaas.conf",
		"zookeeper.superUser":              "fromflags",
		"zookeeper.allowSaslFailedClients": "true",
		"zookeeper.authProvider.1":         "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
		"log4j.configuration":              "file:/etc/zk/log4j.properties",
	}
	c, err := ParseConfigFileWithProperties(path, props)
	require.NoError(t, err)
	require.Equal(t, "/etc/zk/jaas.conf", c.Security.JAASFile)
	require.Equal(t, "fromfile", c.Security.SuperUser, "zoo.cfg overrides the JVM's property")
	require.True(t, c.Security.AllowSASLFailedClients)
	require.Contains(t, c.Security.Schemes(), "sasl")
	require.Equal(t, props, c.Security.SystemProperties)
	require.Empty(t, c.Ignored, "unknown JVM properties are not zoo.cfg keys")

	c, err = ParseConfigFileWithProperties("", map[string]string{"zookeeper.sessionRequireClientSASLAuth": "true",
		"zookeeper.authProvider.sasl": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"})
	require.NoError(t, err, "no zoo.cfg: the defaults with the properties")
	require.True(t, c.Security.EnforceAuth)
	require.Equal(t, 2181, c.ClientPort)

	_, err = ParseConfigFileWithProperties("", map[string]string{"zookeeper.sessionRequireClientSASLAuth": "true"})
	require.ErrorContains(t, err, "sasl", "enforcing sasl without its provider fails closed")
	_, err = ParseConfigFileWithProperties("", map[string]string{"zookeeper.ssl.crl": "true"})
	require.ErrorContains(t, err, "SERVER_JVMFLAGS: -Dzookeeper.ssl.crl")
}
