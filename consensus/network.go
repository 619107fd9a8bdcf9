package consensus

import (
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// Network is how an ensemble member reaches its peers: Raft on the peer
// port and the forwarding channel on the election port both listen and
// dial through it. The default is the real network; tests substitute one
// that can cut links between servers (a partition).
type Network interface {
	Listen(addr string) (net.Listener, error)
	Dial(addr string, timeout time.Duration) (net.Conn, error)
}

// TCP is the real network.
type TCP struct{}

// Listen listens on addr.
func (TCP) Listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// Dial connects to addr.
func (TCP) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, timeout)
}

// streamLayer adapts a Network to Raft's StreamLayer.
type streamLayer struct {
	net.Listener
	nw Network
}

func (s *streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return s.nw.Dial(string(addr), timeout)
}

// newRaftTransport runs Raft on addr over nw.
func newRaftTransport(nw Network, addr string, rc *raft.Config) (raft.Transport, error) {
	ln, err := nw.Listen(addr)
	if err != nil {
		return nil, err
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  &streamLayer{Listener: ln, nw: nw},
		MaxPool: 3,
		Timeout: 10 * time.Second,
		Logger:  rc.Logger,
	}), nil
}
