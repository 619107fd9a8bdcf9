package envconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// env is a Lookup over a map.
func env(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// head is what the official entrypoint writes first with the Dockerfile's
// defaults.
const head = `dataDir=/data
dataLogDir=/datalog
tickTime=2000
initLimit=5
syncLimit=2
autopurge.snapRetainCount=3
autopurge.purgeInterval=0
maxClientCnxns=60
standaloneEnabled=true
admin.enableServer=true
`

const three = "server.1=zoo1:2888:3888;2181 server.2=zoo2:2888:3888;2181 server.3=zoo3:2888:3888;2181"

// TestZooCfgMatchesTheOfficialEntrypoint checks the zoo.cfg and myid for
// the settings the official image's docs show, against what its
// docker-entrypoint.sh (ZooKeeper 3.8) writes for them.
func TestZooCfgMatchesTheOfficialEntrypoint(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		cfg  string
		myid int64
	}{
		{"no variables: one standalone server", nil,
			head + "server.1=localhost:2888:3888;2181\n", 1},
		{"compose ensemble, servers on one line", map[string]string{"ZOO_MY_ID": "2", "ZOO_SERVERS": three},
			head + "server.1=zoo1:2888:3888;2181\nserver.2=zoo2:2888:3888;2181\nserver.3=zoo3:2888:3888;2181\n", 2},
		{"servers one per line (YAML block scalar)", map[string]string{"ZOO_MY_ID": "3", "ZOO_SERVERS": "server.1=a:2888:3888;2181\n  server.2=b:2888:3888;2181\nserver.3=0.0.0.0:2888:3888;2181\n"},
			head + "server.1=a:2888:3888;2181\nserver.2=b:2888:3888;2181\nserver.3=0.0.0.0:2888:3888;2181\n", 3},
		{"3.5 form with role and client address", map[string]string{"ZOO_SERVERS": "server.1=a:2888:3888:participant;0.0.0.0:2181 server.2=b:2888:3888:observer;2181"},
			head + "server.1=a:2888:3888:participant;0.0.0.0:2181\nserver.2=b:2888:3888:observer;2181\n", 1},
		{"every tuning variable", map[string]string{
			"ZOO_DATA_DIR": "/d", "ZOO_DATA_LOG_DIR": "/l", "ZOO_TICK_TIME": "500", "ZOO_INIT_LIMIT": "10", "ZOO_SYNC_LIMIT": "4",
			"ZOO_AUTOPURGE_SNAPRETAINCOUNT": "5", "ZOO_AUTOPURGE_PURGEINTERVAL": "24", "ZOO_MAX_CLIENT_CNXNS": "0",
			"ZOO_STANDALONE_ENABLED": "false", "ZOO_ADMINSERVER_ENABLED": "false", "ZOO_4LW_COMMANDS_WHITELIST": "srvr,ruok,mntr",
			"ZOO_CFG_EXTRA": "metricsProvider.className=org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider metricsProvider.httpPort=7000"},
			"dataDir=/d\ndataLogDir=/l\ntickTime=500\ninitLimit=10\nsyncLimit=4\nautopurge.snapRetainCount=5\nautopurge.purgeInterval=24\n" +
				"maxClientCnxns=0\nstandaloneEnabled=false\nadmin.enableServer=false\nserver.1=localhost:2888:3888;2181\n" +
				"4lw.commands.whitelist=srvr,ruok,mntr\n" +
				"metricsProvider.className=org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider\nmetricsProvider.httpPort=7000\n", 1},
		{"empty value: the default, as the Dockerfile's ENV", map[string]string{"ZOO_TICK_TIME": "", "ZOO_SERVERS": ""},
			head + "server.1=localhost:2888:3888;2181\n", 1},
		{"StatefulSet pod zk-2 is server 3", map[string]string{"ZKRAFT_MY_ID_FROM_HOSTNAME": "true", "HOSTNAME": "zk-2", "ZOO_SERVERS": three},
			head + strings.ReplaceAll(three, " ", "\n") + "\n", 3},
		{"ZOO_MY_ID wins over the host name", map[string]string{"ZKRAFT_MY_ID_FROM_HOSTNAME": "true", "HOSTNAME": "zk-2", "ZOO_MY_ID": "7"},
			head + "server.1=localhost:2888:3888;2181\n", 7},
		{"super password turns reconfig on", map[string]string{"ZKRAFT_SUPER_PASSWORD": "test", "ZOO_CFG_EXTRA": "reconfigEnabled=false"},
			head + "server.1=localhost:2888:3888;2181\nreconfigEnabled=true\n" +
				"DigestAuthenticationProvider.superDigest=super:D/InIHSb7yEEbrWz8b9l71RjZJU=\nreconfigEnabled=false\n", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromEnv(env(tc.env))
			require.NoError(t, err)
			require.Equal(t, tc.cfg, s.ZooCfg(s.Servers))
			require.Equal(t, tc.myid, s.MyID)
			require.Nil(t, s.Join)
		})
	}
}

// TestSuperDigestIsZooKeepers checks the digest against the value
// ZooKeeper's DigestAuthenticationProvider.generateDigest prints for
// super:test (the one integration/reconfig_test.go configures).
func TestSuperDigestIsZooKeepers(t *testing.T) {
	require.Equal(t, "super:D/InIHSb7yEEbrWz8b9l71RjZJU=", SuperDigest("super", "test"))
}

func TestBadIdentity(t *testing.T) {
	for _, m := range []map[string]string{{"ZOO_MY_ID": "x"}, {"ZOO_MY_ID": "0"}, {"ZOO_MY_ID": "-3"}} {
		_, err := FromEnv(env(m))
		require.ErrorIs(t, err, ErrMyID, "%v", m)
	}
	for _, h := range []string{"zk", "zk-", "zk-a", ""} {
		_, err := FromEnv(env(map[string]string{"ZKRAFT_MY_ID_FROM_HOSTNAME": "true", "HOSTNAME": h}))
		require.ErrorIs(t, err, ErrHostname, "%q", h)
	}
}

func TestJoinWhenTheIDHasNoLine(t *testing.T) {
	m := map[string]string{"ZKRAFT_MY_ID_FROM_HOSTNAME": "true", "HOSTNAME": "zk-3", "ZOO_SERVERS": three,
		"ZKRAFT_SERVER_LINE": "zk-3.zk-hs:2888:3888;2181", "ZKRAFT_SUPER_PASSWORD": "pw"}
	s, err := FromEnv(env(m))
	require.NoError(t, err)
	require.NotNil(t, s.Join)
	require.Equal(t, Join{ID: 4, Line: "zk-3.zk-hs:2888:3888;2181", Ensemble: strings.Fields(three), Password: "pw"}, *s.Join)
	live := []string{"server.1=zoo1:2888:3888;2181", "server.2=zoo2:2888:3888;2181", "server.3=zoo3:2888:3888;2181", "server.5=e:2888:3888;2181"}
	require.Equal(t, append(live[:4:4], "server.4=zk-3.zk-hs:2888:3888;2181"), s.Join.JoinServers(live))
	again := append(live, "server.4=zk-3.zk-hs:2888:3888;2181")
	require.Equal(t, again, s.Join.JoinServers(again), "a member already listed is not added twice")

	// A pod whose id ZOO_SERVERS lists is a founding member: no join.
	m["HOSTNAME"] = "zk-0"
	s, err = FromEnv(env(m))
	require.NoError(t, err)
	require.Nil(t, s.Join)

	m["HOSTNAME"] = "zk-3"
	for _, bad := range []string{"server.4=h:1:2;3", "h:1:2", "h:1;3"} {
		m["ZKRAFT_SERVER_LINE"] = bad
		_, err = FromEnv(env(m))
		require.ErrorIs(t, err, ErrServerLine, bad)
	}
}

// TestWriteKeepsExistingFiles: a mounted zoo.cfg and an existing myid are
// left as they are, as the entrypoint's [[ ! -f ... ]] tests do.
func TestWriteKeepsExistingFiles(t *testing.T) {
	dir := t.TempDir()
	m := map[string]string{"ZOO_CONF_DIR": filepath.Join(dir, "conf"), "ZOO_DATA_DIR": filepath.Join(dir, "data"),
		"ZOO_DATA_LOG_DIR": filepath.Join(dir, "datalog"), "ZOO_MY_ID": "2", "ZOO_SERVERS": three}
	s, err := FromEnv(env(m))
	require.NoError(t, err)
	require.False(t, s.HasConfig())
	wrote, err := s.Write(s.Servers)
	require.NoError(t, err)
	require.True(t, wrote)
	require.True(t, s.HasConfig())
	require.DirExists(t, m["ZOO_DATA_LOG_DIR"])
	myid, err := os.ReadFile(s.MyIDPath())
	require.NoError(t, err)
	require.Equal(t, "2\n", string(myid))

	require.NoError(t, os.WriteFile(s.ConfigPath(), []byte("clientPort=2181\n"), 0o644))
	m["ZOO_MY_ID"] = "3"
	s, err = FromEnv(env(m))
	require.NoError(t, err)
	wrote, err = s.Write(s.Servers)
	require.NoError(t, err)
	require.False(t, wrote)
	cfg, _ := os.ReadFile(s.ConfigPath())
	require.Equal(t, "clientPort=2181\n", string(cfg), "a zoo.cfg that exists is not rewritten")
	myid, _ = os.ReadFile(s.MyIDPath())
	require.Equal(t, "2\n", string(myid), "neither is myid")
}

// TestZkraftReadsWhatItWrites parses the generated zoo.cfg files with the
// server's own parser: every key is known and the ensemble is what
// ZOO_SERVERS says.
func TestZkraftReadsWhatItWrites(t *testing.T) {
	dir := t.TempDir()
	m := map[string]string{"ZOO_CONF_DIR": dir, "ZOO_DATA_DIR": dir, "ZOO_DATA_LOG_DIR": dir, "ZOO_MY_ID": "2",
		"ZOO_SERVERS": three, "ZOO_4LW_COMMANDS_WHITELIST": "ruok", "ZKRAFT_SUPER_PASSWORD": "test"}
	s, err := FromEnv(env(m))
	require.NoError(t, err)
	_, err = s.Write(s.Servers)
	require.NoError(t, err)
	cfg, err := server.ParseConfigFile(s.ConfigPath())
	require.NoError(t, err)
	// autopurge.purgeInterval is the one key zkraft does without (Raft
	// compacts its own log); it is logged once at start.
	for _, k := range cfg.IgnoredKeys {
		require.Equal(t, "autopurge.purgeInterval", k.Key, "zkraft knows every other key the entrypoint writes")
	}
	require.EqualValues(t, 2, cfg.ServerID)
	require.Len(t, cfg.Servers, 3)
	require.Equal(t, 2181, cfg.ClientPort)
	require.True(t, cfg.ReconfigEnabled)
	require.Equal(t, "super:D/InIHSb7yEEbrWz8b9l71RjZJU=", cfg.SuperDigest)
	require.True(t, cfg.AdminEnableServer)
	require.True(t, cfg.FourLetterAllowed("ruok"))
}

func TestKnownNamesTheImagesVariables(t *testing.T) {
	known := Known()
	for _, v := range []string{"ZOO_MY_ID", "ZOO_SERVERS", "ZOO_CFG_EXTRA", "ZKRAFT_SERVER_LINE", "SERVER_JVMFLAGS"} {
		require.Contains(t, known, v)
	}
}
