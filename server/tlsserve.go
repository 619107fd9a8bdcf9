package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/zkraft/zkraft/auth"
	"github.com/zkraft/zkraft/internal/acceptretry"
	"github.com/zkraft/zkraft/wire"
)

// This file serves clients over TLS: on the secure client port every
// connection is TLS; with port unification the plaintext port also
// accepts TLS, told apart by the first byte (a TLS handshake record starts
// with 0x16, a ZooKeeper frame with the high byte of its length, which is
// 0 for any frame up to 16 MiB). The ZooKeeper framing inside is
// unchanged. A client that fails the handshake (plaintext on a TLS port,
// an untrusted or missing certificate) is closed with one log line and
// affects nobody else.

// tlsRecordHandshake is the first byte of a TLS ClientHello.
const tlsRecordHandshake = 0x16

// defaultTLSHandshakeTimeout bounds a TLS handshake, and the wait for the
// first byte under port unification (ssl.handshakeDetectionTimeoutMillis's
// default).
const defaultTLSHandshakeTimeout = 5 * time.Second

// clientTLS is what the server needs from its TLS configuration.
type clientTLS struct {
	config  func() *tls.Config // newest server-side configuration
	timeout time.Duration
	close   func()
}

// acceptTLSLoop accepts on the secure client port until it is closed: ln
// waits out failed accepts itself (acceptretry, see listenTLS).
func (s *Server) acceptTLSLoop(ln net.Listener) {
	defer s.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return // closed
		}
		s.goTLS(nc)
	}
}

// goTLS runs the handshake of nc in its own goroutine, so a slow client
// holds up nobody, then serves it.
func (s *Server) goTLS(nc net.Conn) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.serveTLS(nc)
	}()
}

// serveTLS completes a TLS handshake on nc and serves it with the x509
// ids its certificate earns.
func (s *Server) serveTLS(nc net.Conn) {
	ctx, cancel := context.WithTimeout(s.life, s.tls.timeout)
	defer cancel()
	tc := tls.Server(nc, s.tls.config())
	if err := tc.HandshakeContext(ctx); err != nil {
		s.log.Warn("TLS handshake failed; closing the connection", "remote", nc.RemoteAddr().String(), "err", err)
		nc.Close()
		return
	}
	ids, err := s.x509IDs(tc.ConnectionState())
	if err != nil {
		s.log.Warn("x509 authentication failed; closing the connection", "remote", nc.RemoteAddr().String(), "err", err)
		tc.Close()
		return
	}
	s.serveWith(tc, ids)
}

// x509IDs are the ids a verified client certificate earns: super when its
// subject is the configured x509 super user, then x509:<subject>, as
// ZooKeeper's X509AuthenticationProvider adds them. No certificate (client
// auth want or none) earns nothing.
func (s *Server) x509IDs(st tls.ConnectionState) ([]wire.Id, error) {
	if len(st.PeerCertificates) == 0 || len(st.VerifiedChains) == 0 {
		return nil, nil
	}
	subject, err := auth.SubjectID(st.PeerCertificates[0])
	if err != nil {
		return nil, err
	}
	var ids []wire.Id
	if su := s.cfg.Security.X509SuperUser; su != "" && su == subject {
		ids = append(ids, wire.Id{Scheme: "super", ID: subject})
	}
	return append(ids, wire.Id{Scheme: "x509", ID: subject}), nil
}

// unifiedServe serves a connection of the plaintext port under port
// unification: TLS when its first byte opens a handshake, else plaintext.
func (s *Server) unifiedServe(nc net.Conn) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		nc.SetReadDeadline(time.Now().Add(s.tls.timeout))
		first, pc, err := peekByte(nc)
		nc.SetReadDeadline(time.Time{})
		if err != nil {
			s.log.Debug("connection closed before its first byte", "remote", nc.RemoteAddr().String(), "err", err)
			nc.Close()
			return
		}
		if first == tlsRecordHandshake {
			s.serveTLS(pc)
			return
		}
		s.serveWith(pc, nil)
	}()
}

// WithClientTLS gives the server its client-side TLS configuration
// directly (config is asked for each handshake, so it may change), in
// place of the one built from the ssl.* keys.
func WithClientTLS(config func() *tls.Config) Option {
	return func(s *Server) { s.tls = &clientTLS{config: config, timeout: defaultTLSHandshakeTimeout} }
}

// SecureAddr returns the address of the secure client port ("" when there
// is none).
func (s *Server) SecureAddr() string {
	if s.tlsLn == nil {
		return ""
	}
	return s.tlsLn.Addr().String()
}

// listenTLS loads the TLS configuration and opens the secure client port,
// when the configuration asks for TLS.
func (s *Server) listenTLS() error {
	sec := s.cfg.Security
	if !sec.TLSEnabled() {
		return nil
	}
	if s.tls == nil {
		t, err := loadClientTLS(sec, s.log)
		if err != nil {
			return err
		}
		s.tls = t
	}
	if sec.SecureClientPort == 0 {
		return nil
	}
	host := sec.SecureClientPortAddress
	if host == "" {
		host = s.cfg.ClientPortAddress
	}
	port := max(sec.SecureClientPort, 0) // EphemeralPort: any free port
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		s.closeTLS()
		return fmt.Errorf("server: listen on the secure client port: %w", err)
	}
	s.tlsLn = acceptretry.Wrap(ln, s.log, "secure client port")
	return nil
}

// closeTLS undoes listenTLS after a failed start.
func (s *Server) closeTLS() {
	if s.tlsLn != nil {
		s.tlsLn.Close()
		s.tlsLn = nil
	}
	if s.tls != nil && s.tls.close != nil {
		s.tls.close()
	}
}
