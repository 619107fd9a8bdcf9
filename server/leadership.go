package server

import (
	"sync"
	"time"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/session"
)

// duties are the jobs only the leader runs: the session expiry tracker and
// the container reaper. They start when this server becomes leader (every
// known session gets a full timeout, as a new ZooKeeper leader gives them)
// and stop when it loses leadership.
type duties struct {
	mu      sync.Mutex
	tracker *session.Tracker
	reaper  *reaper
	since   time.Time // when this server took up its leader duties
	// term is the Raft term these duties were started in: the expiries
	// they decide are proposed only while this server leads in it.
	term uint64
}

// leaderTerm is the term of the running leader duties (0: none).
func (s *Server) leaderTerm() uint64 {
	s.duties.mu.Lock()
	defer s.duties.mu.Unlock()
	if s.duties.tracker == nil {
		return 0
	}
	return s.duties.term
}

// leaderUptime is how long this server has led, and whether it leads.
func (s *Server) leaderUptime() (time.Duration, bool) {
	s.duties.mu.Lock()
	defer s.duties.mu.Unlock()
	if s.duties.tracker == nil {
		return 0, false
	}
	return s.clock.Now().Sub(s.duties.since), true
}

// currentTracker returns the expiry tracker while this server leads, else nil.
func (s *Server) currentTracker() *session.Tracker {
	s.duties.mu.Lock()
	defer s.duties.mu.Unlock()
	return s.duties.tracker
}

// becomeLeader starts the leader's duties unless they already run.
func (s *Server) becomeLeader() {
	s.duties.mu.Lock()
	running := s.duties.tracker != nil
	s.duties.mu.Unlock()
	if running {
		return
	}
	t := session.NewTracker(s.clock, s.cfg.TickTime, s.expireSession)
	s.trackAll(t)
	s.duties.mu.Lock()
	s.duties.tracker, s.duties.since, s.duties.term = t, s.clock.Now(), s.node.Epoch()
	s.duties.mu.Unlock()
	// A session created between the first pass and publishing the tracker
	// was not seen by the apply hook either: a second pass catches it.
	s.trackAll(t)
	t.Start()
	r := newReaper(s)
	r.start()
	s.duties.mu.Lock()
	s.duties.reaper = r
	s.duties.mu.Unlock()
	s.log.Debug("leader duties started", "epoch", s.node.Epoch(), "sessions", t.Len())
}

// trackAll gives every replicated session a full timeout on t.
func (s *Server) trackAll(t *session.Tracker) {
	for _, info := range s.node.Sessions() {
		t.Add(info.ID, time.Duration(info.Timeout)*time.Millisecond)
	}
}

// stopLeading stops the leader's duties, if they run.
func (s *Server) stopLeading() {
	s.duties.mu.Lock()
	t, r := s.duties.tracker, s.duties.reaper
	s.duties.tracker, s.duties.reaper = nil, nil
	s.duties.mu.Unlock()
	if r != nil {
		r.stop()
	}
	if t != nil {
		t.Stop()
	}
}

// touchedSet collects the sessions a follower saw alive since its last tick.
type touchedSet struct {
	mu  sync.Mutex
	ids map[int64]struct{}
}

func (ts *touchedSet) add(id int64) {
	ts.mu.Lock()
	if ts.ids == nil {
		ts.ids = make(map[int64]struct{})
	}
	ts.ids[id] = struct{}{}
	ts.mu.Unlock()
}

func (ts *touchedSet) drain() []int64 {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]int64, 0, len(ts.ids))
	for id := range ts.ids {
		out = append(out, id)
	}
	ts.ids = nil
	return out
}

// touchRemote marks sessions alive on the leader's tracker; it is the
// node's handler for the touches followers send.
func (s *Server) touchRemote(ids []int64) {
	if t := s.currentTracker(); t != nil {
		for _, id := range ids {
			t.Touch(id)
		}
	}
}

// watchRole follows leadership changes, and every tick sends the sessions
// this server saw alive to the leader and checks that a quorum is still
// there: a server without a leader drops its clients, as ZooKeeper does.
// It waits for a second tick without one first: while the leadership
// moves (a hand-over, a reconfig removing the leader), a follower knows no
// leader for a moment, which is not the lost quorum ZooKeeper's followers
// drop their clients for.
func (s *Server) watchRole(done <-chan struct{}) {
	defer s.wg.Done()
	events := &eventLog{s: s}
	stopObserving := s.node.Observe(events.log)
	defer stopObserving()
	events.current() // a leader elected before Observe was registered
	var disk diskWatch
	tick := time.NewTicker(s.cfg.TickTime)
	defer tick.Stop()
	removed, leaderless := false, 0
	for {
		select {
		case leading := <-s.node.LeaderCh():
			if leading {
				s.becomeLeader()
			} else {
				s.stopLeading()
			}
		case <-tick.C:
			disk.check(s)
			s.node.Touch(s.touched.drain())
			removed = s.noteRemoved(removed)
			switch {
			case s.node.HasLeader():
				leaderless = 0
				s.dropClients("quorum is back", (*conn).isReadOnly)
			case removed:
				// A tick's grace too: a client that removed this server
				// gets its answer first.
				if leaderless++; leaderless > 1 {
					s.dropClients("removed from the ensemble", (*conn).isReadWrite)
				}
			default:
				if leaderless++; leaderless > 1 && s.leaderlessSinceLastTick() {
					s.dropClients("no quorum", (*conn).isReadWrite)
				}
			}
		case <-done:
			return
		}
	}
}

// leaderlessSinceLastTick reports whether no leader has been heard from
// for a whole tick. Two leaderless ticks alone do not say so: a follower
// that found the leader just after one tick and lost it just before the
// next (a leader that dies right after the ensemble starts) has had a
// leader in between.
func (s *Server) leaderlessSinceLastTick() bool {
	return time.Since(s.node.LeaderContact()) >= s.cfg.TickTime
}

// noteRemoved logs when a reconfig takes this server out of the ensemble
// or adds it back (was: whether it was out at the last tick).
func (s *Server) noteRemoved(was bool) bool {
	removed := s.node.Removed()
	switch {
	case removed && !was:
		s.log.Warn("a reconfig removed this server from the ensemble: it serves no clients and applies no writes until a reconfig adds it back", "id", s.cfg.ServerID)
	case !removed && was:
		s.log.Info("a reconfig added this server back to the ensemble", "id", s.cfg.ServerID)
	}
	return removed
}

// dropClients closes the client connections with a session that match.
// It runs every tick, so it scans the connections as they are, without
// sessionConns's sort by remote address (for cons): with 19,800 clients
// the sort cost about 75 ms of CPU every tick (12% of the server's CPU
// in a zkbench -op conns profile) and allocated two strings a client.
func (s *Server) dropClients(reason string, match func(*conn) bool) {
	var drop []*conn
	for _, c := range s.connections() {
		if c.sessionID() != 0 && match(c) {
			drop = append(drop, c)
		}
	}
	if len(drop) == 0 {
		return
	}
	s.log.Warn("closing client connections", "reason", reason, "count", len(drop))
	for _, c := range drop {
		c.close()
	}
}

func (c *conn) isReadOnly() bool  { return c.readOnly.Load() }
func (c *conn) isReadWrite() bool { return !c.readOnly.Load() }

// eventLog logs one line per leader change and per peer outage and
// recovery, on every server (peer outages are only seen by the leader).
type eventLog struct {
	s          *Server
	mu         sync.Mutex
	lastLeader string // "" before the first line and while looking
}

// current logs the leader this server knows now, unless an event did.
func (l *eventLog) current() {
	if id, addr := l.s.node.Leader(); id != "" {
		l.log(consensus.Event{Kind: consensus.LeaderChanged, LeaderID: id, LeaderAddr: addr, Term: l.s.node.Epoch()})
	}
}

func (l *eventLog) log(ev consensus.Event) {
	s := l.s
	switch ev.Kind {
	case consensus.LeaderChanged:
		l.mu.Lock()
		same := ev.LeaderID == l.lastLeader
		l.lastLeader = ev.LeaderID
		l.mu.Unlock()
		if same {
			return
		}
		if ev.LeaderID == "" {
			s.log.Info("leader lost; looking for a leader", "epoch", ev.Term)
			return
		}
		s.log.Info("leader changed", "leader", ev.LeaderID, "leader_addr", ev.LeaderAddr,
			"epoch", ev.Term, "self", s.cfg.ServerID, "role", s.node.Role())
	case consensus.PeerUnreachable:
		s.log.Warn("peer unreachable", "peer", ev.PeerID, "addr", ev.PeerAddr, "epoch", ev.Term)
	case consensus.PeerReachable:
		s.log.Info("peer reachable again", "peer", ev.PeerID, "addr", ev.PeerAddr, "epoch", ev.Term)
	}
}
