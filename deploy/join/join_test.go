package join

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAddressesOfServerLines(t *testing.T) {
	cases := []struct{ line, client, peer string }{
		{"server.1=zoo1:2888:3888;2181", "zoo1:2181", "zoo1:2888"},
		{"zk-3.zk-hs:2888:3888;2181", "zk-3.zk-hs:2181", "zk-3.zk-hs:2888"},
		{"server.2=10.0.0.2:2888:3888:participant;0.0.0.0:2181", "10.0.0.2:2181", "10.0.0.2:2888"},
		{"server.3=a:1:2:observer;127.0.0.9:2189", "127.0.0.9:2189", "a:1"},
		{"server.4=[2001:db8::4]:2888:3888;2181", "[2001:db8::4]:2181", "[2001:db8::4]:2888"},
		{"server.5=[::1]:1:2:participant;[::1]:2185", "[::1]:2185", "[::1]:1"},
	}
	for _, tc := range cases {
		c, err := ClientAddr(tc.line)
		require.NoError(t, err, tc.line)
		require.Equal(t, tc.client, c, tc.line)
		p, err := PeerAddr(tc.line)
		require.NoError(t, err, tc.line)
		require.Equal(t, tc.peer, p, tc.line)
	}
	_, err := ClientAddr("server.1=zoo1:2888:3888")
	require.ErrorIs(t, err, ErrServerLine, "no client port: nothing to ask")
	_, err = PeerAddr("server.1=zoo1;2181")
	require.ErrorIs(t, err, ErrServerLine)
	require.Equal(t, []string{"a:2181"}, ClientAddrs([]string{"server.1=a:1:2;2181", "server.2=b:1:2"}))
}

func TestOwnLineAndListed(t *testing.T) {
	lines := []string{"server.1=a:1:2;3", "server.12=b:1:2;3"}
	require.Equal(t, "b:1:2;3", OwnLine(lines, 12))
	require.Equal(t, "", OwnLine(lines, 2), "server.12 is not server.1 or server.2")
	require.True(t, listed(lines, "server.1"))
	require.False(t, listed(lines, "server.2"))
}
