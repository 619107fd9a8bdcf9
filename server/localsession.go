package server

import (
	"errors"
	"sync"
	"time"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// Local sessions (localSessionsEnabled, ZooKeeper 3.5+): on an ensemble
// member, a new session is kept by the server the client connects to and
// costs no consensus round. Its id carries the server's id in its top byte,
// as every session id does, so it never clashes with another server's.
// Only this server knows it: it tracks its expiry, a reconnect to another
// server finds it expired, and its writes go through the log without a
// session (the log holds no createSession for it), as ZooKeeper's leader
// accepts a session it cannot validate from another server. A create of an
// ephemeral node needs a session every server knows: the session is then
// upgraded, proposed as a createSession with the same id and timeout, and
// becomes an ordinary global session (localSessionsUpgradingEnabled,
// default false as in ZooKeeper 3.8); with upgrading off, the create
// fails with EPHEMERALONLOCALSESSION.

// localSessions holds this server's local sessions.
type localSessions struct {
	mu       sync.Mutex
	timeouts map[int64]int32 // negotiated timeout (ms) by id
	tracker  *session.Tracker
}

// localSessionsOn reports whether new sessions are local here: the option
// is set and the server belongs to an ensemble (a standalone ZooKeeper
// ignores it).
func (s *Server) localSessionsOn() bool {
	return s.cfg.LocalSessionsEnabled && s.cfg.ensemble()
}

// startLocalSessions starts the local sessions' expiry, when they are on.
func (s *Server) startLocalSessions() {
	if !s.localSessionsOn() {
		return
	}
	s.local.timeouts = map[int64]int32{}
	s.local.tracker = session.NewTracker(s.clock, s.cfg.TickTime, s.expireLocal)
	s.local.tracker.Start()
}

// stopLocalSessions stops their expiry (Close).
func (s *Server) stopLocalSessions() {
	if s.local.tracker != nil {
		s.local.tracker.Stop()
	}
}

// createLocal makes a new local session with timeout (ms).
func (s *Server) createLocal(timeout int32) int64 {
	id := s.ids.Next()
	s.armLocal(id, timeout)
	return id
}

// armLocal records local session id with timeout (ms) and (re)starts its
// expiry. Under local.mu, as forgetLocal, so that an expiry cannot slip in
// between the two.
func (s *Server) armLocal(id int64, timeout int32) {
	s.local.mu.Lock()
	defer s.local.mu.Unlock()
	s.armLocalLocked(id, timeout)
}

func (s *Server) armLocalLocked(id int64, timeout int32) {
	s.local.timeouts[id] = timeout
	s.local.tracker.Add(id, time.Duration(timeout)*time.Millisecond)
}

// isLocal reports whether id is one of this server's local sessions.
func (s *Server) isLocal(id int64) bool {
	if s.local.tracker == nil {
		return false
	}
	s.local.mu.Lock()
	defer s.local.mu.Unlock()
	_, ok := s.local.timeouts[id]
	return ok
}

// resumeLocal re-arms a local session a client reconnects to this server
// with, under the newly negotiated timeout; false if it is not one (or
// the password is wrong).
func (s *Server) resumeLocal(id int64, passwd []byte, timeout int32) bool {
	if s.local.tracker == nil || !session.CheckPassword(id, passwd) {
		return false
	}
	s.local.mu.Lock()
	defer s.local.mu.Unlock()
	if _, ok := s.local.timeouts[id]; !ok {
		return false // never local here, or expired
	}
	s.armLocalLocked(id, timeout)
	return true
}

// forgetLocal drops a local session; false if it was not one.
func (s *Server) forgetLocal(id int64) bool {
	if s.local.tracker == nil {
		return false
	}
	s.local.mu.Lock()
	defer s.local.mu.Unlock()
	_, ok := s.local.timeouts[id]
	if ok {
		delete(s.local.timeouts, id)
		s.local.tracker.Remove(id)
	}
	return ok
}

// expireLocal ends a local session whose timeout passed: it has no
// ephemerals, so closing its connection (and with it its watches) is all.
func (s *Server) expireLocal(id int64) {
	if !s.forgetLocal(id) {
		return
	}
	s.log.Info("expiring local session", "session", sessionHex(id))
	s.m.staleSessionsExpired.Inc()
	s.mu.Lock()
	c := s.bySession[id]
	s.mu.Unlock()
	if c != nil && !c.closing.Load() {
		c.close()
	}
}

// localSessionCount is how many local sessions this server holds.
func (s *Server) localSessionCount() int {
	if s.local.tracker == nil {
		return 0
	}
	s.local.mu.Lock()
	defer s.local.mu.Unlock()
	return len(s.local.timeouts)
}

// errUpgradeFailed: the createSession that upgrades a local session did
// not commit; the write that needed it fails as a lost connection would.
var errUpgradeFailed = errors.New("server: upgrading a local session failed")

// prepLocalWrite readies a write of a local session: a write that creates
// an ephemeral node first upgrades the session (or fails with
// EPHEMERALONLOCALSESSION when upgrading is off); any other write goes
// through the log without a session. It returns the session the write
// carries.
func (s *Server) prepLocalWrite(c *conn, req wire.Record) (int64, error) {
	id := c.sessionID()
	if !createsEphemeral(req) {
		return 0, nil
	}
	if !s.cfg.LocalSessionsUpgradingEnabled {
		return 0, wire.CodeEphemeralOnLocalSession
	}
	if err := s.upgradeLocal(c, id); err != nil {
		return 0, err
	}
	return id, nil
}

// upgradeLocal makes local session id global: a createSession with its id
// and timeout through the log. On the leader the expiry tracker takes it
// over when that is applied; on a follower its next touch carries it.
func (s *Server) upgradeLocal(c *conn, id int64) error {
	s.local.mu.Lock()
	timeout, ok := s.local.timeouts[id]
	s.local.mu.Unlock()
	if !ok {
		return wire.CodeSessionExpired
	}
	cmd := &consensus.Command{Kind: consensus.KindCreateSession, Session: id, Timeout: timeout, Time: s.nowMillis()}
	a, err := s.node.Propose(s.life, cmd)
	s.auditCreateSession(c, id, a, err)
	if err != nil {
		s.log.Warn("upgrading a local session failed", "session", sessionHex(id), "err", err)
		return errUpgradeFailed
	}
	s.forgetLocal(id)
	c.local.Store(false)
	s.log.Debug("local session upgraded to global", "session", sessionHex(id))
	return nil
}

// createsEphemeral reports whether a write creates an ephemeral node, at
// the top level or inside a multi.
func createsEphemeral(req wire.Record) bool {
	switch r := req.(type) {
	case *wire.CreateRequest:
		return r.Flags == wire.FlagEphemeral || r.Flags == wire.FlagEphemeralSequential
	case *wire.MultiRequest:
		for _, op := range r.Ops {
			if (op.Type == wire.OpCreate || op.Type == wire.OpCreate2) && createsEphemeral(op.Record) {
				return true
			}
		}
	}
	return false
}
