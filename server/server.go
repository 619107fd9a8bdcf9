package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkraft/zkraft/auth/jaas"
	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/internal/acceptretry"
	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("server: closed")

// Option adjusts a Server at construction.
type Option func(*Server)

// WithClock makes the server read time, tick sessions and reap containers
// with clock (a session.FakeClock in tests).
func WithClock(c session.Clock) Option { return func(s *Server) { s.clock = c } }

// WithNetwork makes an ensemble member reach its peers through nw (a
// fault-injecting network in tests); the default is TCP.
func WithNetwork(nw consensus.Network) Option { return func(s *Server) { s.network = nw } }

// WithDiskFaults lets a test make the log disk of a server with a dataDir
// look full (see consensus.DiskFaults).
func WithDiskFaults(f *consensus.DiskFaults) Option { return func(s *Server) { s.diskFaults = f } }

// WithLogger sets the server's logger; the default discards everything.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// WithOnDamage sets what the server does when a log entry read while it
// runs fails its checksum (consensus.Config.OnDamage); zkserver exits.
func WithOnDamage(fn func(error)) Option { return func(s *Server) { s.onDamage = fn } }

// Server is one zkraft server.
type Server struct {
	cfg     Config
	log     *slog.Logger
	clock   session.Clock
	node    *consensus.Node
	ln      net.Listener
	watches *watchManager
	fanout  fanout // connections whose events wait for a fan-out worker
	duties  duties
	touched touchedSet
	ids     *session.IDGenerator
	stats   stats
	faults  faultList
	started time.Time
	done    chan struct{} // closed by Close
	// life is cancelled by Close: requests waiting on consensus (sync,
	// reconfig, session and reaper proposals) give up then, so Close never
	// waits for their timeouts (a leader cut off from its followers cannot
	// commit, and its syncs would otherwise wait out syncTimeout).
	life    context.Context
	endLife context.CancelFunc
	network consensus.Network
	// onDamage is consensus.Config.OnDamage.
	onDamage func(error)
	// diskFaults is the test hook of WithDiskFaults.
	diskFaults *consensus.DiskFaults

	mu        sync.Mutex
	conns     map[*conn]struct{}
	bySession map[int64]*conn
	perIP     map[string]int
	closed    bool
	wg        sync.WaitGroup

	// parker resumes idle connections' readers (connpark.go); nil: none
	// park. parkAfter is how long a reader waits before it parks.
	parker    *parker
	parkAfter time.Duration
	// tls serves the secure client port and port unification (nil: no
	// TLS); tlsLn is the secure client port.
	tls   *clientTLS
	tlsLn net.Listener
	// schemes are the ACL providers, to filter watch events by READ.
	schemes *datatree.Schemes
	// sasl is the SASL login from the JAAS file (nil: none; see sasl.go).
	sasl *saslLogin
	// quorumTLSClose stops reloading the ssl.quorum.* stores (quorumtls.go).
	quorumTLSClose func()

	// outputHeld is the bytes of replies all connections hold unsent
	// (backlog), bounded by TotalClientOutputLimit.
	outputHeld atomic.Int64

	// metricSet is ZooKeeper's ServerMetrics for this server (server and
	// consensus register in it); m is the server's part of it.
	metricSet *metrics.Set
	m         *serverMetrics
	// audit is the audit log's queue, with its counters (audit.go).
	auditQ *auditQueue
	// local holds the sessions only this server knows (localsession.go).
	local localSessions
}

// New returns a server for cfg; Start makes it listen.
func New(cfg Config, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		clock:     session.RealClock(),
		conns:     make(map[*conn]struct{}),
		bySession: make(map[int64]*conn),
		perIP:     make(map[string]int),
		done:      make(chan struct{}),
		parkAfter: parkAfter,
		schemes:   datatree.NewSchemes(cfg.aclSchemes()),
		metricSet: metrics.NewSet(),
	}
	s.m = newServerMetrics(s.metricSet)
	s.auditQ = newAuditQueue(s.metricSet)
	s.life, s.endLife = context.WithCancel(context.Background())
	for _, o := range opts {
		o(s)
	}
	s.watches = newWatchManager()
	s.stats.reset()
	return s, nil
}

// Start starts Raft, the session tracker and the client listener.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	s.started = s.clock.Now()
	var peers []consensus.Peer
	if s.cfg.ensemble() {
		var err error
		if peers, err = s.cfg.peers(); err != nil {
			return err
		}
	}
	// Listen before touching the data directory: a client port in use
	// then fails the start before any log is created.
	addr := net.JoinHostPort(s.cfg.ClientPortAddress, strconv.Itoa(s.cfg.ClientPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("server: listen on %s: %w", addr, err)
	}
	if err := checkZooKeeperData(s.cfg); err != nil {
		ln.Close()
		return err
	}
	if s.sasl, err = loadSASL(s.cfg.Security, jaas.SystemProperties(s.cfg.Security.SystemProperties)); err != nil {
		ln.Close()
		return err
	}
	if err := s.listenTLS(); err != nil {
		ln.Close()
		return err
	}
	if err := s.secureQuorum(); err != nil {
		ln.Close()
		s.closeTLS()
		return err
	}
	if err := s.authenticateQuorum(); err != nil {
		ln.Close()
		s.closeTLS()
		s.closeQuorumTLS()
		return err
	}
	node, err := consensus.Start(ctx, consensus.Config{
		ServerID:        s.cfg.ServerID,
		Peers:           peers,
		ElectionTimeout: s.cfg.TickTime,
		Tree:            datatree.Config{ExtendedTypesEnabled: s.cfg.ExtendedTypesEnabled, Schemes: s.cfg.aclSchemes()},
		Hook:            s.onApply,
		OnRestore:       s.onRestore,
		Logger:          s.raftLogger(),
		OnDamage:        s.onDamage,
		Storage: consensus.Storage{
			DataDir:        s.cfg.DataDir,
			LogDir:         s.cfg.DataLogDir,
			NoSync:         !s.cfg.ForceSync,
			SnapshotRetain: max(s.cfg.SnapRetainCount, 3),
			Faults:         s.diskFaults,
		},
		SnapshotThreshold: s.cfg.SnapCount,
		SnapshotBytes:     s.cfg.SnapSizeLimit,
		Network:           s.network,
		MembershipTime:    s.clock.Now().UnixMilli(),
		MembershipVersion: s.cfg.MembershipVersion,
		Metrics:           s.metricSet,
	})
	if err != nil {
		ln.Close()
		s.closeTLS()
		s.closeQuorumTLS()
		return err
	}
	s.node = node
	s.ids = session.NewIDGenerator(sessionServerID(s.cfg.ServerID), s.clock.Now())
	node.OnTouch(s.touchRemote)
	node.SetStatusSource(s.encodeStatus)
	if node.IsLeader() {
		// Standalone: lead before the first client arrives. Sessions
		// recovered from disk get a full timeout from now.
		s.becomeLeader()
	}
	s.startLocalSessions()
	s.wg.Add(1)
	go s.watchRole(s.done)
	s.ln = acceptretry.Wrap(ln, s.log, "client port")
	s.parker = newParker(s)
	s.wg.Add(1)
	go s.acceptLoop()
	if s.tlsLn != nil {
		s.wg.Add(1)
		go s.acceptTLSLoop(s.tlsLn)
	}
	s.log.Info("serving", "addr", ln.Addr().String(), "mode", node.Role(),
		"dataDir", s.cfg.DataDir, "zxid", sessionHex(node.LastZxid()))
	return nil
}

// raftLogger is the logger Raft's own lines go to (see consensus's bridge,
// which lowers the routine ones to debug).
func (s *Server) raftLogger() *slog.Logger { return s.log }

// Addr returns the client address the server listens on.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Shutdown stops the server gracefully: a leader of an ensemble first hands
// its leadership to an up-to-date follower, so the others do not wait out
// an election timeout before they serve writes again; then it closes as
// Close does. zkserver calls it on SIGTERM; Close is the abrupt stop.
func (s *Server) Shutdown() error {
	if s.node != nil && s.node.IsLeader() {
		if err := s.node.HandOver(); err != nil && !errors.Is(err, consensus.ErrNotLeading) {
			s.log.Warn("could not hand leadership over before stopping", "err", err)
		}
	}
	return s.Close()
}

// Close stops the server and waits until every goroutine it started has
// exited. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.endLife()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	if s.tlsLn != nil {
		s.tlsLn.Close()
	}
	if s.tls != nil && s.tls.close != nil {
		s.tls.close()
	}
	if s.ln != nil {
		s.ln.Close()
	}
	for _, c := range conns {
		c.close()
	}
	if s.parker != nil {
		s.parker.stop() // every connection is closed: none parks any more
	}
	s.stopLeading()
	s.stopLocalSessions()
	if s.node != nil {
		s.node.Halt() // the writes still waiting end: nothing more is applied here
	}
	s.wg.Wait()
	s.stopLeading() // in case the role watcher started them while closing
	var err error
	if s.node != nil {
		err = s.node.Close()
	}
	s.closeQuorumTLS()
	return err
}

// acceptLoop accepts on the client port until it is closed: s.ln waits
// out failed accepts (too many open files...) itself (acceptretry).
func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		if s.tls != nil && s.cfg.Security.PortUnification {
			s.unifiedServe(nc)
		} else {
			s.serve(nc)
		}
	}
}

// serve registers nc and starts its reader, unless the server is closing,
// the client's address already has maxClientCnxns connections, or the
// server has maxCnxns in all.
func (s *Server) serve(nc net.Conn) { s.serveWith(nc, nil) }

// serveWith is serve for a connection that arrives with ids (x509).
func (s *Server) serveWith(nc net.Conn, ids []wire.Id) {
	ip := remoteIP(nc)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.log.Debug("refusing connection: the server is stopping", "remote", nc.RemoteAddr().String())
		nc.Close()
		return
	}
	if s.cfg.MaxClientCnxns > 0 && s.perIP[ip] >= s.cfg.MaxClientCnxns {
		s.mu.Unlock()
		s.log.Warn("refusing connection: too many connections from this address", "remote", nc.RemoteAddr().String(),
			"maxClientCnxns", s.cfg.MaxClientCnxns)
		nc.Close()
		return
	}
	if s.cfg.MaxCnxns > 0 && len(s.conns) >= s.cfg.MaxCnxns {
		s.mu.Unlock()
		s.log.Warn("refusing connection: the server has maxCnxns connections", "remote", nc.RemoteAddr().String(),
			"maxCnxns", s.cfg.MaxCnxns)
		nc.Close()
		return
	}
	c := newConn(s, nc, ip)
	for _, id := range ids {
		c.addAuth(id)
	}
	c.armHandshakeTimer()
	s.conns[c] = struct{}{}
	s.perIP[ip]++
	s.wg.Add(1) // the reader; writers count themselves (connqueue.go)
	s.mu.Unlock()
	s.stats.connOpened()
	go c.readLoop()
}

// forget removes a closed connection from the server's tables.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	if _, ok := s.conns[c]; ok {
		delete(s.conns, c)
		if s.perIP[c.ip]--; s.perIP[c.ip] <= 0 {
			delete(s.perIP, c.ip)
		}
	}
	if id := c.sessionID(); id != 0 && s.bySession[id] == c {
		delete(s.bySession, id)
	}
	s.mu.Unlock()
	c.unpark()
	s.watches.removeConn(c)
}

func remoteIP(nc net.Conn) string {
	if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, _ := net.SplitHostPort(nc.RemoteAddr().String())
	return host
}

// connections returns a snapshot of the open connections.
func (s *Server) connections() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

// sessionServerID is the server id stamped in the top byte of session ids.
// A standalone ZooKeeper uses 1 (createSessionTrackerServerId).
func sessionServerID(id int64) int64 {
	if id == 0 {
		return 1
	}
	return id
}

// nowMillis is the proposal timestamp for transactions.
func (s *Server) nowMillis() int64 { return s.clock.Now().UnixMilli() }

// DropConnection closes, from the server side, the connection bound to the
// session, as a network fault would; the session itself lives on and the
// client may reconnect. It reports whether such a connection was open.
func (s *Server) DropConnection(sessionID int64) bool {
	s.mu.Lock()
	c := s.bySession[sessionID]
	s.mu.Unlock()
	if c == nil {
		return false
	}
	c.close()
	return true
}

// Snapshot makes the server snapshot its state now; with a dataDir the
// snapshot is written there and the log before it is compacted.
func (s *Server) Snapshot() error { return s.node.Snapshot() }

// Role is this server's ZAB role as srvr prints it: standalone, leader,
// follower or observer, or "looking" while it knows no leader.
func (s *Server) Role() string { return s.node.Role() }

// LeaderID is the id (myid) of the server this one knows as the leader
// of its ensemble, or 0 while it knows none (and when standalone).
func (s *Server) LeaderID() int64 {
	id, _ := s.node.Leader()
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// HasSession reports whether a client connection of the session is open on
// this server.
func (s *Server) HasSession(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bySession[id] != nil
}
