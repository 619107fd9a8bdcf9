package server

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
)

// TestServerLinesWithIPv6Hosts: an IPv6 host is written in brackets in a
// server line, as ZooKeeper wants it, and /zookeeper/config writes it back
// the same way; an unbracketed or malformed one is refused.
func TestServerLinesWithIPv6Hosts(t *testing.T) {
	p, err := parseServerLine(1, "[2001:db8::1]:2888:3888:observer;[2001:db8::1]:2181")
	require.NoError(t, err)
	require.Equal(t, consensus.Peer{ID: 1, RaftAddr: "[2001:db8::1]:2888", ForwardAddr: "[2001:db8::1]:3888",
		Client: "[2001:db8::1]:2181", Observer: true}, p)
	q, err := parseServerLine(2, "10.0.0.2:2888:3888;2181")
	require.NoError(t, err)
	require.Equal(t, "server.1=[2001:db8::1]:2888:3888:observer;[2001:db8::1]:2181\n"+
		"server.2=10.0.0.2:2888:3888:participant;0.0.0.0:2181\nversion=0",
		string(consensus.FormatMembership([]consensus.Peer{p, q}, 0)))

	for _, bad := range []string{"2001:db8::1:2888:3888", "[2001:db8::1:2888:3888", "[2001:db8::1]2888:3888",
		"[not-an-ip]:2888:3888", "[2001:db8::1]:2888"} {
		_, err := parseServerLine(3, bad)
		require.ErrorIs(t, err, errServerForm, bad)
	}
}
