package consensus

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// startEnsembleLinks starts an ensemble whose links between servers time
// out after linkTimeout, and waits for its leader.
func startEnsembleLinks(t *testing.T, n int, linkTimeout time.Duration) ([]*Node, []Peer) {
	t.Helper()
	nodes, peers := startEnsembleWith(t, n, func(c *Config) { c.ElectionTimeout, c.LinkTimeout = time.Second, linkTimeout })
	require.Eventually(t, func() bool { return leaderOf(nodes) >= 0 }, 20*time.Second, 5*time.Millisecond)
	return nodes, peers
}

// requireClosedWithin asserts the server end closes nc, sending nothing,
// before the deadline (a timeout means the server kept the stalled link).
func requireClosedWithin(t *testing.T, nc net.Conn, d time.Duration) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(d))
	n, err := io.Copy(io.Discard, nc)
	require.NoError(t, err, "the server kept a stalled link open")
	require.Zero(t, n)
}

// A peer that connects to the forwarding or the Raft port and then stalls
// (nothing at all, or half a frame) is closed after the link timeout
// instead of holding a goroutine and a descriptor for good (issue 12).
func TestStalledPeerLinksAreClosed(t *testing.T) {
	const linkTimeout = 300 * time.Millisecond
	nodes, peers := startEnsembleLinks(t, 3, linkTimeout)
	leader := peers[leaderOf(nodes)]
	dial := func(addr string) net.Conn {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { nc.Close() })
		return nc
	}
	silentForward := dial(leader.ForwardAddr)
	halfForward := dial(leader.ForwardAddr)
	halfForward.Write(binary.BigEndian.AppendUint32(nil, 1000))
	halfForward.Write([]byte{0, 0, 0, 2})
	silentRaft := dial(leader.RaftAddr)
	for _, nc := range []net.Conn{silentForward, halfForward, silentRaft} {
		requireClosedWithin(t, nc, 10*time.Second)
	}
}

// A follower's idle forwarding connection survives the link timeout: its
// keepalive is what the leader reads. (An election during the idle period
// replaces the connection legitimately; the check then starts over.)
func TestIdleForwardingLinkIsKeptAlive(t *testing.T) {
	const linkTimeout = 200 * time.Millisecond
	nodes, _ := startEnsembleLinks(t, 3, linkTimeout)
	for attempt := 1; ; attempt++ {
		if idleLinkSurvives(t, nodes, linkTimeout) {
			return
		}
		require.Less(t, attempt, 5, "leadership kept changing")
	}
}

// idleLinkSurvives forwards a proposal from a follower, leaves the link
// idle for 5 link timeouts and checks it is the same connection; it
// reports false if the leader changed meanwhile.
func idleLinkSurvives(t *testing.T, nodes []*Node, linkTimeout time.Duration) bool {
	t.Helper()
	require.Eventually(t, func() bool { return leaderOf(nodes) >= 0 }, 20*time.Second, 5*time.Millisecond)
	leader := leaderOf(nodes)
	f := nodes[(leader+1)%3]
	require.Eventually(t, f.HasLeader, 10*time.Second, 5*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := f.Propose(ctx, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/a", ACL: wire.OpenACLUnsafe})); err != nil {
		return false // no leader at that moment
	}
	conn := func() net.Conn {
		f.fwdCli.mu.Lock()
		defer f.fwdCli.mu.Unlock()
		return f.fwdCli.conn
	}
	first := conn()
	require.NotNil(t, first)
	deadline := time.Now().Add(5 * linkTimeout)
	for time.Now().Before(deadline) {
		if conn() != first {
			if leaderOf(nodes) != leader {
				return false
			}
			t.Fatal("the leader dropped an idle follower's forwarding connection")
		}
		time.Sleep(linkTimeout / 4) // observing an interval, not synchronising
	}
	return leaderOf(nodes) == leader
}
