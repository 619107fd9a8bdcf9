package consensus

import (
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/consensus/transport"
)

// Servers before consensus/transport spoke hashicorp/raft's NetworkTransport
// protocol on the peer port, and an ensemble is upgraded one server at a
// time (docs/deploy.md). So a server speaks both while it has to:
//
//   - each accepted connection is sorted by its first byte: consensus/transport's
//     preamble starts with 'Z', NetworkTransport's first byte is an RPC type
//     (0 to 5), and each kind goes to its own transport, both feeding Raft
//     the same consumer channel;
//   - calls go out in consensus/transport's protocol. A peer that closes the
//     connection without an answer (an older server closes one whose first
//     byte it does not know) is then called the old way for a while
//     (legacyFor), and tried the new way again after that.
//
// A new server that restarted can look like an old one for one call (its
// pooled connection was closed); it is then called the old way for a while,
// which it understands too.
type dualTransport struct {
	*transport.Transport
	legacy *raft.NetworkTransport
	split  *splitStream

	mu      sync.Mutex
	oldPeer map[raft.ServerAddress]time.Time // called the old way until then
	stop    chan struct{}
	relayed sync.WaitGroup
}

// legacyFor is how long a peer that did not understand the new protocol is
// called the old way before it is tried again.
const legacyFor = 30 * time.Second

var (
	_ raft.WithPreVote = (*dualTransport)(nil)
	_ raft.WithClose   = (*dualTransport)(nil)
)

func newDualTransport(base *streamLayer, rc *raft.Config, timeout time.Duration) *dualTransport {
	split := newSplitStream(base)
	consume := make(chan raft.RPC)
	d := &dualTransport{
		Transport: transport.New(split.fast, transport.Config{Timeout: timeout, MaxPool: 3, Logger: rc.Logger, Consumer: consume}),
		legacy: raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
			Stream: split.legacy, MaxPool: 3, Timeout: timeout, Logger: rc.Logger,
			// NetworkTransport's own pipeline can deadlock in v1.7.3; an
			// older peer is replicated to one call at a time, as before.
			MaxRPCsInFlight: 1,
		}),
		split:   split,
		oldPeer: make(map[raft.ServerAddress]time.Time),
		stop:    make(chan struct{}),
	}
	d.relayed.Add(1)
	go d.relay(consume)
	go split.sort()
	return d
}

// relay hands the RPCs older peers send to Raft's consumer channel.
func (d *dualTransport) relay(consume chan<- raft.RPC) {
	defer d.relayed.Done()
	for {
		select {
		case rpc := <-d.legacy.Consumer():
			select {
			case consume <- rpc:
			case <-d.stop:
				rpc.Respond(nil, raft.ErrTransportShutdown)
				return
			}
		case <-d.stop:
			return
		}
	}
}

// SetHeartbeatHandler gives both transports Raft's heartbeat handler.
func (d *dualTransport) SetHeartbeatHandler(cb func(rpc raft.RPC)) {
	d.Transport.SetHeartbeatHandler(cb)
	d.legacy.SetHeartbeatHandler(cb)
}

// Close stops both transports and the listener they share.
func (d *dualTransport) Close() error {
	err := d.Transport.Close()
	d.legacy.Close()
	d.split.Close()
	select {
	case <-d.stop:
	default:
		close(d.stop)
	}
	d.relayed.Wait()
	return err
}

// old reports whether target is to be called the old way now.
func (d *dualTransport) old(target raft.ServerAddress) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	until, ok := d.oldPeer[target]
	if ok && time.Now().After(until) {
		delete(d.oldPeer, target)
		return false
	}
	return ok
}

// fellBack reports whether err says target closed the connection without
// an answer, and if so notes it as an older server.
func (d *dualTransport) fellBack(target raft.ServerAddress, err error) bool {
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) &&
		!errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		return false
	}
	d.mu.Lock()
	d.oldPeer[target] = time.Now().Add(legacyFor)
	d.mu.Unlock()
	return true
}

// call sends an RPC the new way, unless target is known to be an older
// server, and the old way when the new one found it is.
func (d *dualTransport) call(target raft.ServerAddress, fast, old func() error) error {
	if !d.old(target) {
		err := fast()
		if !d.fellBack(target, err) {
			return err
		}
	}
	return old()
}

func (d *dualTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	return d.call(target, func() error { return d.Transport.AppendEntries(id, target, args, resp) },
		func() error { return d.legacy.AppendEntries(id, target, args, resp) })
}

func (d *dualTransport) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	if d.old(target) {
		return d.legacy.AppendEntriesPipeline(id, target)
	}
	return d.Transport.AppendEntriesPipeline(id, target)
}

func (d *dualTransport) RequestVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	return d.call(target, func() error { return d.Transport.RequestVote(id, target, args, resp) },
		func() error { return d.legacy.RequestVote(id, target, args, resp) })
}

func (d *dualTransport) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return d.call(target, func() error { return d.Transport.RequestPreVote(id, target, args, resp) },
		func() error { return d.legacy.RequestPreVote(id, target, args, resp) })
}

func (d *dualTransport) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	return d.call(target, func() error { return d.Transport.TimeoutNow(id, target, args, resp) },
		func() error { return d.legacy.TimeoutNow(id, target, args, resp) })
}

// InstallSnapshot is not sent again the old way when the new one fails:
// part of data may be gone. Raft sends the snapshot again later, by then
// the old way.
func (d *dualTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	if d.old(target) {
		return d.legacy.InstallSnapshot(id, target, args, resp, data)
	}
	err := d.Transport.InstallSnapshot(id, target, args, resp, data)
	d.fellBack(target, err)
	return err
}

// splitStream sorts the connections a streamLayer accepts between two
// listeners by their first byte.
type splitStream struct {
	base         *streamLayer
	fast, legacy *sortedListener
	closeOnce    sync.Once
	done         chan struct{}
}

func newSplitStream(base *streamLayer) *splitStream {
	s := &splitStream{base: base, done: make(chan struct{})}
	s.fast = &sortedListener{split: s, conns: make(chan net.Conn)}
	s.legacy = &sortedListener{split: s, conns: make(chan net.Conn)}
	return s
}

// sort accepts until the listener closes, and reads each connection's first
// byte on its own goroutine (the stream layer bounds that wait).
func (s *splitStream) sort() {
	for {
		c, err := s.base.Accept()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // acceptretry already waited out a temporary failure
		}
		go s.route(c)
	}
}

// route hands c to the listener its first byte names.
func (s *splitStream) route(c net.Conn) {
	var first [1]byte
	if _, err := io.ReadFull(c, first[:]); err != nil {
		c.Close()
		return
	}
	to := s.legacy
	if first[0] == 'Z' {
		to = s.fast
	}
	select {
	case to.conns <- &peekedConn{Conn: c, first: first[0], unread: true}:
	case <-s.done:
		c.Close()
	}
}

// Close closes the shared listener and every connection it accepted.
func (s *splitStream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.done)
		err = s.base.Close()
	})
	return err
}

// sortedListener is one side of a splitStream: a raft.StreamLayer whose
// Accept returns the connections sorted to it, and which dials through the
// shared stream layer.
type sortedListener struct {
	split *splitStream
	conns chan net.Conn
}

func (l *sortedListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.split.done:
		return nil, net.ErrClosed
	}
}

// Close closes the shared listener: both transports stop together.
func (l *sortedListener) Close() error { return l.split.Close() }

func (l *sortedListener) Addr() net.Addr { return l.split.base.Addr() }

func (l *sortedListener) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return l.split.base.Dial(addr, timeout)
}

// peekedConn gives back the first byte read to sort it.
type peekedConn struct {
	net.Conn
	first  byte
	unread bool
}

func (c *peekedConn) Read(p []byte) (int, error) {
	if c.unread && len(p) > 0 {
		c.unread = false
		p[0] = c.first
		return 1, nil
	}
	return c.Conn.Read(p)
}
