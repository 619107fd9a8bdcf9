package server

import (
	"context"
	"errors"
	"time"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// sessionOps are handled by the reader as they arrive.
func sessionOps() map[wire.Op]handler {
	return map[wire.Op]handler{
		wire.OpCloseSession: {kind: kindNow, now: handleCloseSession},
		wire.OpAuth:         {kind: kindNow, now: handleAuth},
		wire.OpSASL:         {kind: kindNow, now: handleSASL},
		wire.OpReconfig:     {kind: kindNow, now: handleReconfig},
	}
}

// connect answers a ConnectRequest: a new session is created through Raft;
// a reconnect must name a live session with its password. It reports
// whether the connection continues.
func (s *Server) connect(c *conn, req *wire.ConnectRequest) bool {
	s.m.connectionRequests.Inc()
	if !s.node.HasLeader() {
		// Not part of a working quorum: ZooKeeper serves only read-only
		// clients then, and only with readonlymode.enabled.
		if s.cfg.ReadOnlyMode && req.HasReadOnly && req.ReadOnly {
			return s.connectReadOnly(c, req)
		}
		if !s.handshakeWait(req.TimeOut, s.node.AwaitLeader) {
			return false
		}
	}
	synced := s.node.AwaitSynced
	if req.SessionID != 0 {
		synced = s.node.AwaitFresh // it may have lost a write's outcome
	}
	if !s.handshakeWait(req.TimeOut, synced) {
		// Like ZooKeeper's followers before the new leader's UPTODATE:
		// the client tries another server or this one again.
		s.log.Info("refusing client: not yet synchronised with the leader of this epoch", "epoch", s.node.Epoch())
		return false
	}
	if req.LastZxidSeen > s.node.LastZxid() && !s.handshakeWait(req.TimeOut, func(ctx context.Context) bool {
		return s.node.AwaitZxid(ctx, req.LastZxidSeen)
	}) {
		// The client has seen newer state than ours, and this server did
		// not apply it within the wait: ZooKeeper drops the connection
		// without a reply so the client tries another server. (The client
		// saw it in a reply, so it is committed and on its way here; after
		// a leader change this server is often a few entries behind.)
		s.log.Info("refusing client ahead of server", "client_zxid", req.LastZxidSeen, "server_zxid", s.node.LastZxid())
		return false
	}
	timeout := session.Negotiate(req.TimeOut, millis(s.cfg.MinSession()), millis(s.cfg.MaxSession()))
	resp := wire.ConnectResponse{TimeOut: timeout, HasReadOnly: req.HasReadOnly}
	id := req.SessionID
	local := false
	switch {
	case id == 0 && s.localSessionsOn():
		id, local = s.createLocal(timeout), true
	case id != 0 && s.resumeLocal(id, req.Passwd, timeout):
		s.dropSession(id)
		local = true
	case id == 0:
		id = s.ids.Next()
		cmd := &consensus.Command{Kind: consensus.KindCreateSession, Session: id, Timeout: timeout, Time: s.nowMillis()}
		a, err := s.node.Propose(s.life, cmd)
		s.auditCreateSession(c, id, a, err)
		if err != nil {
			if !errors.Is(err, consensus.ErrDiskFull) { // reported once by the disk state line
				s.log.Warn("create session failed", "err", err)
			}
			return false
		}
	default:
		s.dropSession(id)
		switch valid, sure := s.checkResumed(id, req.Passwd); {
		case !sure:
			return false // the client tries another server
		case !valid:
			resp = wire.ConnectResponse{Passwd: make([]byte, 16), HasReadOnly: req.HasReadOnly}
			c.writeFrame(&resp)
			return false
		}
	}
	resp.SessionID, resp.Passwd = id, session.Password(id)
	c.session.Store(id)
	c.timeout.Store(timeout)
	c.local.Store(local)
	s.bind(c, id)
	if !local && !s.track(id, timeout, req.SessionID == 0) {
		// The session expired between the check and now: answer as for
		// any expired session.
		resp = wire.ConnectResponse{Passwd: make([]byte, 16), HasReadOnly: req.HasReadOnly}
		c.writeFrame(&resp)
		return false
	}
	return c.writeFrame(&resp) == nil
}

// connectReadOnly admits a client that accepts read-only service while
// this server has no quorum. Its session is local: a known session keeps
// its id, a new one gets an id no other server knows, and nothing goes
// through the log. The connection is closed when the quorum returns.
func (s *Server) connectReadOnly(c *conn, req *wire.ConnectRequest) bool {
	timeout := session.Negotiate(req.TimeOut, millis(s.cfg.MinSession()), millis(s.cfg.MaxSession()))
	id := req.SessionID
	if id == 0 || !s.sessionValid(id, req.Passwd) {
		id = s.ids.Next()
	}
	c.readOnly.Store(true)
	c.session.Store(id)
	c.timeout.Store(timeout)
	s.bind(c, id)
	resp := wire.ConnectResponse{TimeOut: timeout, SessionID: id, Passwd: session.Password(id), ReadOnly: true, HasReadOnly: true}
	return c.writeFrame(&resp) == nil
}

// readOnlyMode reports whether this server serves read-only clients now:
// it is configured to, belongs to an ensemble and has lost its quorum.
func (s *Server) readOnlyMode() bool {
	return s.cfg.ReadOnlyMode && s.cfg.ensemble() && !s.node.HasLeader()
}

// track arms the expiry of a new session, or refreshes a reconnecting one
// with its newly negotiated timeout. A session the tracker already expired
// (its closeSession is on the way) cannot be revived.
//
// A new session is added to the leader's tracker when its createSession
// is applied there; a follower tells the leader about a reconnect with its
// next touch.
func (s *Server) track(id int64, timeout int32, isNew bool) bool {
	if isNew {
		return true
	}
	t := s.currentTracker()
	if t == nil {
		s.touched.add(id)
		return true
	}
	// The session is in the replicated table (checked by the caller); the
	// tracker may not know it yet if this server has just become leader.
	if t.IsClosing(id) {
		return false
	}
	t.Add(id, time.Duration(timeout)*time.Millisecond)
	return true
}

// checkResumed checks a resumed session against this server's replica
// and, when the replica does not know it, once more after applying
// everything the leader had appended: a replica a little behind (a
// follower under load, a leader just elected that has yet to apply its
// predecessor's last entries) may not have applied the session's
// createSession yet, and telling the client its session expired would end
// a live session. sure is false when that sync failed.
func (s *Server) checkResumed(id int64, passwd []byte) (valid, sure bool) {
	if s.sessionValid(id, passwd) {
		return true, true
	}
	if !session.CheckPassword(id, passwd) {
		return false, true
	}
	ctx, cancel := context.WithTimeout(s.life, s.cfg.MaxSession())
	defer cancel()
	if s.node.Sync(ctx) != nil {
		return false, false
	}
	return s.sessionValid(id, passwd), true
}

func (s *Server) sessionValid(id int64, passwd []byte) bool {
	if !session.CheckPassword(id, passwd) {
		return false
	}
	ok := false
	s.node.Read(func(st *consensus.State) { _, ok = st.Sessions.Get(id) })
	return ok
}

// dropSession closes the connection a session has on this server, as
// ZooKeeper does when any client asks to resume that session, before it
// even checks the password.
func (s *Server) dropSession(id int64) {
	s.mu.Lock()
	old := s.bySession[id]
	delete(s.bySession, id)
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// bind makes c the session's connection, closing any earlier one.
func (s *Server) bind(c *conn, id int64) {
	s.mu.Lock()
	old := s.bySession[id]
	s.bySession[id] = c
	s.mu.Unlock()
	if old != nil && old != c {
		old.close()
	}
}

// countsAsActivity reports whether a request of type op keeps its session
// alive. As in ZooKeeper, which touches a session only for requests it
// submits to its processor chain, auth and sasl packets do not: a client
// that sends nothing else (kazoo retrying a SASL handshake the server does
// not offer) lets its session expire and learns so, instead of looping for
// ever. Pings and every other request, unknown opcodes included, count.
func countsAsActivity(op wire.Op) bool {
	return op != wire.OpAuth && op != wire.OpSASL
}

// touch keeps the connection's session alive (see countsAsActivity).
func (s *Server) touch(c *conn) {
	id := c.sessionID()
	if id == 0 || c.readOnly.Load() {
		return
	}
	if c.local.Load() {
		s.local.tracker.Touch(id)
		return
	}
	if t := s.currentTracker(); t != nil {
		t.Touch(id)
	} else {
		s.touched.add(id)
	}
}

// expireSession proposes closeSession for a session whose timeout passed,
// as the leader whose tracker decided it (see consensus.ProposeAsLeader).
func (s *Server) expireSession(id int64) {
	term := s.leaderTerm()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		cmd := &consensus.Command{Kind: consensus.KindCloseSession, Session: id, Time: s.nowMillis()}
		a, err := s.node.ProposeAsLeader(s.life, cmd, term)
		if errors.Is(err, consensus.ErrNotLeader) {
			// Decided by the leader this server was: another leader
			// tracks the session now, with a full timeout of its own.
			s.log.Info("not expiring session: this server no longer leads the term that tracked it", "session", sessionHex(id), "term", term)
			return
		}
		if err == nil {
			s.log.Info("expired session", "session", sessionHex(id))
			s.m.staleSessionsExpired.Inc()
			s.auditExpiry(id, a)
		}
		if errors.Is(err, consensus.ErrDiskFull) {
			// Not expired: try again a tick later, until the log takes it.
			if t := s.currentTracker(); t != nil {
				t.Add(id, s.cfg.TickTime)
			}
		} else if err != nil {
			s.log.Warn("expire session failed", "session", sessionHex(id), "err", err)
		}
	}()
}

// onApply runs for every applied log entry under the state write lock:
// it queues watch events and ends the connections of closed sessions.
func (s *Server) onApply(a *consensus.Applied) {
	for _, ev := range a.Result.Events {
		s.m.watchersFired(ev.Type, s.watches.trigger(ev))
	}
	if a.Result.Err == nil && a.Command.Txn != nil {
		s.m.appliedWrites(a.Command.Txn.Body)
	}
	t := s.currentTracker()
	switch a.Command.Kind {
	case consensus.KindCreateSession:
		if t != nil {
			t.Add(a.Command.Session, time.Duration(a.Command.Timeout)*time.Millisecond)
		}
		return
	case consensus.KindCloseSession:
	default:
		return
	}
	id := a.Command.Session
	if t != nil {
		t.Remove(id)
	}
	s.mu.Lock()
	c := s.bySession[id]
	s.mu.Unlock()
	if c != nil && !c.closing.Load() {
		c.close() // expired: the client learns it when it reconnects
	}
}

// handleCloseSession proposes the close; the reply is the connection's last.
func handleCloseSession(c *conn, xid int32, _ wire.Record) *pending {
	c.closing.Store(true)
	if c.readOnly.Load() || c.local.Load() && c.srv.forgetLocal(c.sessionID()) {
		// A read-only or local session is this server's alone: closing it
		// is closing the connection (nothing goes through the log).
		p := readyReply(xid, wire.OpCloseSession, c.srv.node.LastZxid(), nil)
		p.final = true
		return p
	}
	cmd := &consensus.Command{Kind: consensus.KindCloseSession, Session: c.sessionID(), Time: c.srv.nowMillis()}
	return &pending{
		xid: xid, op: wire.OpCloseSession, start: time.Now(), final: true,
		fut: c.srv.node.ProposeAsync(cmd), respond: respondNone,
	}
}

// handleAuth adds an identity at once, so requests after it use it. The
// digest scheme accepts any user:password; the super digest also grants
// super. Unknown schemes fail and close the connection, as in ZooKeeper.
func handleAuth(c *conn, xid int32, req wire.Record) *pending {
	a := req.(*wire.AuthPacket)
	switch {
	case a.Scheme == "digest" && a.Auth == nil:
		// A null auth buffer (length -1): ZooKeeper's digest provider
		// fails on it, so the auth fails and the connection closes.
		return authFailed(c, xid)
	case a.Scheme == "digest":
		id := wire.Id{Scheme: "digest", ID: datatree.DigestID(string(a.Auth))}
		c.addAuth(id)
		if sd := c.srv.cfg.SuperDigest; sd != "" && id.ID == sd {
			c.addAuth(wire.Id{Scheme: "super", ID: ""})
		}
	case a.Scheme == "ip":
		// The connection already carries its address as an ip identity.
	case a.Scheme == "x509" && c.hasScheme("x509"):
		// The certificate already earned it at the TLS handshake; without
		// one (plaintext, or no client certificate) x509 fails as in
		// ZooKeeper.
	default:
		return authFailed(c, xid)
	}
	return readyReply(xid, wire.OpAuth, authReplyZxid, nil)
}

// authFailed answers AUTHFAILED and closes the connection, as ZooKeeper.
func authFailed(c *conn, xid int32) *pending {
	c.srv.m.authFailed.Add(1)
	p := c.finalError(xid, wire.CodeAuthFailed, authReplyZxid)
	p.op = wire.OpAuth
	return p
}

func millis(d time.Duration) int32 { return int32(d / time.Millisecond) }

// handshakeWait holds a handshake until await reports success, for up to
// two ticks and no more than a third of the session timeout the client
// asks for. It serves a client that connects while there is no leader (an
// election is most likely under way) or that has seen entries this server
// has not applied yet. ZooKeeper refuses both at once; the client then
// tries the other servers, which are electing or catching up too, and most
// clients pause (go-zookeeper for a second) once they have tried them all,
// so a refused client stays away well after the election ended.
func (s *Server) handshakeWait(askedMillis int32, await func(context.Context) bool) bool {
	wait := min(2*s.cfg.TickTime, time.Duration(askedMillis)*time.Millisecond/3)
	ctx, cancel := context.WithCancel(s.life)
	defer cancel()
	t := s.clock.AfterFunc(wait, cancel)
	defer t.Stop()
	return await(ctx)
}
