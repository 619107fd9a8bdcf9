package transport

import (
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Defaults for Config's zero fields.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxPool     = 3
	DefaultMaxInFlight = 64
	// DefaultMaxFrame must hold Raft's largest AppendEntries: up to
	// MaxAppendEntries (64 by default) entries, each as large as one
	// write (ZooKeeper's jute.maxbuffer, 1 MiB by default).
	DefaultMaxFrame = 128 << 20
)

// timeoutScale is the snapshot size per Timeout that InstallSnapshot
// allows, as NetworkTransport's DefaultTimeoutScale: a snapshot of n
// bytes gets Timeout × n/timeoutScale (at least Timeout).
const timeoutScale = 256 << 10

// Config tunes a Transport. Zero fields take the defaults.
type Config struct {
	// Timeout is the I/O deadline of one RPC (DefaultTimeout); a
	// pipelined AppendEntries must be answered within it.
	// InstallSnapshot scales it with the snapshot's size.
	Timeout time.Duration
	// MaxPool is how many idle connections are kept per peer
	// (DefaultMaxPool).
	MaxPool int
	// MaxInFlight is how many pipelined AppendEntries may await their
	// responses on one pipeline (DefaultMaxInFlight); on the serving side,
	// how many requests of one connection may await theirs. 1 disables
	// pipelining: AppendEntriesPipeline then returns
	// raft.ErrPipelineReplicationNotSupported, as NetworkTransport does.
	MaxInFlight int
	// MaxFrame is the largest frame sent or accepted (DefaultMaxFrame,
	// at most 4 GiB - 1). A peer that announces a larger one is
	// disconnected; a request that would be larger fails unsent.
	MaxFrame int
	// Logger logs connection failures (default: hclog's default logger,
	// named "raft-transport").
	Logger hclog.Logger
	// Consumer, when set, is the channel Consumer returns, so that RPCs
	// served by another transport (an older protocol's, during a rolling
	// upgrade) can reach Raft on the same channel. It must be unbuffered
	// or drained by Raft alone.
	Consumer chan raft.RPC
}

func (c Config) withDefaults() Config {
	if c.Consumer == nil {
		c.Consumer = make(chan raft.RPC)
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxPool <= 0 {
		c.MaxPool = DefaultMaxPool
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.MaxFrame <= 0 {
		c.MaxFrame = DefaultMaxFrame
	}
	c.MaxFrame = min(c.MaxFrame, math.MaxUint32)
	if c.Logger == nil {
		c.Logger = hclog.Default().Named("raft-transport")
	}
	return c
}

// Transport is a raft.Transport over a raft.StreamLayer. It also
// implements raft.WithClose, raft.WithPreVote and raft.WithPeers.
type Transport struct {
	stream raft.StreamLayer
	cfg    Config
	log    hclog.Logger

	consumeCh chan raft.RPC
	heartbeat atomic.Pointer[func(raft.RPC)]
	shutdown  chan struct{}

	mu     sync.Mutex
	closed bool
	// pool holds idle client connections per peer.
	pool map[raft.ServerAddress][]*clientConn
	// conns is every client connection open, pooled or in use (pipelines'
	// included), so Close can end any I/O in progress.
	conns map[*clientConn]struct{}
	// served is every accepted connection open.
	served map[net.Conn]struct{}
	pipes  map[*pipeline]struct{}

	wg sync.WaitGroup // the accept loop and the served connections

	stats stats
}

// stats counts events tests (and, later, metrics) look for.
type stats struct {
	pipelined        atomic.Uint64 // AppendEntries sent on pipelines
	pipelineRejected atomic.Uint64 // pipelines stopped by a response that wasn't a success
	rejectedServed   atomic.Uint64 // AppendEntries this side's consumer answered with no success
	snapshotsServed  atomic.Uint64 // InstallSnapshot requests handed to the consumer
}

var (
	_ raft.Transport   = (*Transport)(nil)
	_ raft.WithClose   = (*Transport)(nil)
	_ raft.WithPreVote = (*Transport)(nil)
	_ raft.WithPeers   = (*Transport)(nil)
)

// New serves Raft RPCs on stream, which accepts and dials (the caller's
// stream layer wraps TLS/SASL, tracks connections and bounds the wait for
// an accepted connection's first byte), and sends them through it.
func New(stream raft.StreamLayer, cfg Config) *Transport {
	cfg = cfg.withDefaults()
	t := &Transport{
		stream:    stream,
		cfg:       cfg,
		log:       cfg.Logger,
		consumeCh: cfg.Consumer,
		shutdown:  make(chan struct{}),
		pool:      make(map[raft.ServerAddress][]*clientConn),
		conns:     make(map[*clientConn]struct{}),
		served:    make(map[net.Conn]struct{}),
		pipes:     make(map[*pipeline]struct{}),
	}
	t.wg.Add(1)
	go t.acceptLoop()
	return t
}

// Consumer returns the channel on which RPCs from peers arrive.
func (t *Transport) Consumer() <-chan raft.RPC { return t.consumeCh }

// LocalAddr is the stream's listening address.
func (t *Transport) LocalAddr() raft.ServerAddress {
	return raft.ServerAddress(t.stream.Addr().String())
}

// SetHeartbeatHandler sets the function that handles heartbeats (see
// isHeartbeat) on the connection's goroutine instead of the consumer
// channel; nil sends them to the consumer.
func (t *Transport) SetHeartbeatHandler(cb func(rpc raft.RPC)) {
	if cb == nil {
		t.heartbeat.Store(nil)
		return
	}
	t.heartbeat.Store(&cb)
}

// EncodePeer encodes a peer's address as its bytes.
func (t *Transport) EncodePeer(id raft.ServerID, addr raft.ServerAddress) []byte {
	return []byte(addr)
}

// DecodePeer is EncodePeer's inverse.
func (t *Transport) DecodePeer(buf []byte) raft.ServerAddress { return raft.ServerAddress(buf) }

// Close stops serving, closes every connection and pipeline, and waits
// for the transport's goroutines. Calls in progress fail with
// raft.ErrTransportShutdown or the I/O error the closing caused.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	close(t.shutdown)
	pipes := t.pipes
	conns := t.conns
	served := t.served
	t.pipes, t.conns, t.served, t.pool = nil, nil, nil, nil
	t.mu.Unlock()

	err := t.stream.Close()
	for p := range pipes {
		p.fail(raft.ErrTransportShutdown)
	}
	for c := range conns {
		c.c.Close()
	}
	for c := range served {
		c.Close()
	}
	for p := range pipes {
		p.wg.Wait()
	}
	t.wg.Wait()
	return err
}

func (t *Transport) isShutdown() bool {
	select {
	case <-t.shutdown:
		return true
	default:
		return false
	}
}

// Connect is part of raft.WithPeers; a network transport needs no
// introduction to its peers.
func (t *Transport) Connect(peer raft.ServerAddress, _ raft.Transport) {}

// Disconnect closes the idle connections and the pipelines to peer.
// Later RPCs dial again.
func (t *Transport) Disconnect(peer raft.ServerAddress) {
	t.disconnect(func(a raft.ServerAddress) bool { return a == peer })
}

// DisconnectAll closes every idle connection and pipeline.
func (t *Transport) DisconnectAll() {
	t.disconnect(func(raft.ServerAddress) bool { return true })
}

func (t *Transport) disconnect(match func(raft.ServerAddress) bool) {
	var idle []*clientConn
	var pipes []*pipeline
	t.mu.Lock()
	for addr, cs := range t.pool {
		if match(addr) {
			idle = append(idle, cs...)
			delete(t.pool, addr)
		}
	}
	for p := range t.pipes {
		if match(p.target) {
			pipes = append(pipes, p)
		}
	}
	t.mu.Unlock()
	for _, c := range idle {
		t.release(c)
	}
	for _, p := range pipes {
		p.Close()
	}
}
