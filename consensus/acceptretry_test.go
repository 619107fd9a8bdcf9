package consensus

import (
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
)

// emfileNet is the real network whose listeners can be made to fail
// their accepts with EMFILE, one listening address at a time.
type emfileNet struct {
	TCP
	mu        sync.Mutex
	listeners map[string]*emfileListener
}

func (n *emfileNet) Listen(addr string) (net.Listener, error) {
	ln, err := n.TCP.Listen(addr)
	if err != nil {
		return nil, err
	}
	el := &emfileListener{Listener: ln}
	n.mu.Lock()
	if n.listeners == nil {
		n.listeners = map[string]*emfileListener{}
	}
	n.listeners[addr] = el
	n.mu.Unlock()
	return el, nil
}

func (n *emfileNet) listener(addr string) *emfileListener {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.listeners[addr]
}

// emfileListener models a process out of descriptors: while failing,
// a connection that arrives stays pending (as in the kernel's backlog)
// and every accept returns EMFILE; once the fault clears, the pending
// connections are accepted first.
type emfileListener struct {
	net.Listener
	mu      sync.Mutex
	failing bool
	pending []net.Conn
	failed  int // accepts that returned EMFILE
}

var errEMFILE = &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}

func (l *emfileListener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		switch {
		case l.failing:
			l.failed++
			l.mu.Unlock()
			return nil, errEMFILE
		case len(l.pending) > 0:
			c := l.pending[0]
			l.pending = l.pending[1:]
			l.mu.Unlock()
			return c, nil
		}
		l.mu.Unlock()
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if !l.failing {
			l.mu.Unlock()
			return c, nil
		}
		l.pending = append(l.pending, c)
		l.mu.Unlock()
	}
}

func (l *emfileListener) setFailing(on bool) {
	l.mu.Lock()
	l.failing = on
	l.mu.Unlock()
}

func (l *emfileListener) failures() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed
}

// The leader's forwarding and Raft ports fail their accepts with EMFILE
// for a while (security issue 27): once descriptors are back, both serve
// new links again, and each logged one WARN and one recovery for the
// episode. Before, the forwarding port's loop ended at the first EMFILE,
// and a link dialled after it was never served.
func TestLeaderAcceptsLinksAfterEMFILE(t *testing.T) {
	const linkTimeout = 300 * time.Millisecond
	nets := make([]*emfileNet, 3)
	logs := make([]*testlog.Buffer, 3)
	next := 0
	nodes, peers := startEnsembleWith(t, 3, func(c *Config) {
		nets[next], logs[next] = &emfileNet{}, &testlog.Buffer{}
		c.Network, c.Logger = nets[next], slog.New(slog.NewTextHandler(logs[next], nil))
		c.ElectionTimeout, c.LinkTimeout = time.Second, linkTimeout
		next++
	})
	require.Eventually(t, func() bool { return leaderOf(nodes) >= 0 }, 20*time.Second, 5*time.Millisecond)
	li := leaderOf(nodes)
	leader, nw, log := peers[li], nets[li], logs[li]
	fwd, raftLn := nw.listener(leader.ForwardAddr), nw.listener(leader.RaftAddr)
	require.NotNil(t, fwd)
	require.NotNil(t, raftLn)

	// Out of descriptors: a link to each port arrives and is not accepted.
	fwd.setFailing(true)
	raftLn.setFailing(true)
	dial := func(addr string) net.Conn {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { nc.Close() })
		return nc
	}
	// Connections that arrive while failing: the first wakes the loop
	// blocked in accept, which then retries with backoff.
	during := []net.Conn{dial(leader.ForwardAddr), dial(leader.RaftAddr)}
	require.Eventually(t, func() bool { return fwd.failures() >= 5 && raftLn.failures() >= 5 }, 30*time.Second, time.Millisecond,
		"the accept loops retry")
	fwd.setFailing(false)
	raftLn.setFailing(false)

	// Both the link that waited and a new one are served: a silent link is
	// closed by the leader after the link timeout, which only a served
	// link is.
	after := []net.Conn{dial(leader.ForwardAddr), dial(leader.RaftAddr)}
	for _, nc := range append(during, after...) {
		requireClosedWithin(t, nc, 30*time.Second)
	}

	// The end of each episode is logged once accepts have worked for
	// acceptretry.Quiet.
	for _, port := range []string{"forwarding (election) port", "raft (peer) port"} {
		again := `msg="accepting connections works again" listener="` + port + `"`
		require.Eventually(t, func() bool { return len(log.Lines(again)) > 0 }, 30*time.Second, 5*time.Millisecond, log.String())
		require.Len(t, log.Lines(again), 1, log.String())
		require.Len(t, log.Lines(`level=WARN msg="accepting connections fails" listener="`+port+`"`), 1, log.String())
	}
	require.Contains(t, log.String(), "too many open files")
}
