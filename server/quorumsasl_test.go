package server

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/auth/jaas"
)

// quorumJAAS is ZooKeeper's documented quorum SASL JAAS file.
const quorumJAAS = `QuorumServer {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       user_test="test";
};
QuorumLearner {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       username="test"
       password="test";
};
`

func TestQuorumAuthKeysParse(t *testing.T) {
	c, err := parseCfg(`tickTime=2000
clientPort=2181
quorum.auth.enableSasl=true
quorum.auth.learnerRequireSasl=true
quorum.auth.serverRequireSasl=true
quorum.auth.server.saslLoginContext=QS
quorum.auth.learner.saslLoginContext=QL
`)
	require.NoError(t, err)
	require.Equal(t, QuorumSASL{Enabled: true, LearnerRequire: true, ServerRequire: true, ServerContext: "QS", LearnerContext: "QL"},
		c.Security.QuorumSASL)
	require.Empty(t, c.Ignored)

	c, err = ParseConfigFileWithProperties("", map[string]string{"quorum.auth.enableSasl": "true"})
	require.NoError(t, err)
	require.False(t, c.Security.QuorumSASL.Enabled, "ZooKeeper reads quorum.auth.* from zoo.cfg only, not as -D flags")
}

// QuorumPeerConfig's rules between the keys, and the GSSAPI-only key.
func TestQuorumAuthKeysRules(t *testing.T) {
	for _, tc := range []struct {
		lines string
		want  error
	}{
		{"quorum.auth.learnerRequireSasl=true", errQuorumRequireNotEnabled},
		{"quorum.auth.serverRequireSasl=true\nquorum.auth.learnerRequireSasl=true", errQuorumRequireNotEnabled},
		{"quorum.auth.enableSasl=true\nquorum.auth.serverRequireSasl=true", errQuorumServerWithoutLearner},
		{"quorum.auth.enableSasl=true\nquorum.auth.kerberos.servicePrincipal=zkquorum/localhost", errQuorumKerberos},
	} {
		_, err := parseCfg("tickTime=2000\nclientPort=2181\n" + tc.lines + "\n")
		require.ErrorIs(t, err, tc.want, tc.lines)
		require.Regexp(t, `^zoo\.cfg: `, err.Error())
	}
	_, err := parseCfg("tickTime=2000\nclientPort=2181\nquorum.auth.enableSasl=maybe\n")
	require.ErrorContains(t, err, "zoo.cfg:3: quorum.auth.enableSasl")
	_, err = parseCfg("tickTime=2000\nclientPort=2181\nquorum.auth.kerberos.servicePrincipal=zkquorum/localhost\n")
	require.NoError(t, err, "without enableSasl the principal asks for nothing")
}

func TestQuorumCredentials(t *testing.T) {
	sec := Security{JAASFile: writeJAAS(t, quorumJAAS), QuorumSASL: QuorumSASL{Enabled: true}}
	creds, err := loadQuorumCredentials(sec)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"test": "test"}, creds.server.Users)
	require.Equal(t, "zk-quorum-sasl-md5", creds.server.Realm)
	require.Equal(t, "zookeeper-quorum", creds.server.Protocol)
	require.Equal(t, "test", creds.learner.Username)
	require.Equal(t, "test", creds.learner.Password)
	require.Equal(t, "zookeeper-quorum", creds.learner.Protocol)

	sec.QuorumSASL.ServerContext, sec.QuorumSASL.LearnerContext = "QuorumLearner", "QuorumServer"
	_, err = loadQuorumCredentials(sec)
	require.ErrorIs(t, err, errQuorumNoCredentials, "the section names come from the saslLoginContext keys")
}

// What stops the start: no JAAS file, a missing section, Kerberos or
// another login module, a learner section without credentials.
func TestQuorumCredentialsRefused(t *testing.T) {
	krb := `QuorumServer {
       com.sun.security.auth.module.Krb5LoginModule required
       useKeyTab=true keyTab="/k.keytab" principal="zkquorum/zk1@EXAMPLE.COM";
};
QuorumLearner {
       org.apache.zookeeper.server.auth.DigestLoginModule required username="test" password="test";
};`
	other := `QuorumServer { org.apache.zookeeper.server.auth.DigestLoginModule required user_test="test"; };
QuorumLearner { com.example.LdapLoginModule required; };`
	noPassword := `QuorumServer { org.apache.zookeeper.server.auth.DigestLoginModule required user_test="test"; };
QuorumLearner { org.apache.zookeeper.server.auth.DigestLoginModule required username="test"; };`
	onlyServer := `QuorumServer { org.apache.zookeeper.server.auth.DigestLoginModule required user_test="test"; };`
	clientOnly := `Server { org.apache.zookeeper.server.auth.DigestLoginModule required user_bob="x"; };`
	for _, tc := range []struct {
		jaas string
		want error
	}{
		{"", errQuorumNoJAAS},
		{clientOnly, jaas.ErrNoSection},
		{onlyServer, jaas.ErrNoSection},
		{krb, errUnsupportedSecurity},
		{other, errUnsupportedSecurity},
		{noPassword, errQuorumNoCredentials},
	} {
		sec := Security{QuorumSASL: QuorumSASL{Enabled: true}}
		if tc.jaas != "" {
			sec.JAASFile = writeJAAS(t, tc.jaas)
		}
		_, err := loadQuorumCredentials(sec)
		require.ErrorIs(t, err, tc.want, tc.jaas)
	}
	sec := Security{JAASFile: writeJAAS(t, krb), QuorumSASL: QuorumSASL{Enabled: true}}
	_, err := loadQuorumCredentials(sec)
	require.ErrorContains(t, err, "GSSAPI (Kerberos) between servers")
}

// An ensemble member whose quorum SASL cannot be set up does not start;
// a standalone server has no links between servers and ignores the keys.
func TestQuorumSASLStopsTheStart(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ClientPort = 0
	cfg.ServerID = 1
	cfg.DataDir = t.TempDir()
	cfg.Servers = map[int64]string{1: "127.0.0.1:1:2", 2: "127.0.0.1:3:4", 3: "127.0.0.1:5:6"}
	cfg.Security.QuorumSASL = QuorumSASL{Enabled: true, LearnerRequire: true, ServerRequire: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	krb := `QuorumServer { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k"; };
QuorumLearner { org.apache.zookeeper.server.auth.DigestLoginModule required username="a" password="b"; };`
	for _, tc := range []struct {
		jaas string
		want error
	}{
		{"", errQuorumNoJAAS},
		{writeJAAS(t, `Server { org.apache.zookeeper.server.auth.DigestLoginModule required user_a="b"; };`), jaas.ErrNoSection},
		{writeJAAS(t, krb), errUnsupportedSecurity},
	} {
		cfg.Security.JAASFile = tc.jaas
		s, err := New(cfg)
		require.NoError(t, err)
		require.ErrorIs(t, s.Start(ctx), tc.want)
		require.NoError(t, s.Close())
	}

	standalone := DefaultConfig()
	standalone.ClientPort = 0
	standalone.Security.QuorumSASL = QuorumSASL{Enabled: true}
	s, err := New(standalone)
	require.NoError(t, err)
	require.NoError(t, s.Start(ctx), "standalone")
	require.NoError(t, s.Close())
}
