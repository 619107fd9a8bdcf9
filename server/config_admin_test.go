package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseAdminKeys(t *testing.T) {
	c, err := parseCfg("clientPort=2181\n")
	require.NoError(t, err)
	require.True(t, c.AdminEnableServer, "a zoo.cfg turns the AdminServer on, as ZooKeeper")
	require.Equal(t, "0.0.0.0", c.AdminServerAddress)
	require.Equal(t, 8080, c.AdminServerPort)
	require.Equal(t, 30*time.Second, c.AdminIdleTimeout())
	require.Equal(t, 5*time.Minute, c.AdminRateLimit())
	require.False(t, c.Admin.SnapshotDisabled || c.Admin.RestoreDisabled)
	require.False(t, c.Admin.ConsoleDisabled, "the console comes with the AdminServer")

	c, err = parseCfg("clientPort=2181\nadmin.idleTimeout=5000\nzookeeper.admin.rateLimiterIntervalInMS=1000\n" +
		"admin.snapshot.enabled=false\nadmin.restore.enabled=FALSE\nadmin.serverPort=0\nadmin.console.enabled=false\n")
	require.NoError(t, err)
	require.Empty(t, c.Ignored, "the admin keys are implemented")
	require.Equal(t, 5*time.Second, c.AdminIdleTimeout())
	require.Equal(t, time.Second, c.AdminRateLimit())
	require.True(t, c.Admin.SnapshotDisabled)
	require.True(t, c.Admin.RestoreDisabled)
	require.True(t, c.Admin.ConsoleDisabled)
	require.Zero(t, c.AdminServerPort, "0 picks a free port, as Jetty does")

	require.False(t, c.AdminTLS(), "plain HTTP by default")

	c, err = parseCfg("clientPort=2181\nadmin.forceHttps=true\nzookeeper.admin.portUnification=true\nadmin.needClientAuth=true\n")
	require.NoError(t, err)
	require.Empty(t, c.Ignored, "the HTTPS keys are implemented")
	require.True(t, c.Admin.ForceHTTPS && c.Admin.PortUnification && c.Admin.NeedClientAuth && c.AdminTLS())
	c, err = parseCfg("clientPort=2181\nadmin.portUnification=true\n")
	require.NoError(t, err)
	require.True(t, c.AdminTLS())

	c, err = parseCfg("clientPort=2181\nadmin.rateLimiterIntervalInMS=0\n")
	require.NoError(t, err)
	require.Zero(t, c.AdminRateLimit(), "0 turns the limit off")

	for _, bad := range []string{"admin.idleTimeout=0", "admin.rateLimiterIntervalInMS=-1", "admin.snapshot.enabled=yes", "admin.serverPort=70000", "admin.forceHttps=1"} {
		_, err := parseCfg("clientPort=2181\n" + bad + "\n")
		require.Error(t, err, bad)
	}
	c, err = parseCfg("clientPort=2181\nadmin.idleTimout=5\n")
	require.NoError(t, err)
	require.Equal(t, "unknown key (did you mean admin.idleTimeout?)", c.IgnoredKeys[0].Reason())
	require.False(t, DefaultConfig().AdminEnableServer, "no zoo.cfg: no AdminServer")
}
