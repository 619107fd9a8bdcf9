package server

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/zkraft/zkraft/consensus"
)

// saslNetwork is a consensus.Network whose links authenticate as a
// linkPolicy says (quorumsasl_link.go) before Raft or the forwarding
// channel sees them.
type saslNetwork struct {
	inner          consensus.Network
	policy         *linkPolicy
	dials, accepts *failureLog
}

func newSASLNetwork(inner consensus.Network, p *linkPolicy) *saslNetwork {
	return &saslNetwork{inner: inner, policy: p,
		dials:   newFailureLog(p.log, "quorum SASL authentication", "dialling"),
		accepts: newFailureLog(p.log, "quorum SASL authentication", "accepting")}
}

// Dial connects and authenticates within timeout (and the policy's own
// bound), so a peer that refuses this server's credentials fails here,
// before any Raft message.
func (n *saslNetwork) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	start := time.Now()
	c, err := n.inner.Dial(addr, timeout)
	if err != nil || !n.policy.learnerRequire {
		return c, err
	}
	deadline := time.Now().Add(n.policy.timeout)
	if timeout > 0 && start.Add(timeout).Before(deadline) {
		deadline = start.Add(timeout)
	}
	c.SetDeadline(deadline)
	err = n.policy.dialled(c)
	n.dials.note(addr, err)
	if err != nil && !errors.Is(err, errLinkKept) {
		c.Close()
		return nil, fmt.Errorf("server: quorum SASL with %s: %w", addr, err)
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// Listen returns a listener whose Accept hands on authenticated links
// only. Each accepted connection authenticates on a goroutine of its own
// within the policy's timeout, so a peer that connects and never sends
// holds up no other, and nothing is written to a link before its peer
// has spoken.
func (n *saslNetwork) Listen(addr string) (net.Listener, error) {
	ln, err := n.inner.Listen(addr)
	if err != nil {
		return nil, err
	}
	l := &saslListener{Listener: ln, n: n, ready: make(chan accepted), done: make(chan struct{}),
		pending: map[net.Conn]struct{}{}}
	l.wg.Add(1)
	go l.acceptLoop()
	return l, nil
}

// accepted is what Accept returns next.
type accepted struct {
	conn net.Conn
	err  error
}

type saslListener struct {
	net.Listener
	n     *saslNetwork
	ready chan accepted
	done  chan struct{} // closed by Close
	once  sync.Once
	wg    sync.WaitGroup

	mu      sync.Mutex
	pending map[net.Conn]struct{} // authenticating; nil once closed
}

func (l *saslListener) Accept() (net.Conn, error) {
	select {
	case a := <-l.ready:
		return a.conn, a.err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops listening, closes the links still authenticating and waits
// for their goroutines.
func (l *saslListener) Close() error {
	l.once.Do(func() { close(l.done) })
	err := l.Listener.Close()
	l.mu.Lock()
	pending := l.pending
	l.pending = nil
	l.mu.Unlock()
	for c := range pending {
		c.Close()
	}
	l.wg.Wait()
	return err
}

// acceptLoop accepts connections and starts their authentication; an
// accept error goes to Accept's caller, which backs off as it would
// without SASL.
func (l *saslListener) acceptLoop() {
	defer l.wg.Done()
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case l.ready <- accepted{err: err}:
			case <-l.done:
				return
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if !l.track(c) {
			c.Close()
			return
		}
		go l.authenticate(c)
	}
}

// track records c as authenticating (and counts its goroutine), unless
// the listener is closed.
func (l *saslListener) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		return false
	}
	l.pending[c] = struct{}{}
	l.wg.Add(1)
	return true
}

func (l *saslListener) untrack(c net.Conn) {
	l.mu.Lock()
	delete(l.pending, c)
	l.mu.Unlock()
}

// authenticate runs one accepted link's authentication and hands the
// link to Accept, or closes it.
func (l *saslListener) authenticate(c net.Conn) {
	defer l.wg.Done()
	c.SetDeadline(time.Now().Add(l.n.policy.timeout))
	app, err := l.n.policy.accepted(c)
	select {
	case <-l.done:
		c.Close() // closed meanwhile: its error says nothing about the peer
		return
	default:
	}
	host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
	l.n.accepts.note(host, err)
	l.untrack(c) // after the note: a test waits for both
	if err != nil && !errors.Is(err, errLinkKept) {
		c.Close()
		return
	}
	c.SetDeadline(time.Time{})
	select {
	case l.ready <- accepted{conn: app}:
	case <-l.done:
		c.Close()
	}
}
