package server

import (
	"crypto/tls"
	"slices"
	"sort"
	"time"
)

// Read-only views of connections, counters, sessions and watches, for
// the AdminServer's connections, stats, server_stats, dump and watch
// commands. They read what the four-letter words print, as values.

// ConnInfo describes one client connection (ZooKeeper's
// ServerCnxn.getConnectionInfo).
type ConnInfo struct {
	// Remote is the client's host:port.
	Remote string
	// Secure is true for a TLS connection.
	Secure bool
	// InterestOps is 1 once a session is established, 0 before.
	InterestOps int
	// Outstanding is the number of requests not yet answered.
	Outstanding int
	// Received and Sent count packets.
	Received, Sent int64
	// SessionID is 0 before the handshake; the fields below are only
	// meaningful with a session.
	SessionID int64
	// Established is when the connection was accepted (unix ms).
	Established int64
	// Timeout is the negotiated session timeout (ms).
	Timeout int32
	// LastCxid and LastZxid are the last request's xid and the last
	// reply's zxid.
	LastCxid int32
	LastZxid int64
	// LastResponse is when the last reply was sent (unix ms, 0: none).
	LastResponse int64
	// MinLatency, AvgLatency and MaxLatency are in ms since the last
	// connection_stat_reset; LastLatency is ZooKeeper's last latency,
	// which zkraft does not keep (it reports the maximum, as cons does).
	MinLatency, AvgLatency, MaxLatency, LastLatency int64
}

// Connections describes the open client connections, by remote address.
func (s *Server) Connections() []ConnInfo {
	conns := s.connections()
	sort.Slice(conns, func(i, j int) bool { return conns[i].nc.RemoteAddr().String() < conns[j].nc.RemoteAddr().String() })
	out := make([]ConnInfo, 0, len(conns))
	for _, c := range conns {
		min, avg, max := c.cstats.lat.snapshot()
		_, secure := c.nc.(*tls.Conn)
		out = append(out, ConnInfo{
			Remote: c.nc.RemoteAddr().String(), Secure: secure, InterestOps: interestOps(c),
			Outstanding: c.outstanding(), Received: c.cstats.in.Load(), Sent: c.cstats.out.Load(),
			SessionID: c.sessionID(), Established: c.established, Timeout: c.timeout.Load(),
			LastCxid: c.cstats.lastXid.Load(), LastZxid: c.cstats.lastZxid.Load(),
			LastResponse: c.cstats.lastResponse.Load(),
			MinLatency:   min, AvgLatency: int64(avg), MaxLatency: max, LastLatency: max,
		})
	}
	return out
}

// ResetConnectionStats zeroes every connection's latency figures (crst).
func (s *Server) ResetConnectionStats() { s.resetConnStats() }

// ResetServerStats zeroes the server's latency and packet counters (srst).
func (s *Server) ResetServerStats() { s.stats.reset() }

// ServerStats are the figures of srvr.
type ServerStats struct {
	// PacketsReceived and PacketsSent count client packets since the last
	// reset.
	PacketsReceived, PacketsSent int64
	// MinLatency, AvgLatency and MaxLatency are request latencies (ms).
	MinLatency, MaxLatency int64
	AvgLatency             float64
	// Outstanding is the number of requests in flight.
	Outstanding int
	// Connections is the number of connections with a session.
	Connections int
	// LastZxid is the last applied zxid and NodeCount the znodes.
	LastZxid  int64
	NodeCount int
	// Uptime is how long the server has run.
	Uptime time.Duration
	// DataDirSize and LogDirSize are the bytes under dataDir and
	// dataLogDir.
	DataDirSize, LogDirSize int64
}

// ServerStats returns srvr's figures.
func (s *Server) ServerStats() ServerStats {
	min, avg, max := s.stats.lat.snapshot()
	nodes, zxid := s.nodeCount()
	data, log := s.dirSizes()
	return ServerStats{
		PacketsReceived: s.stats.packetsIn.Load(), PacketsSent: s.stats.packetsOut.Load(),
		MinLatency: min, AvgLatency: avg, MaxLatency: max,
		Outstanding: s.outstanding(), Connections: s.sessionConnCount(),
		LastZxid: zxid, NodeCount: nodes,
		Uptime:      s.clock.Now().Sub(s.started),
		DataDirSize: data, LogDirSize: log,
	}
}

// DirSizes returns the bytes under dataDir and dataLogDir (0 in memory).
func (s *Server) DirSizes() (data, log int64) { return s.dirSizes() }

// SessionExpiries groups the sessions by the time (unix ms) the leader's
// tracker will expire them, each group sorted; empty on a server that does
// not lead, which tracks no expiry (as a ZooKeeper follower's dump).
func (s *Server) SessionExpiries() map[int64][]int64 {
	out := map[int64][]int64{}
	t := s.currentTracker()
	if t == nil {
		return out
	}
	for id, at := range t.Deadlines() {
		ms := at.UnixMilli()
		out[ms] = append(out[ms], id)
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

// WatchesBySession maps each session to the paths it data-watches on this
// server (what wchc prints), paths sorted.
func (s *Server) WatchesBySession() map[int64][]string { return s.watches.bySession() }

// WatchSummary returns what wchs prints: the connections with watches, the
// watched paths and the watches.
func (s *Server) WatchSummary() (conns, paths, watches int) { return s.watches.summary() }
