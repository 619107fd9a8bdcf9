package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDynamicConfigFile: the membership of a ZooKeeper 3.5+ zoo.cfg that
// names a dynamicConfigFile comes from that file, its version from the
// file's name; a
// relative name is resolved as dataDir is; server (or group, weight) lines
// in zoo.cfg as well, a missing file, a key ZooKeeper does not allow in
// the file or a bad line are errors naming the file and line.
func TestDynamicConfigFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(data, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "myid"), []byte("2\n"), 0o644))
	dyn := "server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181\n" +
		"server.2=10.0.0.2:2888:3888:participant;0.0.0.0:2181\n" +
		"server.3=10.0.0.3:2888:3888:observer;0.0.0.0:2181\n" +
		"group.1=1:2\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zoo.cfg.dynamic.100000000"), []byte(dyn), 0o644))

	base := "tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir=data\nreconfigEnabled=true\n"
	c, err := ParseConfig(strings.NewReader(base+"dynamicConfigFile=zoo.cfg.dynamic.100000000\n"), dir)
	require.NoError(t, err)
	require.Len(t, c.Servers, 3)
	require.Equal(t, "10.0.0.2:2888:3888:participant;0.0.0.0:2181", c.Servers[2])
	require.Equal(t, int64(0x100000000), c.MembershipVersion)
	require.Equal(t, int64(2), c.ServerID)
	require.Equal(t, 2181, c.ClientPort, "the client port comes from this server's line")
	require.Equal(t, []string{"group.1"}, c.Ignored, "as in zoo.cfg, hierarchical quorums are not offered")

	_, err = ParseConfig(strings.NewReader(base+"dynamicConfigFile=zoo.cfg.dynamic.100000000\nserver.1=10.0.0.1:2888:3888\n"), dir)
	require.ErrorIs(t, err, ErrStaticServerLines)
	require.Contains(t, err.Error(), "zoo.cfg:7: server.1")

	_, err = ParseConfig(strings.NewReader(base+"dynamicConfigFile=zoo.cfg.dynamic.missing\n"), dir)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Contains(t, err.Error(), "dynamicConfigFile")

	bad := filepath.Join(dir, "bad.dynamic.200000000")
	require.NoError(t, os.WriteFile(bad, []byte("server.1=10.0.0.1:2888:3888\nversion=200000000\n"), 0o644))
	_, err = ParseConfig(strings.NewReader(base+"dynamicConfigFile="+bad+"\n"), dir)
	require.ErrorIs(t, err, ErrVersionInside, "as ZooKeeper: the version is the name's")
	require.Contains(t, err.Error(), bad+":2: version")

	plain := filepath.Join(dir, "zoo.cfg.dynamic")
	// QuorumPeerConfig.parseDynamicConfig: "Observers w/o quorum is an invalid configuration".
	require.NoError(t, os.WriteFile(plain, []byte("server.2=10.0.0.2:2888:3888;2181\nserver.3=10.0.0.3:2888:3888:observer;2181\n"), 0o644))
	_, err = ParseConfig(strings.NewReader(base+"dynamicConfigFile="+plain+"\n"), dir)
	require.ErrorIs(t, err, ErrObserversWithoutQuorum, "one participant runs standalone under standaloneEnabled")
	_, err = ParseConfig(strings.NewReader(base+"standaloneEnabled=false\ndynamicConfigFile="+plain+"\n"), dir)
	require.NoError(t, err, "a quorum of one participant may have observers")
	require.NoError(t, os.WriteFile(plain, []byte("server.2=10.0.0.2:2888:3888:observer;2181\n"), 0o644))
	_, err = ParseConfig(strings.NewReader(base+"standaloneEnabled=false\ndynamicConfigFile="+plain+"\n"), dir)
	require.ErrorIs(t, err, ErrObserversWithoutQuorum, "no participant at all")
	for _, tc := range []struct{ cfg, dyn, at string }{
		// QuorumPeerConfig.parseDynamicConfig: "Unrecognised parameter: clientPort".
		{"", "server.1=10.0.0.1:2888:3888\nclientPort=2181\n", plain + ":2: clientPort"},
		// QuorumPeerConfig.parseProperties: "parameter: group.1 must be in a separate dynamic config file".
		{"group.1=1\n", "server.1=10.0.0.1:2888:3888\n", "zoo.cfg:7: group.1"},
		{"weight.1=1\n", "server.1=10.0.0.1:2888:3888\n", "zoo.cfg:7: weight.1"},
	} {
		require.NoError(t, os.WriteFile(plain, []byte(tc.dyn), 0o644))
		_, err = ParseConfig(strings.NewReader(base+"dynamicConfigFile="+plain+"\n"+tc.cfg), dir)
		require.Error(t, err, "ZooKeeper 3.8 refuses to start on this too")
		require.Contains(t, err.Error(), tc.at)
		if tc.cfg == "" {
			require.ErrorIs(t, err, ErrDynamicKey)
		} else {
			require.ErrorIs(t, err, ErrStaticServerLines)
		}
	}

	require.NoError(t, os.WriteFile(plain, []byte("server.2=10.0.0.2:2888:3888;2181\n"), 0o644))
	c, err = ParseConfig(strings.NewReader(base+"dynamicConfigFile="+plain+"\n"), dir)
	require.NoError(t, err)
	require.Zero(t, c.MembershipVersion, "a name without a hex suffix gives version 0")

	c, err = ParseConfig(strings.NewReader(base+"clientPort=2181\nserver.1=10.0.0.1:2888:3888\nserver.2=10.0.0.2:2888:3888\n"), dir)
	require.NoError(t, err)
	require.Zero(t, c.MembershipVersion, "server lines in zoo.cfg have version 0")
}
