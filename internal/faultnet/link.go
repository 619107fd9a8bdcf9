package faultnet

import (
	"errors"
	"math/rand/v2"
	"net"
	"time"
)

// ErrBadFault is returned for a link fault out of range.
var ErrBadFault = errors.New("faultnet: delay must be >= 0 and loss within [0, 1)")

// RetransmitDelay is what a lost segment costs on a link with Loss: TCP
// does not lose data, it sends it again once its retransmission timer
// fires (200 ms at least on Linux), so a lossy link is one whose writes
// now and then arrive that much late.
const RetransmitDelay = 200 * time.Millisecond

// LinkFault slows the link between two servers, both ways.
type LinkFault struct {
	// Delay holds every write, and every read, on the link that long.
	Delay time.Duration `json:"delay"`
	// Loss is the chance (0 to 1) that a write is "lost" and arrives
	// RetransmitDelay late, as TCP's retransmission would make it.
	Loss float64 `json:"loss"`
}

// linkKey orders a and b, since a link fault works both ways.
func linkKey(a, b int) [2]int {
	if a > b {
		a, b = b, a
	}
	return [2]int{a, b}
}

// SetLink puts fault on the link between servers a and b (zero clears
// it). It applies at once, to the connections already open too.
func (f *Network) SetLink(a, b int, fault LinkFault) error {
	if fault.Delay < 0 || fault.Loss < 0 || fault.Loss >= 1 {
		return ErrBadFault
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault == (LinkFault{}) {
		delete(f.links, linkKey(a, b))
	} else {
		f.links[linkKey(a, b)] = fault
	}
	return nil
}

// Links returns the faulty links, keyed by their two server indexes
// (lower first).
func (f *Network) Links() map[[2]int]LinkFault {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[[2]int]LinkFault, len(f.links))
	for k, v := range f.links {
		out[k] = v
	}
	return out
}

func (f *Network) linkFault(k [2]int) LinkFault {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.links[k]
}

// faultyConn is a dialled server-to-server connection that obeys its
// link's fault, read at every call so a change applies at once. Both
// directions travel on the dialler's connection, so delaying its reads
// and writes slows the link both ways.
type faultyConn struct {
	net.Conn
	f    *Network
	link [2]int
}

func (c *faultyConn) hold(write bool) {
	lf := c.f.linkFault(c.link)
	d := lf.Delay
	if write && lf.Loss > 0 && rand.Float64() < lf.Loss {
		d += RetransmitDelay
	}
	if d > 0 {
		time.Sleep(d) // the fault being simulated is this wait
	}
}

func (c *faultyConn) Write(b []byte) (int, error) {
	c.hold(true)
	return c.Conn.Write(b)
}

func (c *faultyConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.hold(false)
	}
	return n, err
}
