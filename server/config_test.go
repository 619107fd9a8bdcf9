package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func parseCfg(text string) (Config, error) {
	return ParseConfig(strings.NewReader(text), "")
}

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, c.Validate())
	require.Equal(t, 2*time.Second, c.TickTime)
	require.Equal(t, 2181, c.ClientPort)
	require.Equal(t, "127.0.0.1", c.ClientPortAddress)
	require.Empty(t, c.DataDir)
	require.Equal(t, 4*time.Second, c.MinSession())
	require.Equal(t, 40*time.Second, c.MaxSession())
	require.Equal(t, 60, c.MaxClientCnxns)
	require.Equal(t, 0xfffff, c.MaxBuffer)
	require.True(t, c.FourLetterAllowed("stat"))
	require.False(t, c.AdminEnableServer)
	require.True(t, c.StandaloneEnabled)
	require.Equal(t, 60*time.Second, c.ContainerCheckInterval)
}

const sampleCfg = `# The number of milliseconds of each tick
tickTime=2000
# The number of ticks that the initial
# synchronization phase can take
initLimit=10
syncLimit=5
dataDir=%DIR%
# the port at which the clients will connect
clientPort=2181
#maxClientCnxns=60
#autopurge.snapRetainCount=3
`

func TestParseSampleConfig(t *testing.T) {
	dir := t.TempDir()
	c, err := parseCfg(strings.ReplaceAll(sampleCfg, "%DIR%", dir))
	require.NoError(t, err)
	want := zooDefaults()
	want.TickTime = 2 * time.Second
	want.InitLimit, want.SyncLimit = 10, 5
	want.DataDir, want.DataLogDir = dir, dir
	want.ClientPort = 2181
	require.Equal(t, want, c)
	require.Empty(t, c.Ignored)
	require.Empty(t, c.ClientPortAddress, "all interfaces")
	require.True(t, c.AdminEnableServer)
	require.True(t, c.FourLetterAllowed("srvr"))
	require.False(t, c.FourLetterAllowed("stat"))
}

func TestParseConfigKeys(t *testing.T) {
	tests := []struct {
		line  string
		check func(t *testing.T, c Config)
	}{
		{"tickTime=500", func(t *testing.T, c Config) {
			require.Equal(t, 500*time.Millisecond, c.TickTime)
			require.Equal(t, time.Second, c.MinSession())
			require.Equal(t, 10*time.Second, c.MaxSession())
		}},
		{"clientPortAddress=10.0.0.1", func(t *testing.T, c Config) { require.Equal(t, "10.0.0.1", c.ClientPortAddress) }},
		{"dataLogDir=/var/log/zk", func(t *testing.T, c Config) { require.Equal(t, "/var/log/zk", c.DataLogDir) }},
		{"maxClientCnxns=0", func(t *testing.T, c Config) { require.Zero(t, c.MaxClientCnxns) }},
		{"minSessionTimeout=1000", func(t *testing.T, c Config) { require.Equal(t, time.Second, c.MinSession()) }},
		{"maxSessionTimeout=90000", func(t *testing.T, c Config) { require.Equal(t, 90*time.Second, c.MaxSession()) }},
		{"minSessionTimeout=-1", func(t *testing.T, c Config) { require.Equal(t, 6*time.Second, c.MinSession()) }},
		{"reconfigEnabled=TRUE", func(t *testing.T, c Config) { require.True(t, c.ReconfigEnabled) }},
		{"standaloneEnabled=false", func(t *testing.T, c Config) { require.False(t, c.StandaloneEnabled) }},
		{"4lw.commands.whitelist= stat , ruok,,", func(t *testing.T, c Config) {
			require.Equal(t, []string{"stat", "ruok"}, c.FourLetterWhitelist)
		}},
		{"4lw.commands.whitelist=stat, *", func(t *testing.T, c Config) { require.Equal(t, []string{"*"}, c.FourLetterWhitelist) }},
		{"zookeeper.4lw.commands.whitelist=mntr", func(t *testing.T, c Config) { require.Equal(t, []string{"mntr"}, c.FourLetterWhitelist) }},
		{"extendedTypesEnabled=true", func(t *testing.T, c Config) { require.True(t, c.ExtendedTypesEnabled) }},
		{"zookeeper.extendedTypesEnabled=true", func(t *testing.T, c Config) { require.True(t, c.ExtendedTypesEnabled) }},
		{"DigestAuthenticationProvider.superDigest=super:D/InIHSb7yEEbrWz8b9l71RjZJU=", func(t *testing.T, c Config) {
			require.Equal(t, "super:D/InIHSb7yEEbrWz8b9l71RjZJU=", c.SuperDigest)
		}},
		{"zookeeper.DigestAuthenticationProvider.superDigest=super:x=", func(t *testing.T, c Config) { require.Equal(t, "super:x=", c.SuperDigest) }},
		{"jute.maxbuffer=4194304", func(t *testing.T, c Config) { require.Equal(t, 4194304, c.MaxBuffer) }},
		{"jute.maxbuffer=0x400000", func(t *testing.T, c Config) { require.Equal(t, 0x400000, c.MaxBuffer) }},
		{"admin.enableServer=false", func(t *testing.T, c Config) { require.False(t, c.AdminEnableServer) }},
		{"zookeeper.admin.serverAddress=127.0.0.1", func(t *testing.T, c Config) { require.Equal(t, "127.0.0.1", c.AdminServerAddress) }},
		{"admin.serverPort=9090", func(t *testing.T, c Config) { require.Equal(t, 9090, c.AdminServerPort) }},
		{"admin.commandURL=/cmd", func(t *testing.T, c Config) { require.Equal(t, "/cmd", c.AdminCommandURL) }},
		{"snapCount=5000", func(t *testing.T, c Config) { require.Equal(t, 5000, c.SnapCount) }},
		{"zookeeper.snapCount=1", func(t *testing.T, c Config) { require.Equal(t, 2, c.SnapCount) }},
		{"snapSizeLimitInKb=1024", func(t *testing.T, c Config) { require.Equal(t, int64(1<<20), c.SnapSizeLimit) }},
		{"zookeeper.snapSizeLimitInKb=0", func(t *testing.T, c Config) { require.Equal(t, int64(-1), c.SnapSizeLimit) }},
		{"snapSizeLimitInKb=-5", func(t *testing.T, c Config) { require.Equal(t, int64(-1), c.SnapSizeLimit) }},
		{"tickTime=2000", func(t *testing.T, c Config) { require.Zero(t, c.SnapSizeLimit, "unset: follows the snapshot's size") }},
		{"localSessionsEnabled=true", func(t *testing.T, c Config) {
			require.True(t, c.LocalSessionsEnabled)
			require.False(t, c.LocalSessionsUpgradingEnabled, "ZooKeeper 3.8's default: no upgrade")
		}},
		{"localSessionsEnabled=true\nlocalSessionsUpgradingEnabled=true", func(t *testing.T, c Config) { require.True(t, c.LocalSessionsUpgradingEnabled) }},
		{"readonlymode.enabled=true", func(t *testing.T, c Config) {
			require.True(t, c.ReadOnlyMode)
			require.True(t, c.FourLetterAllowed("isro"))
		}},
		{"znode.container.checkIntervalMs=1000", func(t *testing.T, c Config) { require.Equal(t, time.Second, c.ContainerCheckInterval) }},
		{"znode.container.maxNeverUsedIntervalMs=300000", func(t *testing.T, c Config) {
			require.Equal(t, 5*time.Minute, c.ContainerMaxNeverUsed)
		}},
		{"zookeeper.nio.sessionlessCnxnTimeout=2500", func(t *testing.T, c Config) {
			require.Equal(t, 2500*time.Millisecond, c.SessionlessCnxnTimeout)
		}},
		{"nio.sessionlessCnxnTimeout=500", func(t *testing.T, c Config) { require.Equal(t, 500*time.Millisecond, c.SessionlessCnxnTimeout) }},
		{"zkraft.clientOutputLimit=0x2000000", func(t *testing.T, c Config) { require.Equal(t, 32<<20, c.connOutputLimit()) }},
		{"zkraft.totalClientOutputLimit=1073741824", func(t *testing.T, c Config) { require.Equal(t, int64(1<<30), c.totalOutputLimit()) }},
		{"jute.maxbuffer=8388608", func(t *testing.T, c Config) {
			require.Equal(t, 32<<20, c.connOutputLimit(), "at least 4 * jute.maxbuffer")
		}},
		{"server.1=localhost:2888:3888", func(t *testing.T, c Config) {
			require.Equal(t, map[int64]string{1: "localhost:2888:3888"}, c.Servers)
			require.Empty(t, c.Ignored)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			c, err := parseCfg("clientPort=2181\n" + tc.line + "\n")
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"clientPort=2181\ntickTime=abc", `zoo.cfg:2: tickTime: "abc" is not an integer`},
		{"clientPort=2181\ntickTime=0", `zoo.cfg:2: tickTime: "0" must be positive`},
		{"tickTime=99999999999\nclientPort=2181", `zoo.cfg:1: tickTime: "99999999999" is out of range`},
		{"clientPort=0", `zoo.cfg:1: clientPort: "0" is not a valid port (1-65535)`},
		{"clientPort=65536", `zoo.cfg:1: clientPort: "65536" is not a valid port (1-65535)`},
		{"clientPort=21 81", `zoo.cfg:1: clientPort: "21 81" is not an integer`},
		{"clientPort=2181\nmaxClientCnxns=-1", `zoo.cfg:2: maxClientCnxns: "-1" must not be less than 0`},
		{"clientPort=2181\nminSessionTimeout=-5", `zoo.cfg:2: minSessionTimeout: "-5" must not be negative`},
		{"clientPort=2181\nminSessionTimeout=50000\nmaxSessionTimeout=40000",
			`zoo.cfg:3: maxSessionTimeout: minSessionTimeout 50s is larger than maxSessionTimeout 40s`},
		{"clientPort=2181\ntickTime=2000\nminSessionTimeout=50000",
			`zoo.cfg:3: minSessionTimeout: minSessionTimeout 50s is larger than maxSessionTimeout 40s`},
		{"clientPort=2181\ninitLimit=", `zoo.cfg:2: initLimit: "" is not an integer`},
		{"clientPort=2181\nreconfigEnabled=yes", `zoo.cfg:2: reconfigEnabled: "yes" is not a boolean (true or false)`},
		{"clientPort=2181\nzookeeper.extendedTypesEnabled=1",
			`zoo.cfg:2: zookeeper.extendedTypesEnabled: "1" is not a boolean (true or false)`},
		{"clientPort=2181\njute.maxbuffer=0", `zoo.cfg:2: jute.maxbuffer: "0" is out of range (1-2147483647)`},
		{"clientPort=2181\njute.maxbuffer=1M", `zoo.cfg:2: jute.maxbuffer: "1M" is not an integer`},
		{"clientPort=2181\nadmin.serverPort=x", `zoo.cfg:2: admin.serverPort: "x" is not an integer`},
		{"clientPort=2181\nserver.a=h:1:2", `zoo.cfg:2: server.a: "a" is not a server id`},
		{"clientPort=2181\nelectionAlg=1", `zoo.cfg:2: electionAlg: "1" is not supported (only 3)`},
		{"clientPort=2181\npeerType=leader", `zoo.cfg:2: peerType: "leader" is not observer or participant`},
		{"clientPort=2181\nlocalSessionsEnabled=maybe", `zoo.cfg:2: localSessionsEnabled: "maybe" is not a boolean (true or false)`},
		{"clientPort=2181\nsecureClientPort=x", `zoo.cfg:2: secureClientPort: "x" is not an integer`},
		{"tickTime=2000", `zoo.cfg: clientPort is not set`},
		{"clientPortAddress=0.0.0.0", `zoo.cfg:1: clientPortAddress: clientPortAddress is set but clientPort is not set`},
		{"clientPort=2181\nserver.1=a:1:2\nserver.2=b:1:2\nserver.3=c:1:2", `zoo.cfg: initLimit is not set`},
		{"clientPort=2181\ninitLimit=5\nserver.1=a:1:2\nserver.2=b:1:2", `zoo.cfg: syncLimit is not set`},
		{"clientPort=2181\ninitLimit=5\nsyncLimit=2\nserver.1=a:1:2\nserver.2=b:1:2",
			`zoo.cfg: dataDir is not set (an ensemble needs dataDir/myid)`},
	}
	for _, tc := range tests {
		_, err := parseCfg(tc.text)
		require.EqualError(t, err, tc.want, "config:\n%s", tc.text)
	}
}

func TestParseConfigSyntax(t *testing.T) {
	text := "  # indented comment\r\n" +
		"! bang comment\n" +
		"\n" +
		"clientPort : 2181  \r\n" +
		"tickTime 1000\n" +
		"\tmaxClientCnxns\t=\t10\n" +
		"maxSessionTimeout=\\\n" +
		"    30000\n" +
		"4lw.commands.whitelist=stat,\\\n" +
		"   ruok\n" +
		"clientPortAddress=\\u0031\\u0032\\u0037.0.0.1\n" +
		"my\\ key=v\n" +
		"maxClientCnxns=20\n"
	c, err := parseCfg(text)
	require.NoError(t, err)
	require.Equal(t, 2181, c.ClientPort)
	require.Equal(t, time.Second, c.TickTime)
	require.Equal(t, 20, c.MaxClientCnxns, "last duplicate wins")
	require.Equal(t, 30*time.Second, c.MaxSession())
	require.Equal(t, []string{"stat", "ruok"}, c.FourLetterWhitelist)
	require.Equal(t, "127.0.0.1", c.ClientPortAddress)
	require.Equal(t, []string{"my key"}, c.Ignored)
}

func TestParseConfigDuplicateErrorLine(t *testing.T) {
	_, err := parseCfg("clientPort=2181\ntickTime=x\ntickTime=y\n")
	require.EqualError(t, err, `zoo.cfg:3: tickTime: "y" is not an integer`)
	c, err := parseCfg("clientPort=2181\ntickTime=x\ntickTime=100\n")
	require.NoError(t, err, "an overridden bad value is ignored, as by Properties")
	require.Equal(t, 100*time.Millisecond, c.TickTime)
}

func TestParseConfigIgnored(t *testing.T) {
	c, err := parseCfg(`clientPort=2181
autopurge.snapRetainCount=3
autopurge.purgeInterval=1
metricsProvider.numWorkerThreads=1
forceSync=no
zookeeper.skipACL=yes
electionAlg=3
frobnicate=12
`)
	require.NoError(t, err)
	require.Equal(t, []string{
		"autopurge.purgeInterval", "metricsProvider.numWorkerThreads",
		"zookeeper.skipACL", "electionAlg", "frobnicate",
	}, c.Ignored)
	require.Equal(t, 3, c.SnapRetainCount)
	require.False(t, c.ForceSync, "forceSync=no")
}

func TestForceSyncDefaultsToYes(t *testing.T) {
	c, err := parseCfg("clientPort=2181\n")
	require.NoError(t, err)
	require.True(t, c.ForceSync)
	c, err = parseCfg("clientPort=2181\nforceSync=YES\n")
	require.NoError(t, err)
	require.True(t, c.ForceSync)
}

func TestParseConfigMyID(t *testing.T) {
	dir := t.TempDir()
	cfg := "dataDir=" + dir + "\nclientPort=2181\n"

	c, err := parseCfg(cfg)
	require.NoError(t, err)
	require.Zero(t, c.ServerID, "absent myid is fine standalone")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "myid"), []byte(" 3\n"), 0o644))
	c, err = parseCfg(cfg)
	require.NoError(t, err)
	require.EqualValues(t, 3, c.ServerID)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "myid"), []byte("three\n"), 0o644))
	_, err = parseCfg(cfg)
	require.EqualError(t, err, `zoo.cfg: `+filepath.Join(dir, "myid")+`: "three" is not an integer`)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "myid"), []byte("-2"), 0o644))
	_, err = parseCfg(cfg)
	require.ErrorContains(t, err, `"-2" must not be negative`)
}

func TestParseConfigEnsemble(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "myid"), []byte("2\n"), 0o644))
	base := "dataDir=" + dir + "\ninitLimit=10\nsyncLimit=5\n" +
		"server.1=zk1:2888:3888;2181\nserver.3=zk3:2888:3888;2181\n"

	c, err := parseCfg(base + "server.2=zk2:2888:3888;10.0.0.2:2182\n")
	require.NoError(t, err)
	require.EqualValues(t, 2, c.ServerID)
	require.Equal(t, 2182, c.ClientPort, "taken from this server's line")
	require.Equal(t, "10.0.0.2", c.ClientPortAddress)
	require.Len(t, c.Servers, 3)
	require.Equal(t, "zk2:2888:3888;10.0.0.2:2182", c.Servers[2])
	require.Equal(t, dir, c.DataLogDir)

	_, err = parseCfg(base + "clientPort=2181\nserver.2=zk2:2888:3888;2182\n")
	require.EqualError(t, err, "zoo.cfg:7: server.2: client port 2182 differs from clientPort 2181")

	_, err = parseCfg(base + "server.2=zk2:2888:3888;x\n")
	require.EqualError(t, err, `zoo.cfg:6: server.2: "zk2:2888:3888;x": client port: "x" is not an integer`)

	c, err = parseCfg(base + "clientPort=2181\nserver.2=zk2:2888:3888:participant\n")
	require.NoError(t, err)
	require.Equal(t, 2181, c.ClientPort)

	require.NoError(t, os.Remove(filepath.Join(dir, "myid")))
	_, err = parseCfg(base + "clientPort=2181\n")
	require.EqualError(t, err, "zoo.cfg: myid file is missing from "+dir)
}

func TestParseConfigSingleServerLine(t *testing.T) {
	c, err := parseCfg("clientPort=2181\nserver.1=localhost:2888:3888\n")
	require.NoError(t, err, "one server with standaloneEnabled runs standalone")
	require.Zero(t, c.ServerID)
	_, err = parseCfg("clientPort=2181\nstandaloneEnabled=false\nserver.1=localhost:2888:3888\n")
	require.EqualError(t, err, "zoo.cfg: initLimit is not set")
}

func TestParseConfigExtendedTypesServerID(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "myid"), []byte("300"), 0o644))
	_, err := parseCfg("clientPort=2181\nextendedTypesEnabled=true\ndataDir=" + dir + "\n")
	require.EqualError(t, err, "zoo.cfg: extendedTypesEnabled is true but server id 300 is larger than 254")
}

func TestParseConfigRelativeDirs(t *testing.T) {
	c, err := ParseConfig(strings.NewReader("clientPort=1\ndataDir=data\ndataLogDir=/abs/log\n"), "/base")
	require.NoError(t, err)
	require.Equal(t, filepath.Join("/base", "data"), c.DataDir)
	require.Equal(t, "/abs/log", c.DataLogDir)
	c, err = parseCfg("clientPort=1\ndataDir=data\n")
	require.NoError(t, err)
	require.Equal(t, "data", c.DataDir)
}

func TestParseConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zoo.cfg")
	require.NoError(t, os.WriteFile(path, []byte("clientPort=2181\n\ntickTime=2s\n"), 0o644))
	_, err := ParseConfigFile(path)
	require.EqualError(t, err, path+`:3: tickTime: "2s" is not an integer`)

	require.NoError(t, os.WriteFile(path, []byte("clientPort=2190\n"), 0o644))
	c, err := ParseConfigFile(path)
	require.NoError(t, err)
	require.Equal(t, 2190, c.ClientPort)
	require.Equal(t, 3*time.Second, c.TickTime, "ZooKeeper's default when absent")

	_, err = ParseConfigFile(filepath.Join(t.TempDir(), "missing.cfg"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestFourLetterAllowed(t *testing.T) {
	tests := []struct {
		list []string
		ro   bool
		cmd  string
		want bool
	}{
		{[]string{"srvr"}, false, "srvr", true},
		{[]string{"srvr"}, false, "stat", false},
		{[]string{"srvr"}, false, "isro", false},
		{[]string{"srvr"}, true, "isro", true},
		{[]string{"ruok"}, false, "srvr", true}, // srvr is always on
		{[]string{"ruok"}, false, "ruok", true},
		{[]string{"ruok"}, false, "RUOK", false},
		{[]string{}, false, "srvr", true},
		{[]string{"*"}, false, "mntr", true},
		{nil, false, "stat", false},
	}
	for _, tc := range tests {
		c := Config{FourLetterWhitelist: tc.list, ReadOnlyMode: tc.ro}
		require.Equal(t, tc.want, c.FourLetterAllowed(tc.cmd), "%+v", tc)
	}
}

func TestValidate(t *testing.T) {
	mod := func(f func(*Config)) Config { c := DefaultConfig(); f(&c); return c }
	require.NoError(t, mod(func(c *Config) { c.ClientPort = 0 }).Validate(), "0 = any free port")
	tests := []struct {
		c    Config
		want string
	}{
		{mod(func(c *Config) { c.TickTime = 0 }), "tickTime 0s must be positive"},
		{mod(func(c *Config) { c.ClientPort = 70000 }), "clientPort 70000 is not a valid port"},
		{mod(func(c *Config) { c.MaxClientCnxns = -1 }), "maxClientCnxns -1 must not be negative"},
		{mod(func(c *Config) { c.MinSessionTimeout = time.Minute }), "minSessionTimeout 1m0s is larger than maxSessionTimeout 40s"},
		{mod(func(c *Config) { c.MaxBuffer = 0 }), "jute.maxbuffer 0 must be positive"},
		{mod(func(c *Config) { c.ServerID = -1 }), "server id -1 must not be negative"},
		{mod(func(c *Config) { c.ExtendedTypesEnabled, c.ServerID = true, 255 }),
			"extendedTypesEnabled is true but server id 255 is larger than 254"},
	}
	for _, tc := range tests {
		require.EqualError(t, tc.c.Validate(), tc.want)
	}
}

func TestParseDecoded(t *testing.T) {
	good := map[string]int64{"10": 10, "+10": 10, "-10": -10, "0x1F": 31, "0X1f": 31, "#ff": 255, "010": 8, "0": 0}
	for in, want := range good {
		n, err := parseDecoded(in)
		require.NoError(t, err, in)
		require.Equal(t, want, n, in)
	}
	for _, in := range []string{"", "-", "0x", "#", "08", "1_000", "--1", "+-1", "0x-1", "1e3"} {
		_, err := parseDecoded(in)
		require.Error(t, err, in)
	}
}

func TestParseConfigServerLineErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "myid"), []byte("1\n"), 0o644))
	base := "dataDir=" + dir + "\ninitLimit=10\nsyncLimit=5\nclientPort=2181\nserver.1=zk1:2888:3888\n"
	tests := []struct{ line, want string }{
		{"server.2=zk2:2888", `zoo.cfg:6: server.2: "zk2:2888": want host:peerPort:electionPort[:participant|observer][;[clientAddress:]clientPort]`},
		{"server.2=zk2", `zoo.cfg:6: server.2: "zk2": want host:peerPort:electionPort`},
		{"server.2=zk2:28x8:3888", `zoo.cfg:6: server.2: "zk2:28x8:3888": peer port: "28x8" is not an integer`},
		{"server.2=zk2:2888:99999", `zoo.cfg:6: server.2: "zk2:2888:99999": election port: "99999" is not a valid port (1-65535)`},
		{"server.2=zk2:2888:3888:leader", `zoo.cfg:6: server.2: "zk2:2888:3888:leader": role "leader" is neither participant nor observer`},
		{"server.2=zk2:2888:3888;cl:x", `zoo.cfg:6: server.2: "zk2:2888:3888;cl:x": client port: "x" is not an integer`},
	}
	for _, tc := range tests {
		_, err := parseCfg(base + tc.line + "\n")
		require.ErrorContains(t, err, tc.want, tc.line)
	}
}

func TestParseConfigMyIDWithoutServerLine(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "myid"), []byte("4\n"), 0o644))
	path := filepath.Join(t.TempDir(), "zoo.cfg")
	require.NoError(t, os.WriteFile(path, []byte("dataDir="+dir+"\ninitLimit=10\nsyncLimit=5\nclientPort=2181\n"+
		"server.1=zk1:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n"), 0o644))
	_, err := ParseConfigFile(path)
	require.EqualError(t, err, filepath.Join(dir, "myid")+":1: myid: 4: "+path+
		" has no server.4 line (it has server.1, server.2, server.3)")
}

func TestParseConfigIgnoredKeys(t *testing.T) {
	c, err := parseCfg(`clientPort=2181
autopurge.purgeInterval=1
tickTme=2000
metricsProvider.maxQueueSize=10
frobnicate=12
zookeeper.skipACL=yes
clientport=2181
group.1=1:2:3
syncLimt=5
`)
	require.NoError(t, err)
	var got []string
	for _, k := range c.IgnoredKeys {
		got = append(got, k.String())
	}
	require.Equal(t, []string{
		"zoo.cfg:2: autopurge.purgeInterval: ignored: not supported by zkraft",
		"zoo.cfg:3: tickTme: ignored: unknown key (did you mean tickTime?)",
		"zoo.cfg:4: metricsProvider.maxQueueSize: ignored: not supported by zkraft",
		"zoo.cfg:5: frobnicate: ignored: unknown key",
		"zoo.cfg:6: zookeeper.skipACL: ignored: not supported by zkraft",
		"zoo.cfg:7: clientport: ignored: unknown key (did you mean clientPort?)",
		"zoo.cfg:8: group.1: ignored: not supported by zkraft",
		"zoo.cfg:9: syncLimt: ignored: unknown key (did you mean syncLimit?)",
	}, got)
}

func TestClosestKey(t *testing.T) {
	require.Equal(t, "dataDir", closestKey("dataDri"))
	require.Equal(t, "maxClientCnxns", closestKey("maxClientCnxn"))
	require.Empty(t, closestKey("abc"), "too short to guess")
	require.Empty(t, closestKey("completelyDifferent"))
}
