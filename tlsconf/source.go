package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Source holds the loaded key material and reloads it when the files
// change. Its methods are safe for concurrent use.
type Source struct {
	cfg      Config
	log      *slog.Logger
	files    []string
	resolver resolver

	cur   atomic.Pointer[material]
	polls atomic.Int64 // watcher polls done, for tests to wait on

	mu      sync.Mutex          // serialises reloads; guards seen and failing
	seen    map[string][32]byte // fingerprints of the files the last reload read
	failing bool                // the last reload failed

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// Load reads the key and trust stores that cfg names and, unless
// cfg.PollInterval is negative, starts watching them for changes. It fails
// with an error naming the file when a store cannot be read or decrypted or
// holds no key. A Config without a key store is accepted (a dialling-only
// Source presents no certificate), but ServerConfig handshakes then fail
// with ErrNoKeyStore. A nil log means slog.Default().
func Load(cfg Config, log *slog.Logger) (*Source, error) {
	if log == nil {
		log = slog.Default()
	}
	s := &Source{
		cfg:      cfg,
		log:      log,
		files:    watchedFiles(cfg),
		resolver: net.DefaultResolver,
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if err := s.Reload(); err != nil {
		return nil, err
	}
	if cfg.KeyStore.Location == "" {
		log.Warn("tls: no key store configured; this side cannot accept TLS connections")
	}
	if cfg.PollInterval < 0 {
		close(s.done)
		return s, nil
	}
	go s.watch(s.pollInterval())
	return s, nil
}

// Reload re-reads the stores now. On failure the previous material stays
// in use and the error, which names the file, is returned.
func (s *Source) Reload() error {
	_, err := s.reload()
	return err
}

// reload is Reload that also reports whether a failure is the first since
// the last success, so the watcher can log a run of failures once: a file
// written in place fails to parse while empty, then while partial.
func (s *Source) reload() (firstFailure bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := readSnap(s.files)
	s.seen = snap.fingerprints()
	m, err := loadMaterial(s.cfg, snap)
	if err != nil {
		firstFailure = !s.failing
		s.failing = true
		return firstFailure, err
	}
	s.failing = false
	old := s.cur.Swap(m)
	if old != nil {
		s.logReload(m)
	}
	return false, nil
}

// logReload records what the new material presents, so an operator can see
// a rotation take effect.
func (s *Source) logReload(m *material) {
	attrs := []any{slog.Int("trusted", len(m.trusted))}
	if len(m.certs) > 0 && m.certs[0].Leaf != nil {
		leaf := m.certs[0].Leaf
		attrs = append(attrs, slog.String("subject", leaf.Subject.String()),
			slog.String("serial", leaf.SerialNumber.String()), slog.Time("notAfter", leaf.NotAfter))
	}
	s.log.Info("tls: key material reloaded", attrs...)
}

// Close stops watching the files. The configs already handed out keep
// working with the last material loaded.
func (s *Source) Close() {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
	})
}

// ServerConfig returns a config for accepting connections. Each handshake
// takes the newest material through GetConfigForClient, and session
// resumption is off so that a changed trust store applies to every new
// connection rather than only to full handshakes.
func (s *Source) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion:             s.cfg.MinVersion,
		MaxVersion:             s.cfg.MaxVersion,
		CipherSuites:           s.cfg.CipherSuites,
		SessionTicketsDisabled: true,
		GetConfigForClient:     s.configForClient,
	}
}

func (s *Source) configForClient(hello *tls.ClientHelloInfo) (*tls.Config, error) {
	m := s.cur.Load()
	if len(m.certs) == 0 {
		return nil, fmt.Errorf("tls: cannot accept a connection: %w", ErrNoKeyStore)
	}
	c := &tls.Config{
		Certificates:           m.certs,
		ClientAuth:             s.cfg.ClientAuth,
		ClientCAs:              m.roots,
		MinVersion:             s.cfg.MinVersion,
		MaxVersion:             s.cfg.MaxVersion,
		CipherSuites:           s.cfg.CipherSuites,
		SessionTicketsDisabled: true,
	}
	if s.cfg.ClientHostnameVerification && s.cfg.ClientAuth != tls.NoClientCert {
		c.VerifyConnection = s.clientAddrCheck(hello)
	}
	return c, nil
}

// clientAddrCheck returns the check ZooKeeper's quorum side makes of a
// verified client certificate: it must name the client's address.
func (s *Source) clientAddrCheck(hello *tls.ClientHelloInfo) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return nil // "want" and no certificate given: nothing to check
		}
		ip, err := remoteIP(hello.Conn)
		if err != nil {
			return err
		}
		if err := matchPeerAddr(hello.Context(), cs.PeerCertificates[0], ip, s.cfg.AllowReverseDNSLookup, s.resolver); err != nil {
			return fmt.Errorf("tls: client certificate: %w", err)
		}
		return nil
	}
}

func remoteIP(c net.Conn) (net.IP, error) {
	if c == nil {
		return nil, errors.New("tls: client hostname verification needs the connection's address")
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return nil, fmt.Errorf("tls: client address %q: %w", c.RemoteAddr(), err)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return nil, fmt.Errorf("tls: client address %q is not an IP address: %w", host, ErrHostname)
	}
	return ip, nil
}

// ClientConfig returns a config for dialling peers: it presents our
// certificate and verifies the peer against the trust store, both as they
// are at handshake time. With HostnameVerification the peer must be named
// by the dialled host; Go only reports that name to the check when it is
// a DNS name (sent as SNI), so dial IP addresses through ClientConfigFor.
func (s *Source) ClientConfig() *tls.Config {
	return s.ClientConfigFor("")
}

// ClientConfigFor is ClientConfig for dialling host, a DNS name or IP
// address, which the peer's certificate must name when hostname
// verification is on.
func (s *Source) ClientConfigFor(host string) *tls.Config {
	return &tls.Config{
		ServerName:           host,
		MinVersion:           s.cfg.MinVersion,
		MaxVersion:           s.cfg.MaxVersion,
		CipherSuites:         s.cfg.CipherSuites,
		GetClientCertificate: s.clientCertificate,
		// The standard check would pin RootCAs at the time the config was
		// made; VerifyConnection repeats it against the current trust store.
		InsecureSkipVerify: true,
		VerifyConnection:   func(cs tls.ConnectionState) error { return s.verifyServer(cs, host) },
	}
}

func (s *Source) clientCertificate(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	m := s.cur.Load()
	for i := range m.certs {
		if cri.SupportsCertificate(&m.certs[i]) == nil {
			return &m.certs[i], nil
		}
	}
	if len(m.certs) > 0 {
		return &m.certs[0], nil
	}
	return &tls.Certificate{}, nil // no key store: send no certificate
}

// verifyServer is the dialling side's certificate check: the chain must
// lead to the trust store, and the leaf must name host (or, when host is
// empty, the SNI name the handshake sent).
func (s *Source) verifyServer(cs tls.ConnectionState, host string) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("tls: server sent no certificate")
	}
	m := s.cur.Load()
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	leaf := cs.PeerCertificates[0]
	opts := x509.VerifyOptions{Roots: m.roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if _, err := leaf.Verify(opts); err != nil {
		return fmt.Errorf("tls: server certificate: %w", err)
	}
	if !s.cfg.HostnameVerification {
		return nil
	}
	if host == "" {
		host = cs.ServerName
	}
	if host == "" {
		return fmt.Errorf("tls: hostname verification is on but the dialled host is unknown "+
			"(dial an IP address with ClientConfigFor): %w", ErrHostname)
	}
	if err := matchHost(leaf, host); err != nil {
		return fmt.Errorf("tls: server certificate: %w", err)
	}
	return nil
}

func (s *Source) pollInterval() time.Duration {
	if s.cfg.PollInterval > 0 {
		return s.cfg.PollInterval
	}
	return DefaultPollInterval
}
