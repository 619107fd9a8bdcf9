package server

import (
	"net"
	"strconv"

	"github.com/zkraft/zkraft/consensus"
)

// Read-only views of this server's place in its ensemble, for the
// AdminServer (package admin): who leads, who votes, the ZAB state that
// Raft's state maps to.

// Serving reports whether the server serves clients now: it knows a
// leader and has caught up with it in the leader's term (a standalone
// server always has), or it serves read-only clients in read-only mode.
// The four-letter words and the AdminServer commands that need a running
// ZooKeeper answer "not currently serving requests" otherwise, so that
// nothing reads a restarted server's srvr or mntr as the state it serves
// before it has the leader's.
func (s *Server) Serving() bool {
	if s.readOnlyMode() {
		return true
	}
	if s.Standalone() {
		return s.node.HasLeader()
	}
	return s.node.SyncedThisTerm()
}

// Mode is srvr's Mode: standalone, leader, follower, observer, looking,
// removed, or read-only while serving read-only clients without a quorum.
func (s *Server) Mode() string { return s.mode() }

// ReadOnly reports whether the server runs in read-only mode now.
func (s *Server) ReadOnly() bool { return s.readOnlyMode() }

// Config returns the configuration the server runs with.
func (s *Server) Config() Config { return s.cfg }

// ClientPort returns the port the client listener is bound to.
func (s *Server) ClientPort() int { return s.port() }

// LastZxid returns the zxid of the last transaction applied here.
func (s *Server) LastZxid() int64 { return s.node.LastZxid() }

// Standalone reports whether the server runs alone rather than as a
// member of an ensemble.
func (s *Server) Standalone() bool { return !s.cfg.ensemble() }

// Member is one server of the ensemble as the configuration lists it.
type Member struct {
	// ID is its myid.
	ID int64
	// PeerAddr and ElectionAddr are host:port of its server.N line's
	// peer and election ports (Raft's and the forwarding port here).
	PeerAddr, ElectionAddr string
	// ClientAddr is host:port of its client port when known ("" when its
	// server.N line has no ;port and it is another server).
	ClientAddr string
	// Observer is true for a non-voting member.
	Observer bool
	// Reachable is, on the leader, whether its heartbeats reach the
	// member now; false elsewhere.
	Reachable bool
}

// Members lists the ensemble's members by id (nil when standalone).
func (s *Server) Members() []Member {
	if s.Standalone() {
		return nil
	}
	peers := s.node.Peers()
	out := make([]Member, 0, len(peers))
	for _, p := range peers {
		out = append(out, s.member(p))
	}
	return out
}

func (s *Server) member(p consensus.Peer) Member {
	m := Member{ID: p.ID, PeerAddr: p.RaftAddr, ElectionAddr: p.ForwardAddr, Observer: p.Observer}
	if p.Client != "" {
		m.ClientAddr = p.Client
		if host, port, err := net.SplitHostPort(p.Client); err == nil && (host == "" || host == "0.0.0.0") {
			m.ClientAddr = net.JoinHostPort(peerHost(p.RaftAddr), port)
		}
	}
	if p.ID == s.cfg.ServerID {
		m.ClientAddr = s.clientAddr()
	}
	if p.ID != s.cfg.ServerID {
		m.Reachable = s.node.PeerReachable(p.ID)
	}
	return m
}

// clientAddr is host:port of this server's client listener, with the
// peer address's host when it listens on every interface.
func (s *Server) clientAddr() string {
	host := s.cfg.ClientPortAddress
	if host == "" || host == "0.0.0.0" {
		host = "0.0.0.0"
		if p, ok := s.self(); ok {
			host = peerHost(p.RaftAddr)
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(s.port()))
}

// self returns this server's own entry in the membership.
func (s *Server) self() (consensus.Peer, bool) {
	for _, p := range s.node.Peers() {
		if p.ID == s.cfg.ServerID {
			return p, true
		}
	}
	return consensus.Peer{}, false
}

func peerHost(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// Leadership is what the AdminServer's leader and zabstate commands show.
type Leadership struct {
	// IsLeader is true on the leader.
	IsLeader bool
	// LeaderID is the leader's myid, 0 while none is known.
	LeaderID int64
	// LeaderHost is the host of the leader's peer address, "" while none
	// is known.
	LeaderHost string
	// Voting is true when this server is a voter of the ensemble.
	Voting bool
	// Self is this server's own entry (zero when standalone).
	Self Member
	// ZabState maps Raft's state to ZAB's phase: broadcast with a leader
	// (this server caught up with it in the current term), synchronization
	// with a leader it has not caught up with yet, election without one;
	// "" when standalone.
	ZabState string
}

// Leadership returns the server's view of its ensemble's leadership.
func (s *Server) Leadership() Leadership {
	l := Leadership{IsLeader: s.node.IsLeader() && !s.Standalone(), LeaderID: s.LeaderID()}
	if l.LeaderID != 0 {
		for _, p := range s.node.Peers() {
			if p.ID == l.LeaderID {
				l.LeaderHost = peerHost(p.RaftAddr)
			}
		}
	}
	if s.Standalone() {
		return l
	}
	if p, ok := s.self(); ok {
		l.Self = s.member(p)
		l.Voting = !p.Observer && !s.node.Removed()
	}
	switch {
	case !s.node.HasLeader():
		l.ZabState = "election"
	case s.node.SyncedThisTerm():
		l.ZabState = "broadcast"
	default:
		l.ZabState = "synchronization"
	}
	return l
}
