package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/tlsconf"
)

// With sslQuorum=true every link between the servers of an ensemble (Raft
// on the peer port, and the forwarding channel on the election port) is
// TLS with the ssl.quorum.* keys, in both directions authenticated: a
// server accepts a peer only with a certificate its quorum trust store
// vouches for (ssl.quorum.clientAuth defaults to need), and checks that a
// peer's certificate names the address it dialled or was dialled from
// (ssl.quorum.hostnameVerification, default true), as ZooKeeper's
// QuorumX509Util does. A server with a certificate the others do not trust
// cannot replicate, vote or forward. Stores reload when their files change.

// secureQuorum puts TLS under the ensemble's links when sslQuorum asks
// for it; a standalone server has no such links, as in ZooKeeper.
func (s *Server) secureQuorum() error {
	if !s.cfg.Security.SSLQuorum || !s.cfg.ensemble() {
		return nil
	}
	nw, closeFn, err := quorumTLS(s.cfg.Security, s.network, s.log)
	if err != nil {
		return err
	}
	s.network, s.quorumTLSClose = nw, closeFn
	return nil
}

// closeQuorumTLS stops the quorum stores' reloading.
func (s *Server) closeQuorumTLS() {
	if s.quorumTLSClose != nil {
		s.quorumTLSClose()
		s.quorumTLSClose = nil
	}
}

// errQuorumKeyStore is returned when sslQuorum is on without a key store.
var errQuorumKeyStore = errors.New("sslQuorum=true needs ssl.quorum.keyStore.location (and a trust store for the peers' certificates)")

// quorumTLS wraps nw so that its links are TLS from the ssl.quorum.* keys;
// close stops the stores' reloading.
func quorumTLS(sec Security, nw consensus.Network, log *slog.Logger) (consensus.Network, func(), error) {
	cfg, _, err := tlsconf.FromProps(sec.SSLQuorumProps, "ssl.quorum.")
	if err != nil {
		return nil, nil, fmt.Errorf("server: quorum TLS: %w", err)
	}
	if cfg.KeyStore.Location == "" {
		return nil, nil, fmt.Errorf("server: quorum TLS: %w", errQuorumKeyStore)
	}
	src, err := tlsconf.Load(cfg, log)
	if err != nil {
		return nil, nil, fmt.Errorf("server: quorum TLS: %w", err)
	}
	if nw == nil {
		nw = consensus.TCP{}
	}
	n := &tlsNetwork{inner: nw, src: src, dials: newFailureLog(log, "quorum TLS handshake", "dialling"),
		accepts: newFailureLog(log, "quorum TLS handshake", "accepting")}
	return n, src.Close, nil
}

// tlsNetwork is a consensus.Network whose connections are TLS.
type tlsNetwork struct {
	inner          consensus.Network
	src            *tlsconf.Source
	dials, accepts *failureLog
}

// failureLog logs the first failed handshake with a peer, and the first
// success after failures: Raft redials a peer it cannot reach many times.
type failureLog struct {
	log     *slog.Logger
	what    string // "quorum TLS handshake"
	side    string
	mu      sync.Mutex
	failing map[string]bool
}

func newFailureLog(log *slog.Logger, what, side string) *failureLog {
	return &failureLog{log: log, what: what, side: side, failing: map[string]bool{}}
}

func (f *failureLog) note(peer string, err error) {
	f.mu.Lock()
	was := f.failing[peer]
	if err != nil {
		f.failing[peer] = true
	} else {
		delete(f.failing, peer)
	}
	f.mu.Unlock()
	switch {
	case err != nil && !was:
		f.log.Warn(f.what+" failed; logged once until it works", "side", f.side, "peer", peer, "err", err)
	case err == nil && was:
		f.log.Info(f.what+" works again", "side", f.side, "peer", peer)
	}
}

// Listen accepts TLS connections; each handshake runs on the connection's
// first read (Raft's transport bounds the wait for it).
func (n *tlsNetwork) Listen(addr string) (net.Listener, error) {
	ln, err := n.inner.Listen(addr)
	if err != nil {
		return nil, err
	}
	return &tlsListener{Listener: ln, config: n.src.ServerConfig, failures: n.accepts}, nil
}

// Dial connects and completes the handshake within timeout, so a peer
// whose certificate is not trusted fails here, before any Raft message.
func (n *tlsNetwork) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	start := time.Now()
	c, err := n.inner.Dial(addr, timeout)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		c.Close()
		return nil, err
	}
	tc := tls.Client(c, n.src.ClientConfigFor(host))
	ctx, cancel := context.WithTimeout(context.Background(), max(timeout-time.Since(start), time.Millisecond))
	defer cancel()
	err = tc.HandshakeContext(ctx)
	n.dials.note(addr, err)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("server: quorum TLS handshake with %s: %w", addr, err)
	}
	return tc, nil
}

// tlsListener wraps accepted connections in TLS with the newest server
// configuration.
type tlsListener struct {
	net.Listener
	config   func() *tls.Config
	failures *failureLog
}

func (l *tlsListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &loggedTLSConn{Conn: tls.Server(c, l.config()), failures: l.failures}, nil
}

// loggedTLSConn reports how its handshake ended, by the peer's host: the
// accepting side otherwise only sees a read error.
type loggedTLSConn struct {
	*tls.Conn
	failures *failureLog
	noted    bool // only the reader touches it
}

func (c *loggedTLSConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.noted && (err == nil || c.ConnectionState().HandshakeComplete || !isTimeout(err)) {
		c.noted = true
		host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		outcome := err
		if c.ConnectionState().HandshakeComplete {
			outcome = nil
		}
		c.failures.note(host, outcome)
	}
	return n, err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
