package faultnet

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/zkraft/zkraft/consensus"
)

// ErrPartitioned is what a dial across a cut link or to a crashed server
// returns.
var ErrPartitioned = errors.New("faultnet: link cut by a partition")

// Network carries an ensemble's server-to-server traffic (Raft and
// forwarding) over loopback TCP. Servers are named by their index (0..n-1).
type Network struct {
	mu    sync.Mutex
	owner map[string]int // listen address → server index
	cut   map[[2]int]bool
	down  map[int]bool          // crashed servers: every link to them is dead
	conns map[[2]int][]net.Conn // open connections, by (dialer, listener)
	links map[[2]int]LinkFault  // by (lower index, higher index)
}

// New returns a network with every link up.
func New() *Network {
	return &Network{owner: map[string]int{}, cut: map[[2]int]bool{}, down: map[int]bool{},
		conns: map[[2]int][]net.Conn{}, links: map[[2]int]LinkFault{}}
}

// For returns server i's view of the network.
func (f *Network) For(i int) consensus.Network { return &serverNet{f: f, self: i} }

// Partition cuts every link between servers in different groups and
// closes the connections already open across them.
func (f *Network) Partition(groups ...[]int) {
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

func (f *Network) cutLocked(a, b int) {
	f.cut[[2]int{a, b}] = true
	for _, c := range f.conns[[2]int{a, b}] {
		c.Close()
	}
	delete(f.conns, [2]int{a, b})
}

// Cut reports whether the link from a to b is cut by a partition.
func (f *Network) Cut(a, b int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cut[[2]int{a, b}]
}

// Crash cuts every link of server i at once, as a power loss would, until
// Revive. Partitions are kept apart from it: Heal does not revive a server.
func (f *Network) Crash(i int) {
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

// Revive undoes Crash.
func (f *Network) Revive(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.down, i)
}

// blockedLocked reports whether a dials b across a cut or a crash.
func (f *Network) blockedLocked(a, b int) bool {
	return f.cut[[2]int{a, b}] || f.down[a] || f.down[b]
}

// Heal restores every link cut by Partition (not the link faults).
func (f *Network) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cut = map[[2]int]bool{}
}

type serverNet struct {
	f    *Network
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
		return nil, ErrPartitioned
	}
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil || !known {
		return c, err
	}
	n.f.mu.Lock()
	defer n.f.mu.Unlock()
	if n.f.blockedLocked(n.self, peer) { // cut while dialling
		c.Close()
		return nil, ErrPartitioned
	}
	key := [2]int{n.self, peer}
	fc := &faultyConn{Conn: c, f: n.f, link: linkKey(n.self, peer)}
	n.f.conns[key] = append(n.f.conns[key], fc)
	return fc, nil
}
