package server

import (
	"crypto/subtle"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/zkraft/zkraft/auth"
	"github.com/zkraft/zkraft/auth/sasl"
	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// This file decides what an HTTP caller (the AdminServer's snapshot and
// restore, the web console) is, from the same credentials the client
// port knows, so that no HTTP route gives a caller more than the client
// port would give them:
//
//   - Everyone has ip:<address>, as every client connection has.
//   - A client certificate the TLS handshake verified gives x509:<subject>
//     (and super for zookeeper.X509AuthenticationProvider.superUser).
//   - "Authorization: digest user:password" is verified only when its
//     digest is the superDigest or is named by some node's ACL. The
//     client port's digest scheme accepts any made-up user, harmless there
//     because an unknown digest matches no ACL; over HTTP a made-up
//     identity must not pass for a verified one.
//   - "Authorization: sasl user:password" is checked against the JAAS
//     Server section's DIGEST-MD5 users and gives sasl:user (and super for
//     zookeeper.superUser), as a SASL login on the client port would.
//   - Where the client port requires authentication (enforce.auth.enabled,
//     sessionRequireClientSASLAuth), HTTP requires an identity of an
//     enforced scheme, or super, for every route that shows znodes.

// The errors of the HTTP authorization checks. The first three are worded
// (capitals included) as ZooKeeper 3.9's AdminServer words them; the
// AdminServer answers 401, 401 and 403.
var (
	ErrAdminAuthMissing      = errors.New("Auth info is missing for the command")
	ErrAdminNotAuthenticated = errors.New("Not authenticated")
	ErrAdminNotAuthorized    = errors.New("Not authorized")
	// ErrAdminAuthRequired (401) refuses a caller without an identity the
	// client port requires (enforce.auth.*).
	ErrAdminAuthRequired = errors.New("Authentication required")
	// ErrAdminNoSuper (403) refuses snapshot and restore on a server that
	// has no super identity configured.
	ErrAdminNoSuper = errors.New("No super identity is configured")
)

// httpCaller is who an HTTP request is.
type httpCaller struct {
	ids      []wire.Id
	verified bool     // holds an identity beyond its address
	super    bool     // holds super
	schemes  []string // schemes of the verified identities
}

func (c *httpCaller) add(id wire.Id) {
	c.ids = append(c.ids, id)
	if id.Scheme == "super" {
		c.super = true
		return
	}
	c.verified = true
	if !slices.Contains(c.schemes, id.Scheme) {
		c.schemes = append(c.schemes, id.Scheme)
	}
}

// httpCaller authenticates cred (see the top of this file). Credentials
// that are wrong, or name a scheme this server does not offer, are
// ErrAdminNotAuthenticated.
func (s *Server) httpCaller(cred AdminCredentials) (httpCaller, error) {
	var c httpCaller
	if ip := hostOnly(cred.RemoteIP); ip != "" {
		c.ids = append(c.ids, wire.Id{Scheme: "ip", ID: ip})
	}
	if len(cred.PeerCerts) > 0 && slices.Contains(s.adminSchemes(), "x509") {
		ids, err := s.adminX509IDs(cred.PeerCerts)
		if err != nil {
			return c, err
		}
		for _, id := range ids {
			c.add(id)
		}
	}
	if cred.Authorization == "" {
		return c, nil
	}
	// ZooKeeper splits the header on single spaces (as Java's
	// String.split, dropping trailing empty parts) and wants the scheme
	// alone or the scheme and its data.
	parts := strings.Split(cred.Authorization, " ")
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 2 || !slices.Contains(s.httpSchemes(), parts[0]) {
		return c, ErrAdminNotAuthenticated
	}
	data := ""
	if len(parts) == 2 {
		data = parts[1]
	}
	switch parts[0] {
	case "ip":
		return c, nil
	case "x509":
		if len(cred.PeerCerts) == 0 {
			return c, ErrAdminNotAuthenticated
		}
		return c, nil
	case "digest":
		return c, s.verifyDigest(&c, data)
	case "sasl":
		return c, s.verifySASL(&c, data)
	}
	return c, ErrAdminNotAuthenticated
}

// verifyDigest adds the digest identity of "user:password" when the tree
// or the superDigest knows it.
func (s *Server) verifyDigest(c *httpCaller, data string) error {
	if !strings.Contains(data, ":") {
		return ErrAdminNotAuthenticated
	}
	id := datatree.DigestID(data)
	known := false
	if sd := s.cfg.SuperDigest; sd != "" && subtle.ConstantTimeCompare([]byte(id), []byte(sd)) == 1 {
		c.add(wire.Id{Scheme: "super"})
		known = true
	}
	if !known {
		s.node.Read(func(st *consensus.State) { known = st.Tree.HasDigest(id) })
	}
	if !known {
		return ErrAdminNotAuthenticated
	}
	c.add(wire.Id{Scheme: "digest", ID: id})
	return nil
}

// verifySASL adds sasl:user for "user:password" when the JAAS Server
// section's DIGEST-MD5 users hold that password.
func (s *Server) verifySASL(c *httpCaller, data string) error {
	users := s.saslUsers()
	user, password, ok := strings.Cut(data, ":")
	want, known := users[user]
	if !ok || !known || subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 {
		return ErrAdminNotAuthenticated
	}
	c.add(wire.Id{Scheme: "sasl", ID: user})
	if su := s.cfg.Security.SuperUser; su != "" && su == user {
		c.add(wire.Id{Scheme: "super"})
	}
	return nil
}

// saslUsers are the DIGEST-MD5 users of the JAAS Server section (none
// without one, or with Kerberos).
func (s *Server) saslUsers() map[string]string {
	if s.sasl == nil {
		return nil
	}
	if d, ok := s.sasl.mech.(*sasl.DigestMD5); ok {
		return d.Users
	}
	return nil
}

// httpSchemes are the schemes an Authorization header may name: the
// client port's (adminSchemes), and sasl when a JAAS Server section
// holds DIGEST-MD5 users.
func (s *Server) httpSchemes() []string {
	schemes := s.adminSchemes()
	if len(s.saslUsers()) > 0 && !slices.Contains(schemes, "sasl") {
		schemes = append(schemes, "sasl")
	}
	return schemes
}

// adminSchemes are the client port's schemes, plus x509 when the
// AdminServer asks HTTPS clients for a certificate (admin.needClientAuth).
func (s *Server) adminSchemes() []string {
	schemes := s.cfg.Security.Schemes()
	if s.cfg.AdminTLS() && s.cfg.Admin.NeedClientAuth && !slices.Contains(schemes, "x509") {
		schemes = append(schemes, "x509")
	}
	return schemes
}

// required refuses a caller without an identity the client port would
// require of them (enforce.auth.*): an enforced scheme, or super.
func (s *Server) required(c httpCaller) error {
	sec := &s.cfg.Security
	if !sec.EnforceAuth || c.super {
		return nil
	}
	for _, sc := range c.schemes {
		if slices.Contains(sec.EnforceAuthSchemes, sc) {
			return nil
		}
	}
	return fmt.Errorf("%w: the client port requires a %s identity (enforce.auth.schemes); send one in the Authorization header (\"sasl user:password\", \"digest user:password\") or a client certificate",
		ErrAdminAuthRequired, strings.Join(sec.EnforceAuthSchemes, " or "))
}

// ReaderIDs are the identities an HTTP reader of znodes has (the console's
// tree browser): ip from its address and whatever its credentials verify.
// Each node's ACL then decides what it sees, as for a client connection
// with those identities. Wrong credentials are ErrAdminNotAuthenticated;
// a caller the client port would refuse is ErrAdminAuthRequired.
func (s *Server) ReaderIDs(cred AdminCredentials) ([]wire.Id, error) {
	if s.node == nil {
		return nil, ErrNotStarted
	}
	c, err := s.httpCaller(cred)
	if err != nil {
		return nil, err
	}
	if err := s.required(c); err != nil {
		return nil, err
	}
	return c.ids, nil
}

// AuthorizeWrite checks a caller of the console's writes: it needs
// verified credentials (an address alone is not enough, so a server with
// no credentials configured has a read-only console), and those the client
// port would require. The write's ACL checks then use the ids returned.
func (s *Server) AuthorizeWrite(cred AdminCredentials) ([]wire.Id, error) {
	if s.node == nil {
		return nil, ErrNotStarted
	}
	c, err := s.httpCaller(cred)
	if err != nil {
		return nil, err
	}
	if !c.verified && !c.super {
		return nil, ErrAdminAuthMissing
	}
	if err := s.required(c); err != nil {
		return nil, err
	}
	return c.ids, nil
}

// SuperConfigured reports whether some super identity can be presented
// over HTTP: the superDigest, the x509 superUser (with an AdminServer that
// asks for client certificates) or a SASL superUser with a password.
func (s *Server) SuperConfigured() bool {
	if s.cfg.SuperDigest != "" {
		return true
	}
	if s.cfg.Security.X509SuperUser != "" && slices.Contains(s.adminSchemes(), "x509") {
		return true
	}
	su := s.cfg.Security.SuperUser
	_, ok := s.saslUsers()[su]
	return su != "" && ok
}

// AuthorizeAdmin checks a caller of the whole-tree commands (snapshot and
// restore): they read or replace everything, ACLs included, so they need
// super, whatever the ACL of "/" says. authorization is the header's
// value ("digest super:secret"); peerCerts must be certificates the
// AdminServer's TLS handshake verified. Errors: ErrAdminAuthMissing (no
// credentials), ErrAdminNotAuthenticated (wrong ones), ErrAdminNoSuper
// (none configured: the message names the keys), ErrAdminNotAuthorized
// (verified, but not super).
func (s *Server) AuthorizeAdmin(authorization string, peerCerts []*x509.Certificate, remoteIP string) error {
	if s.node == nil {
		return ErrNotStarted
	}
	if !s.SuperConfigured() {
		return fmt.Errorf("%w: snapshot and restore need a super identity: set zookeeper.DigestAuthenticationProvider.superDigest (or zookeeper.X509AuthenticationProvider.superUser with admin.needClientAuth=true)", ErrAdminNoSuper)
	}
	if authorization == "" && len(peerCerts) == 0 {
		return ErrAdminAuthMissing
	}
	c, err := s.httpCaller(AdminCredentials{Authorization: authorization, PeerCerts: peerCerts, RemoteIP: remoteIP})
	if err != nil {
		return err
	}
	if !c.super {
		return ErrAdminNotAuthorized
	}
	return nil
}

// adminX509IDs are the ids of the client certificate, as x509IDs gives a
// client connection.
func (s *Server) adminX509IDs(peerCerts []*x509.Certificate) ([]wire.Id, error) {
	subject, err := auth.SubjectID(peerCerts[0])
	if err != nil {
		return nil, ErrAdminNotAuthenticated
	}
	var ids []wire.Id
	if su := s.cfg.Security.X509SuperUser; su != "" && su == subject {
		ids = append(ids, wire.Id{Scheme: "super", ID: subject})
	}
	return append(ids, wire.Id{Scheme: "x509", ID: subject}), nil
}

// hostOnly strips a port from an address, if it has one.
func hostOnly(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return strings.Trim(addr, "[]")
}
