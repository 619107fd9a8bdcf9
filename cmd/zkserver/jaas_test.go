package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// SERVER_JVMFLAGS is read as zkServer.sh passes it to the JVM: the JAAS
// file and zookeeper.* -D flags apply, under the zoo.cfg; -jaas wins over
// the flags' login configuration.
func TestLoadConfigReadsServerJVMFlags(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	flags := `-Xmx512m -Djava.security.auth.login.config=/etc/zk/jaas.conf "-Dzookeeper.superUser=bob" ` +
		`-Dzookeeper.authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider`
	cfg, err := loadConfig(nil, flags, "", log)
	require.NoError(t, err)
	require.Equal(t, "/etc/zk/jaas.conf", cfg.Security.JAASFile)
	require.Equal(t, "bob", cfg.Security.SuperUser)
	require.Contains(t, cfg.Security.Schemes(), "sasl")

	zoo := writeCfg(t, "tickTime=2000\nclientPort=2181\nsuperUser=alice\n")
	cfg, err = loadConfig([]string{zoo}, flags, "/srv/jaas.conf", log)
	require.NoError(t, err)
	require.Equal(t, "/srv/jaas.conf", cfg.Security.JAASFile, "-jaas wins over SERVER_JVMFLAGS")
	require.Equal(t, "alice", cfg.Security.SuperUser, "the zoo.cfg wins over a -D flag")

	_, err = loadConfig(nil, `-Dzookeeper.sessionRequireClientSASLAuth=true`, "", log)
	require.ErrorContains(t, err, "sasl", "enforcing a scheme no provider offers fails closed")
}

// A Kerberos Server section whose keytab cannot be read stops zkserver
// with one clear line instead of serving without SASL.
func TestUnreadableKeytabStopsTheStart(t *testing.T) {
	bin := buildServer(t)
	jaas := filepath.Join(t.TempDir(), "jaas.conf")
	require.NoError(t, os.WriteFile(jaas, []byte(`Server {
  com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k" principal="zookeeper/h@R";
};
`), 0o600))
	cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\n", freePort(t)))
	cmd := exec.Command(bin, cfg)
	cmd.Env = append(os.Environ(), "SERVER_JVMFLAGS=-Djava.security.auth.login.config="+jaas)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	require.Contains(t, string(out), "Krb5LoginModule: keyTab /k")
}
