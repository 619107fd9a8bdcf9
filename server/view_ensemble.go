package server

import (
	"encoding/json"
	"math"
	"time"

	"github.com/zkraft/zkraft/consensus"
)

// Read-only views of the whole ensemble for the web console (package
// console): this server's figures, every other member's as they were
// last gathered over the links between servers, and the timeline of
// elections, leader changes, membership changes and snapshots. Nothing
// here runs unless a view asks: the gathering between servers only runs
// while WatchEnsemble is called.

// NodeStatus is one server's figures.
type NodeStatus struct {
	ID int64 `json:"id"`
	// Role is Mode: leader, follower, observer, looking, removed,
	// read-only or standalone.
	Role string `json:"role"`
	// LeaderID is the leader this server knows (0: none).
	LeaderID int64 `json:"leaderId"`
	// Epoch is the Raft term.
	Epoch        uint64 `json:"epoch"`
	LastLogIndex uint64 `json:"lastLogIndex"`
	CommitIndex  uint64 `json:"commitIndex"`
	AppliedIndex uint64 `json:"appliedIndex"`
	LastZxid     int64  `json:"lastZxid"`
	// Followers, on the leader, is each other member's replication.
	Followers []FollowerStatus `json:"followers,omitempty"`
	// ClientAddr is host:port of the client port.
	ClientAddr  string `json:"clientAddr"`
	Connections int    `json:"connections"`
	Sessions    int    `json:"sessions"`
	Watches     int    `json:"watches"`
	Znodes      int    `json:"znodes"`
	Outstanding int    `json:"outstanding"`
	// PacketsReceived and PacketsSent count requests and replies since
	// the start (or srst).
	PacketsReceived int64          `json:"packetsReceived"`
	PacketsSent     int64          `json:"packetsSent"`
	Latency         LatencyFigures `json:"latency"`
	UptimeMs        int64          `json:"uptimeMs"`
	Version         string         `json:"version"`
}

// FollowerStatus is the leader's view of one member's log.
type FollowerStatus struct {
	ID       int64 `json:"id"`
	Observer bool  `json:"observer"`
	// Match is the last index the member acknowledged matching the
	// leader's log and Lag the leader's last index less Match; both nil
	// while the leader knows none (the member is down or has not answered
	// in this term).
	Match *uint64 `json:"match"`
	Lag   *uint64 `json:"lag"`
}

// LatencyFigures are request latencies in ms: min/avg/max of every
// request (srvr's), and the 50th and 99th percentiles of reads and of
// writes over the last minute (nil when there were none).
type LatencyFigures struct {
	Min      int64    `json:"min"`
	Avg      float64  `json:"avg"`
	Max      int64    `json:"max"`
	ReadP50  *float64 `json:"readP50"`
	ReadP99  *float64 `json:"readP99"`
	WriteP50 *float64 `json:"writeP50"`
	WriteP99 *float64 `json:"writeP99"`
}

// Status returns this server's figures now. It takes the tree's read
// lock once (for the znode count and sessions).
func (s *Server) Status() NodeStatus {
	rep := s.node.Replication()
	nodes, zxid := s.nodeCount()
	var sessions int
	s.node.Read(func(st *consensus.State) { sessions = st.Sessions.Len() })
	min, avg, max := s.stats.lat.snapshot()
	st := NodeStatus{
		ID: s.cfg.ServerID, Role: s.mode(), LeaderID: s.LeaderID(),
		Epoch: rep.Term, LastLogIndex: rep.LastLogIndex, CommitIndex: rep.CommitIndex, AppliedIndex: rep.AppliedIndex,
		LastZxid: zxid, ClientAddr: s.clientAddr(), Connections: s.sessionConnCount(), Sessions: sessions,
		Watches: s.watches.count(), Znodes: nodes, Outstanding: s.outstanding(),
		PacketsReceived: s.stats.packetsIn.Load(), PacketsSent: s.stats.packetsOut.Load(),
		Latency:  LatencyFigures{Min: min, Avg: avg, Max: max},
		UptimeMs: s.clock.Now().Sub(s.started).Milliseconds(), Version: Version,
	}
	reads, writes := s.m.readLatency.Value(), s.m.updateLatency.Value()
	st.Latency.ReadP50, st.Latency.ReadP99 = quantile(reads.Quantiles, 0.5), quantile(reads.Quantiles, 0.99)
	st.Latency.WriteP50, st.Latency.WriteP99 = quantile(writes.Quantiles, 0.5), quantile(writes.Quantiles, 0.99)
	for _, f := range rep.Followers {
		fs := FollowerStatus{ID: f.ID, Observer: f.Observer}
		if f.MatchKnown {
			match, lag := f.Match, uint64(0)
			if rep.LastLogIndex > match {
				lag = rep.LastLogIndex - match
			}
			fs.Match, fs.Lag = &match, &lag
		}
		st.Followers = append(st.Followers, fs)
	}
	return st
}

// quantile is q of a summary's quantiles, nil when unknown.
func quantile(qs map[float64]float64, q float64) *float64 {
	v, ok := qs[q]
	if !ok || math.IsNaN(v) {
		return nil
	}
	return &v
}

// EnsembleMember is one member of the ensemble as this server sees it.
type EnsembleMember struct {
	ID       int64 `json:"id"`
	Observer bool  `json:"observer"`
	// Self marks this server.
	Self bool `json:"self"`
	// Status is the member's figures, nil while none were gathered.
	Status *NodeStatus `json:"status"`
	// AgeMs is how old Status is (0 for this server's own).
	AgeMs int64 `json:"ageMs"`
	// Reachable is true for this server, and for a member whose figures
	// are at most two ticks old: it was heard from lately. A view draws
	// any other as unreachable, its figures and role as last seen.
	Reachable bool `json:"reachable"`
	// Loading is true for an unreachable member while the gathering of
	// figures has run for less than two ticks: it may just not have
	// answered yet.
	Loading bool `json:"loading"`
}

// EnsembleHealth is the answering server's verdict on the ensemble, from
// the members' figures: the leader it follows and how many voters it
// hears from.
type EnsembleHealth struct {
	// Leader is the leader this server knows, if that is this server or
	// a reachable member; 0 otherwise (none, or one not heard from).
	Leader int64 `json:"leader"`
	// Epoch is this server's current epoch (Raft term).
	Epoch uint64 `json:"epoch"`
	// Voters counts the voting members; Reachable those reachable,
	// this server included when it votes; Loading those still loading.
	Voters    int `json:"voters"`
	Reachable int `json:"reachable"`
	Loading   int `json:"loading"`
	// Quorum is true when this server knows a leader and a majority of
	// the voters is reachable or still loading.
	Quorum bool `json:"quorum"`
}

// Health judges members, as Ensemble returned them. A standalone server
// has a quorum of itself.
func (s *Server) Health(members []EnsembleMember) EnsembleHealth {
	return judgeEnsemble(members, s.Standalone())
}

func judgeEnsemble(members []EnsembleMember, standalone bool) EnsembleHealth {
	var h EnsembleHealth
	var self *EnsembleMember
	for i, m := range members {
		if m.Self {
			self = &members[i]
		}
		if m.Observer {
			continue
		}
		h.Voters++
		if m.Reachable {
			h.Reachable++
		} else if m.Loading {
			h.Loading++
		}
	}
	if self == nil || self.Status == nil {
		return h
	}
	h.Epoch = self.Status.Epoch
	if standalone {
		h.Leader, h.Quorum = self.ID, true
		return h
	}
	for _, m := range members {
		if m.ID == self.Status.LeaderID && (m.Reachable || m.Loading) {
			h.Leader = m.ID
		}
	}
	h.Quorum = h.Leader != 0 && 2*(h.Reachable+h.Loading) > h.Voters
	return h
}

// WatchEnsemble says a view of the ensemble is watched: for the next few
// seconds the servers gather each other's figures (once a second) over
// the links between them, for Ensemble. A view calls it on each refresh.
func (s *Server) WatchEnsemble() { s.node.WatchPeers() }

// Ensemble lists the members by id, each with the latest figures this
// server holds of it: its own now, the others' as last gathered (see
// WatchEnsemble). A standalone server lists itself alone.
func (s *Server) Ensemble() []EnsembleMember {
	self := s.Status()
	if s.Standalone() {
		return []EnsembleMember{{ID: self.ID, Self: true, Status: &self, Reachable: true}}
	}
	peers := map[int64]consensus.PeerStatus{}
	for _, p := range s.node.PeerStatuses() {
		peers[p.ID] = p
	}
	now := time.Now()
	heard := 2 * s.cfg.TickTime // "not heard from within two ticks"
	since := s.node.PeersWatchedSince()
	loading := !since.IsZero() && now.Sub(since) < heard
	var out []EnsembleMember
	for _, m := range s.Members() {
		e := EnsembleMember{ID: m.ID, Observer: m.Observer, Self: m.ID == s.cfg.ServerID}
		if e.Self {
			e.Status, e.Reachable = &self, true
		} else if p, ok := peers[m.ID]; ok {
			var st NodeStatus
			if json.Unmarshal(p.Data, &st) == nil {
				e.Status, e.AgeMs = &st, max(now.Sub(p.At).Milliseconds(), 0)
				e.Reachable = time.Duration(e.AgeMs)*time.Millisecond <= heard
			}
		}
		e.Loading = !e.Reachable && loading
		out = append(out, e)
	}
	return out
}

// TimelineEvent is one event of the ensemble's timeline (see
// consensus.TimelineEvent).
type TimelineEvent = consensus.TimelineEvent

// Timeline returns the events this server recorded with a sequence number
// above after (0: all it keeps, at most consensus.TimelineSize), oldest
// first.
func (s *Server) Timeline(after uint64) []TimelineEvent { return s.node.Timeline(after) }
