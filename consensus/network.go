package consensus

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/internal/acceptretry"
)

// Network is how an ensemble member reaches its peers: Raft on the peer
// port and the forwarding channel on the election port both listen and
// dial through it. The default is the real network; tests substitute one
// that can cut links between servers (a partition).
type Network interface {
	Listen(addr string) (net.Listener, error)
	Dial(addr string, timeout time.Duration) (net.Conn, error)
}

// DefaultLinkTimeout is Config.LinkTimeout's default: ZooKeeper's
// sessionless-connection timeout, and the Raft transport's I/O timeout.
const DefaultLinkTimeout = 10 * time.Second

func (c Config) linkTimeout() time.Duration {
	if c.LinkTimeout > 0 {
		return c.LinkTimeout
	}
	return DefaultLinkTimeout
}

// TCP is the real network.
type TCP struct{}

// Listen listens on addr.
func (TCP) Listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// Dial connects to addr.
func (TCP) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, timeout)
}

// streamLayer adapts a Network to Raft's StreamLayer. It also keeps every
// connection it accepted or dialled, because Raft's NetworkTransport
// closes neither its pooled connections nor the ones it accepted when it
// closes: their goroutines would outlive the node until the peer hung up.
//
// Raft's transport reads an accepted connection with no deadline, so a
// peer (or anything else) that connects to the Raft port and sends
// nothing would hold the connection, a goroutine and Raft's 256 KiB read
// buffer for good. A peer's transport dials only to send an RPC at once,
// so an accepted connection whose first byte does not come within
// firstByte is closed. Later reads have no deadline: Raft's pooled
// connections legitimately sit idle between RPCs.
type streamLayer struct {
	net.Listener
	nw        Network
	conns     connSet
	firstByte time.Duration
}

func (s *streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	c, err := s.nw.Dial(string(addr), timeout)
	if err != nil {
		return nil, err
	}
	return s.conns.add(c)
}

func (s *streamLayer) Accept() (net.Conn, error) {
	c, err := s.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, err := s.conns.add(c)
	if err == nil && s.firstByte > 0 {
		c.SetReadDeadline(time.Now().Add(s.firstByte))
		tc.(*trackedConn).awaitFirst.Store(true)
	}
	return tc, err
}

// Close stops listening and closes every connection still open.
func (s *streamLayer) Close() error {
	err := s.Listener.Close()
	s.conns.closeAll()
	return err
}

// connSet tracks open connections; once closed, it closes any newcomer.
type connSet struct {
	mu     sync.Mutex
	open   map[*trackedConn]struct{}
	closed bool
}

// trackedConn leaves its set when closed.
type trackedConn struct {
	net.Conn
	set *connSet
	// awaitFirst: the read deadline set at accept is lifted by the first
	// bytes read.
	awaitFirst atomic.Bool
}

func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.awaitFirst.Load() && c.awaitFirst.CompareAndSwap(true, false) {
		c.Conn.SetReadDeadline(time.Time{})
	}
	return n, err
}

func (c *trackedConn) Close() error {
	c.set.mu.Lock()
	delete(c.set.open, c)
	c.set.mu.Unlock()
	return c.Conn.Close()
}

func (s *connSet) add(c net.Conn) (net.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	if s.open == nil {
		s.open = make(map[*trackedConn]struct{})
	}
	tc := &trackedConn{Conn: c, set: s}
	s.open[tc] = struct{}{}
	return tc, nil
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	s.closed = true
	open := s.open
	s.open = nil
	s.mu.Unlock()
	for c := range open {
		c.Conn.Close()
	}
}

// newRaftTransport runs Raft on addr over nw, with package transport:
// pipelined replication, requests and answers batched into few writes,
// and a hand-written encoding instead of NetworkTransport's reflective
// msgpack (whose v1.7.3 pipeline could also deadlock after a rejected
// AppendEntries, so it ran one RPC at a time). It speaks NetworkTransport's
// protocol too, with servers of older versions (peercompat.go); legacyOnly
// speaks nothing else, as those servers do (for tests).
// firstByte bounds the wait for an accepted connection's first byte.
// Failed accepts are waited out by the listener (acceptretry), which logs
// one line per episode to log; Raft's own accept loop would retry them
// too, but log an error for each retry.
func newRaftTransport(nw Network, addr string, rc *raft.Config, firstByte time.Duration, log *slog.Logger, legacyOnly bool) (raft.Transport, error) {
	ln, err := nw.Listen(addr)
	if err != nil {
		return nil, err
	}
	stream := &streamLayer{Listener: acceptretry.Wrap(ln, log, "raft (peer) port"), nw: nw, firstByte: firstByte}
	if legacyOnly {
		return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
			Stream: stream, MaxPool: 3, Timeout: peerTimeout, Logger: rc.Logger, MaxRPCsInFlight: 1}), nil
	}
	return newDualTransport(stream, rc, peerTimeout), nil
}

// peerTimeout is the I/O deadline of one Raft RPC.
const peerTimeout = 10 * time.Second
