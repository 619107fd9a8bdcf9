package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/zkraft/zkraft/auth/jaas"
	"github.com/zkraft/zkraft/auth/sasl"
	"github.com/zkraft/zkraft/wire"
)

// defaultJAASSection is the JAAS section a ZooKeeper server logs in with
// (zookeeper.sasl.serverconfig).
const defaultJAASSection = "Server"

// saslLogin is the SASL mechanism the server's JAAS section configures:
// GSSAPI when it logs in with a Kerberos key (Krb5LoginModule), else
// DIGEST-MD5 with the section's users, as ZooKeeper picks GSSAPI when its
// login holds a Kerberos principal. A nil *saslLogin means no SASL login,
// and the server answers SASL requests as ZooKeeper without one does.
type saslLogin struct {
	mech interface{ NewServer() sasl.Server }
}

// loadSASL reads the JAAS file named by the configuration. A file that
// cannot be read or parsed stops the start, as it stops ZooKeeper's; a
// file without the server's section configures no SASL login (ZooKeeper
// then serves without one too); a login module zkraft does not know stops
// the start too.
func loadSASL(sec Security, lookup func(string) (string, bool)) (*saslLogin, error) {
	if sec.JAASFile == "" {
		return nil, nil
	}
	cfg, err := jaas.ParseFile(sec.JAASFile, lookup)
	if err != nil {
		return nil, fmt.Errorf("server: JAAS login configuration: %w", err)
	}
	section := sec.JAASSection
	if section == "" {
		section = defaultJAASSection
	}
	entries, ok := cfg.Section(section)
	if !ok {
		return nil, nil
	}
	var kerberos *jaas.Entry
	for i, e := range entries {
		switch e.Module {
		case jaas.DigestLoginModule:
		case jaas.Krb5LoginModule:
			kerberos = &entries[i]
		default:
			return nil, fmt.Errorf("server: JAAS section %s: login module %s: %w (zkraft serves SASL with %s and %s)",
				section, e.Module, errUnsupportedSecurity, jaas.DigestLoginModule, jaas.Krb5LoginModule)
		}
	}
	if kerberos != nil {
		g, err := loadKerberos(*kerberos, sec)
		if err != nil {
			return nil, fmt.Errorf("server: JAAS section %s: %w", section, err)
		}
		return &saslLogin{mech: g}, nil
	}
	users, err := cfg.DigestUsers(section)
	if err != nil {
		return nil, fmt.Errorf("server: JAAS section %s: %w", section, err)
	}
	if sec.SASLSuperPassword != "" {
		users["super"] = sec.SASLSuperPassword
	}
	return &saslLogin{mech: &sasl.DigestMD5{Users: users}}, nil
}

// errNoKeytab refuses a Kerberos server login zkraft cannot perform.
var errNoKeytab = errors.New("a Kerberos server login needs useKeyTab=true and keyTab=FILE (zkraft reads no ticket cache)")

// loadKerberos reads the service key of a Krb5LoginModule entry (options
// useKeyTab, keyTab, principal, as ZooKeeper's documentation writes them).
func loadKerberos(e jaas.Entry, sec Security) (*sasl.GSSAPI, error) {
	if !strings.EqualFold(e.Options["useKeyTab"], "true") || e.Options["keyTab"] == "" {
		return nil, fmt.Errorf("%s: %w", jaas.Krb5LoginModule, errNoKeytab)
	}
	kt, err := keytab.Load(e.Options["keyTab"])
	if err != nil {
		return nil, fmt.Errorf("%s: keyTab %s: %w", jaas.Krb5LoginModule, e.Options["keyTab"], err)
	}
	return &sasl.GSSAPI{Keytab: kt, Principal: e.Options["principal"],
		RemoveHostFromPrincipal: sec.KerberosRemoveHost, RemoveRealmFromPrincipal: sec.KerberosRemoveRealm}, nil
}

// handleSASL serves one SASL token (opcode 102), as ZooKeeperServer's
// processSasl does.
//
// Without a SASL login it answers as ZooKeeper without one: OK with a
// null token, and the connection stays unauthenticated. A null client
// token (length -1) makes ZooKeeper 3.8 fail in processSasl before any
// reply: the connection closes.
//
// With one, the connection's exchange takes the token. Once it completes,
// the connection holds sasl:<id> (and super when id is zookeeper.superUser).
// A failed exchange answers AUTHFAILED, or SESSIONCLOSEDREQUIRESASLAUTH when
// SASL is enforced, and closes the connection, unless
// zookeeper.allowSaslFailedClients keeps it (then the answer is OK with a
// null token, and the connection stays unauthenticated).
func handleSASL(c *conn, xid int32, req wire.Record) *pending {
	token := req.(*wire.SASLRequest).Token
	if token == nil {
		return &pending{xid: xid, op: wire.OpSASL, start: time.Now(), final: true, ready: &reply{skip: true}}
	}
	login := c.srv.sasl
	if login == nil {
		return readyReply(xid, wire.OpSASL, authReplyZxid, &wire.SASLResponse{})
	}
	if c.saslExchange == nil {
		c.saslExchange = login.mech.NewServer()
	}
	challenge, done, err := c.saslExchange.Step(token)
	if err != nil {
		return c.saslFailed(xid, err)
	}
	if done {
		c.saslSucceeded(c.saslExchange.AuthorizationID())
	}
	return readyReply(xid, wire.OpSASL, authReplyZxid, &wire.SASLResponse{Token: challenge})
}

// saslSucceeded gives the connection the ids a completed exchange earns.
func (c *conn) saslSucceeded(id string) {
	c.addAuth(wire.Id{Scheme: "sasl", ID: id})
	c.srv.log.Info("SASL authentication succeeded", "remote", c.nc.RemoteAddr().String(),
		"session", sessionHex(c.sessionID()), "id", "sasl:"+id)
	if su := c.srv.cfg.Security.SuperUser; su != "" && su == id {
		c.addAuth(wire.Id{Scheme: "super", ID: ""})
		c.srv.log.Info("SASL id is the super user", "id", id)
	}
}

// saslFailed answers a failed exchange (see handleSASL).
func (c *conn) saslFailed(xid int32, err error) *pending {
	sec := &c.srv.cfg.Security
	required := sec.saslEnforced()
	level := slog.LevelWarn
	if c.saslFailures++; c.saslFailures > 1 {
		level = slog.LevelDebug // a kept connection that goes on failing: one warning is enough
	}
	c.srv.log.Log(context.Background(), level, "SASL authentication failed", "remote", c.nc.RemoteAddr().String(),
		"session", sessionHex(c.sessionID()), "err", err,
		"keep_connection", sec.AllowSASLFailedClients && !required)
	if sec.AllowSASLFailedClients && !required {
		return readyReply(xid, wire.OpSASL, authReplyZxid, &wire.SASLResponse{})
	}
	c.srv.m.authFailed.Add(1)
	code := wire.CodeAuthFailed
	if required {
		code = wire.CodeSessionClosedRequireSASL
	}
	p := c.finalError(xid, code, authReplyZxid)
	p.op = wire.OpSASL
	p.ready.body = &wire.SASLResponse{} // ZooKeeper sends a null token with the error
	return p
}
