package server

import (
	"slices"

	"github.com/zkraft/zkraft/auth"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// aclSchemes are the providers, beyond ip and digest, that ACLs may name
// on this server: those its authProvider.N keys register, and x509 when
// a client port speaks TLS.
func (c Config) aclSchemes() map[string]datatree.ACLScheme {
	m := map[string]datatree.ACLScheme{}
	for _, name := range c.Security.Schemes() {
		switch name {
		case "sasl":
			m[name] = auth.SASLScheme{LetAnyUserDoX: c.Security.LetAnySASLUserDoX}
		case "x509":
			m[name] = auth.X509Scheme{}
		}
	}
	return m
}

// mustAuthenticate reports whether a request of type op is refused because
// enforce.auth is on and the connection holds no id of an enforced scheme.
// Auth and SASL requests are how a client earns one, so they pass.
func (c *conn) mustAuthenticate(op wire.Op) bool {
	sec := &c.srv.cfg.Security
	if !sec.EnforceAuth || op == wire.OpAuth || op == wire.OpSASL {
		return false
	}
	for _, id := range c.authIDs() {
		if slices.Contains(sec.EnforceAuthSchemes, id.Scheme) {
			return false
		}
	}
	return true
}

// refuseUnauthenticated answers SESSIONCLOSEDREQUIRESASLAUTH with zxid 0
// and closes the connection; the session lives on until it expires, as in
// ZooKeeper's AuthenticationHelper.
func (c *conn) refuseUnauthenticated(xid int32, op wire.Op) *pending {
	c.srv.log.Warn("closing a connection that has not authenticated with an enforced scheme",
		"remote", c.nc.RemoteAddr().String(), "session", sessionHex(c.sessionID()), "op", op.String(), "schemes", c.srv.cfg.Security.EnforceAuthSchemes)
	return c.finalError(xid, wire.CodeSessionClosedRequireSASL, 0)
}
