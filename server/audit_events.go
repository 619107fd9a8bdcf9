package server

import (
	"errors"
	"strings"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// This file decides the audit log's lines (audit.go writes them), on the
// server the request came to, once its outcome is known, as ZooKeeper's
// AuditHelper does in its FinalRequestProcessor:
//
//   - create (every variant), delete, setData and setAcl: a line each;
//   - multi: when it succeeds, a line per create, delete and setData in
//     it (check writes none); when it fails, one multiOperation line;
//   - reconfig: a line, with znode /zookeeper/config when it succeeds;
//   - createSession and closeSession (zkraft's own), and for each
//     ephemeral the close deleted an ephemeralZNodeDeletionOnSessionCloseOrExpire
//     line by the server's user; an expiry is expireSession, by the
//     leader that proposed it;
//   - the console's create, setData and delete, and the AdminServer's
//     snapshot and restore, with no session.
//
// ZooKeeper's user is each identity's user name, comma-joined (auditUser);
// its result is success, failure, or invoked where the outcome is unknown.

// auditOutcome is the result of a proposal: success when it applied without
// error; failure when it applied with one (a failed multi applies without
// one: see multiEvents) or was refused before the log (disk full, a
// ZooKeeper code); invoked otherwise: the outcome is unknown.
func auditOutcome(a *consensus.Applied, err error) auditResult {
	var code wire.Code
	switch {
	case err == nil && a != nil && a.Result.Err == nil:
		return auditSuccess
	case err == nil, errors.As(err, &code):
		return auditFailure
	}
	return auditInvoked
}

// connEvent is an event of the connection's session and identities.
func (c *conn) connEvent(operation string, result auditResult) auditEvent {
	return auditEvent{session: c.sessionID(), user: auditUser(c.authIDs()), ip: c.ip, operation: operation, result: result}
}

// auditWrite writes the lines of a client's write (completeWrite) or
// closeSession: a is the applied entry (nil when err is not).
func (c *conn) auditWrite(op wire.Op, req wire.Record, a *consensus.Applied, err error) {
	if !c.srv.auditing() {
		return
	}
	ev := c.connEvent("", auditOutcome(a, err))
	var res *datatree.Result
	if a != nil {
		res = &a.Result
	}
	switch op {
	case wire.OpMulti:
		for _, e := range multiEvents(ev, req, res) {
			c.srv.audit(e)
		}
	case wire.OpCloseSession:
		ev.operation = auditCloseSession
		c.srv.audit(ev)
		c.srv.auditEphemerals(ev.session, res)
	default:
		if describeWrite(&ev, req, createdPath(res)) {
			c.srv.audit(ev)
		}
	}
}

// createdPath is the path a create made, "" for anything else.
func createdPath(res *datatree.Result) string {
	if res == nil {
		return ""
	}
	return res.Path
}

// describeWrite fills in ev's operation, znode, znode_type and acl for a
// write's request record, and reports whether the record is one the log
// has lines for. created is the path a successful create made (its
// sequence suffix included); a failed one logs the path asked for.
func describeWrite(ev *auditEvent, req wire.Record, created string) bool {
	switch r := req.(type) {
	case *wire.CreateRequest:
		ev.operation, ev.znode, ev.znodeType = auditCreate, r.Path, createMode(r.Flags)
	case *wire.CreateTTLRequest:
		ev.operation, ev.znode, ev.znodeType = auditCreate, r.Path, createMode(r.Flags)
	case *wire.DeleteRequest:
		ev.operation, ev.znode = auditDelete, r.Path
	case *wire.DeleteContainerRequest:
		ev.operation, ev.znode = auditDelete, r.Path
	case *wire.SetDataRequest:
		ev.operation, ev.znode = auditSetData, r.Path
	case *wire.SetACLRequest:
		ev.operation, ev.znode, ev.acl = auditSetACL, r.Path, aclString(r.ACL)
	default:
		return false
	}
	if ev.operation == auditCreate && ev.result == auditSuccess && created != "" {
		ev.znode = created
	}
	return true
}

// multiEvents are a multi's lines: one per create, delete and setData when
// every op succeeded, else a single multiOperation line.
func multiEvents(ev auditEvent, req wire.Record, res *datatree.Result) []auditEvent {
	m, ok := req.(*wire.MultiRequest)
	if ev.result == auditSuccess && (!ok || multiFailed(res.Multi) || len(res.Multi) != len(m.Ops)) {
		ev.result = auditFailure
	}
	if ev.result != auditSuccess {
		ev.operation = auditMulti
		return []auditEvent{ev}
	}
	var out []auditEvent
	for i, op := range m.Ops {
		e := ev
		if describeWrite(&e, op.Record, res.Multi[i].Path) {
			out = append(out, e)
		}
	}
	return out
}

// multiFailed reports whether a multi's results are a failure's (every
// result an error result, as ZooKeeper rolls the whole multi back).
func multiFailed(results []wire.MultiResult) bool {
	for _, r := range results {
		if r.Type == wire.OpError {
			return true
		}
	}
	return false
}

// createMode is ZooKeeper's CreateMode name, lower case, as its audit log
// writes znode_type; "" for a flag it does not know.
func createMode(flags int32) string {
	switch flags {
	case wire.FlagPersistent:
		return "persistent"
	case wire.FlagEphemeral:
		return "ephemeral"
	case wire.FlagPersistentSequential:
		return "persistent_sequential"
	case wire.FlagEphemeralSequential:
		return "ephemeral_sequential"
	case wire.FlagContainer:
		return "container"
	case wire.FlagPersistentWithTTL:
		return "persistent_with_ttl"
	case wire.FlagPersistentSequentialWithTTL:
		return "persistent_sequential_with_ttl"
	}
	return ""
}

// aclString is ZooKeeper's ZKUtil.aclToString, scheme:id:perms per entry
// with the perms as "cdrwa" letters, but with the entries separated by
// commas (ZooKeeper runs them together).
func aclString(acl []wire.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		parts[i] = a.ID.Scheme + ":" + a.ID.ID + ":" + permLetters(a.Perms)
	}
	return strings.Join(parts, ",")
}

// permLetters is ZKUtil.getPermString.
func permLetters(p int32) string {
	var b strings.Builder
	for _, l := range []struct {
		bit    int32
		letter byte
	}{{wire.PermCreate, 'c'}, {wire.PermDelete, 'd'}, {wire.PermRead, 'r'}, {wire.PermWrite, 'w'}, {wire.PermAdmin, 'a'}} {
		if p&l.bit != 0 {
			b.WriteByte(l.letter)
		}
	}
	return b.String()
}

// auditEphemerals writes a line per ephemeral a closeSession deleted, by
// the server's user, as ZooKeeper's DataTree.deleteNodes.
func (s *Server) auditEphemerals(session int64, res *datatree.Result) {
	if res == nil || res.Err != nil {
		return
	}
	for _, ev := range res.Events {
		if ev.Type == wire.EventNodeDeleted {
			s.audit(auditEvent{session: session, user: serverUser(), operation: auditEphemeralDeleted, znode: ev.Path})
		}
	}
}

// auditCreateSession writes the createSession line of a new session.
func (s *Server) auditCreateSession(c *conn, id int64, a *consensus.Applied, err error) {
	if !s.auditing() {
		return
	}
	ev := c.connEvent(auditCreateSession, auditOutcome(a, err))
	ev.session = id // not yet the connection's
	s.audit(ev)
}

// auditExpiry writes the lines of a session this leader expired.
func (s *Server) auditExpiry(id int64, a *consensus.Applied) {
	if !s.auditing() || a.Result.Err != nil {
		return // already closed: nothing happened
	}
	s.audit(auditEvent{session: id, user: serverUser(), operation: auditExpireSession})
	s.auditEphemerals(id, &a.Result)
}

// auditReconfig writes the line of a reconfig from its reply.
func (c *conn) auditReconfig(r *reply) {
	if !c.srv.auditing() {
		return
	}
	ev := c.connEvent(auditReconfig, auditSuccess)
	switch {
	case r.skip:
		ev.result = auditInvoked
	case r.hdr.Err != wire.CodeOK:
		ev.result = auditFailure
	default:
		ev.znode = "/zookeeper/config"
	}
	c.srv.audit(ev)
}

// httpEvent is an event of an HTTP caller: its address, and the user
// names of the identities its credentials verify (none when they do not).
func (s *Server) httpEvent(cred AdminCredentials, operation string, result auditResult) auditEvent {
	ev := auditEvent{ip: hostOnly(cred.RemoteIP), operation: operation, result: result, user: hostOnly(cred.RemoteIP)}
	if s.node != nil {
		c, _ := s.httpCaller(cred)
		ev.user = auditUser(c.ids)
	}
	return ev
}

// auditAdminWrite writes the line of a console write (admin_write.go).
func (s *Server) auditAdminWrite(cred AdminCredentials, req wire.Record, a *consensus.Applied, result auditResult) {
	if !s.auditing() {
		return
	}
	ev := s.httpEvent(cred, "", result)
	var res *datatree.Result
	if a != nil {
		res = &a.Result
	}
	if describeWrite(&ev, req, createdPath(res)) {
		s.audit(ev)
	}
}

// AuditAdminCommand writes the audit line of an AdminServer command that
// changes or copies the whole tree: operation is "snapshot" or "restore",
// cred the caller's credentials, succeeded whether it was carried out (a
// refused caller, a disabled or rate-limited command, and a snapshot cut
// off before its end are failures). It does nothing without audit.enable.
func (s *Server) AuditAdminCommand(operation string, cred AdminCredentials, succeeded bool) {
	if !s.auditing() {
		return
	}
	result := auditSuccess
	if !succeeded {
		result = auditFailure
	}
	s.audit(s.httpEvent(cred, operation, result))
}
