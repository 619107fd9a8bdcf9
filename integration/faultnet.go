package integration

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/zkraft/zkraft/consensus"
)

// errPartitioned is what a dial across a partition returns.
var errPartitioned = errors.New("integration: link cut by a partition")

// FaultNetwork carries a Cluster's server-to-server traffic (Raft and
// forwarding) over loopback TCP, and can cut links between servers. Client
// connections do not go through it.
type FaultNetwork struct {
	mu    sync.Mutex
	owner map[string]int // listen address → server index
	cut   map[[2]int]bool
	down  map[int]bool          // crashed servers: every link to them is dead
	conns map[[2]int][]net.Conn // open connections, by (dialer, listener)
}

func newFaultNetwork() *FaultNetwork {
	return &FaultNetwork{owner: map[string]int{}, cut: map[[2]int]bool{}, down: map[int]bool{}, conns: map[[2]int][]net.Conn{}}
}

// For returns server i's view of the network.
func (f *FaultNetwork) For(i int) consensus.Network { return &serverNet{f: f, self: i} }

// Partition cuts every link between servers in different groups and
// closes the connections already open across them.
func (f *FaultNetwork) Partition(groups ...[]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for gi, g := range groups {
		for _, other := range groups[gi+1:] {
			for _, a := range g {
				for _, b := range other {
					f.cutLocked(a, b)
					f.cutLocked(b, a)
				}
			}
		}
	}
}

func (f *FaultNetwork) cutLocked(a, b int) {
	f.cut[[2]int{a, b}] = true
	for _, c := range f.conns[[2]int{a, b}] {
		c.Close()
	}
	delete(f.conns, [2]int{a, b})
}

// crash cuts every link of server i at once, as a power loss would, until
// revive. Partitions are kept apart from it: Heal does not revive a server.
func (f *FaultNetwork) crash(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down[i] = true
	for key, conns := range f.conns {
		if key[0] == i || key[1] == i {
			for _, c := range conns {
				c.Close()
			}
			delete(f.conns, key)
		}
	}
}

func (f *FaultNetwork) revive(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.down, i)
}

// blockedLocked reports whether a dials b across a cut or a crash.
func (f *FaultNetwork) blockedLocked(a, b int) bool {
	return f.cut[[2]int{a, b}] || f.down[a] || f.down[b]
}

// Heal restores every link.
func (f *FaultNetwork) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cut = map[[2]int]bool{}
}

type serverNet struct {
	f    *FaultNetwork
	self int
}

func (n *serverNet) Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		n.f.mu.Lock()
		n.f.owner[addr] = n.self
		n.f.mu.Unlock()
	}
	return ln, err
}

func (n *serverNet) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	n.f.mu.Lock()
	peer, known := n.f.owner[addr]
	blocked := known && n.f.blockedLocked(n.self, peer)
	n.f.mu.Unlock()
	if blocked {
		return nil, errPartitioned
	}
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil || !known {
		return c, err
	}
	n.f.mu.Lock()
	defer n.f.mu.Unlock()
	if n.f.blockedLocked(n.self, peer) { // cut while dialling
		c.Close()
		return nil, errPartitioned
	}
	key := [2]int{n.self, peer}
	n.f.conns[key] = append(n.f.conns[key], c)
	return c, nil
}
