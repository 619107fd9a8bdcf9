package server

import (
	"fmt"
	"io"
	"runtime"
	"strconv"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/metrics"
)

// MonitorRow is one of the figures mntr prints and the AdminServer's
// monitor command and the Prometheus exporter serve. Key is ZooKeeper's
// metric name without mntr's "zk_" prefix; Value is a string, an integer
// type or a float64.
type MonitorRow struct {
	Key   string
	Value any
}

// Monitor returns the server's figures in mntr's order: MonitorGauges,
// then the metric set (Metrics) expanded as ZooKeeper's default metrics
// provider prints it (counters, then avg_/min_/max_/cnt_/sum_ and p50_...
// of each summary).
func (s *Server) Monitor() []MonitorRow {
	rows := s.MonitorGauges()
	for _, f := range s.metricSet.Figures() {
		rows = append(rows, MonitorRow{f.Key, f.Value})
	}
	return rows
}

// Metrics returns the server's counters and summaries, ZooKeeper's
// ServerMetrics, which Monitor expands and the Prometheus exporter
// serves with their types.
func (s *Server) Metrics() *metrics.Set { return s.metricSet }

// MonitorGauges returns the figures of mntr that are gauges: ZooKeeper's
// registered gauges (and zkraft's own: epoch, goroutines, disk state),
// leader-only ones only on the leader. It takes the tree's read lock once
// and otherwise reads counters, so it is cheap enough for a scrape every
// second.
func (s *Server) MonitorGauges() []MonitorRow {
	min, avg, max := s.stats.lat.snapshot()
	last, minSize, maxSize := s.m.responseSize.Values()
	nodes, _ := s.nodeCount()
	var ephemerals, sessions int
	var dataSize int64
	s.node.Read(func(st *consensus.State) {
		ephemerals, dataSize, sessions = st.Tree.EphemeralCount(), st.Tree.ApproximateDataSize(), st.Sessions.Len()
	})
	rows := []MonitorRow{
		{"version", Version + ", built on " + buildStamp},
		{"server_state", s.mode()},
		{"avg_latency", avg},
		{"max_latency", max},
		{"min_latency", min},
		{"packets_received", s.stats.packetsIn.Load()},
		{"packets_sent", s.stats.packetsOut.Load()},
		{"num_alive_connections", s.sessionConnCount()},
		{"outstanding_requests", s.outstanding()},
		{"uptime", s.clock.Now().Sub(s.started).Milliseconds()},
		{"znode_count", nodes},
		{"watch_count", s.watches.count()},
		{"ephemerals_count", ephemerals},
		{"approximate_data_size", dataSize},
		{"global_sessions", sessions},
		{"local_sessions", s.localSessionCount()},
		{"open_file_descriptor_count", openFDs()},
		{"max_file_descriptor_count", maxFDs()},
		{"connection_drop_probability", 0.0},
		{"last_client_response_size", last},
		{"min_client_response_size", minSize},
		{"max_client_response_size", maxSize},
		{"outstanding_tls_handshake", 0},
		{"auth_failed_count", s.m.authFailed.Load()},
		{"non_mtls_remote_conn_count", 0},
		{"non_mtls_local_conn_count", 0},
		{"epoch", s.node.Epoch()},
		{"goroutines", runtime.NumGoroutine()},
	}
	rows = append(rows, s.diskFullRows()...)
	rows = append(rows, s.peerRows()...)
	if s.mode() == "leader" {
		m := s.node.Members()
		last, minSize, maxSize := s.node.ProposalSizes()
		rows = append(rows, []MonitorRow{
			{"learners", m.Followers + m.Observers},
			{"synced_followers", m.SyncedFollowers},
			{"synced_non_voting_followers", 0},
			{"synced_observers", m.SyncedObservers},
			{"pending_syncs", 0},
			{"last_proposal_size", last},
			{"min_proposal_size", minSize},
			{"max_proposal_size", maxSize},
		}...)
	}
	return rows
}

// writeMntr prints Monitor as mntr does: "zk_<key>\t<value>" per line.
func (s *Server) writeMntr(w io.Writer) {
	for _, r := range s.Monitor() {
		fmt.Fprintf(w, "zk_%s\t%s\n", r.Key, FormatMonitorValue(r.Value))
	}
}

// FormatMonitorValue prints a monitor value as ZooKeeper's Java code
// prints it: floats always with a fraction ("0.0", "2.5"), everything
// else in its plain form.
func FormatMonitorValue(v any) string {
	f, ok := v.(float64)
	if !ok {
		return fmt.Sprint(v)
	}
	out := strconv.FormatFloat(f, 'f', -1, 64)
	for _, c := range out {
		if c == '.' || c == 'N' || c == 'I' {
			return out
		}
	}
	return out + ".0"
}

// peerRows are the monitor rows every member of an ensemble shows, and a
// standalone server does not: its ZAB peer state, the quorum size, and
// on the leader how long it has led (ms).
func (s *Server) peerRows() []MonitorRow {
	state, ok := peerStates[s.mode()]
	if !ok {
		return nil
	}
	rows := []MonitorRow{{"peer_state", state}, {"quorum_size", s.node.Voters()}}
	if up, leading := s.leaderUptime(); leading {
		rows = append(rows, MonitorRow{"leader_uptime", up.Milliseconds()})
	}
	return rows
}

// peerStates maps a role to ZooKeeper's "state - ZAB phase". A member
// with a leader is in ZAB's broadcast phase; one without is electing
// (ZooKeeper's read-only server is LOOKING too).
var peerStates = map[string]string{
	"leader":    "leading - broadcast",
	"follower":  "following - broadcast",
	"observer":  "observing - broadcast",
	"looking":   "looking - election",
	"read-only": "looking - election",
	"removed":   "looking - election",
}
