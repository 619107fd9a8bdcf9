package admin

import (
	"math"

	"github.com/zkraft/zkraft/server"
)

// The commands about client connections and the server's counters.

func runConnections(r *request) Object {
	plain, secure := connections(r.view.Connections(), false)
	return Object{{"connections", plain}, {"secure_connections", secure}}
}

// connections splits the connections into plain and TLS ones, each as
// ZooKeeper's getConnectionInfo(brief).
func connections(all []server.ConnInfo, brief bool) (plain, secure []Object) {
	plain, secure = []Object{}, []Object{}
	for _, c := range all {
		o := Object{
			{"remote_socket_address", c.Remote},
			{"interest_ops", c.InterestOps},
			{"outstanding_requests", c.Outstanding},
			{"packets_received", c.Received},
			{"packets_sent", c.Sent},
		}
		if !brief {
			o = append(o, Object{
				{"session_id", c.SessionID},
				{"last_operation", "NA"},
				{"established", c.Established},
				{"session_timeout", c.Timeout},
				{"last_cxid", c.LastCxid},
				{"last_zxid", c.LastZxid},
				{"last_response_time", c.LastResponse},
				{"last_latency", c.LastLatency},
				{"min_latency", c.MinLatency},
				{"avg_latency", c.AvgLatency},
				{"max_latency", c.MaxLatency},
			}...)
		}
		if c.Secure {
			secure = append(secure, o)
		} else {
			plain = append(plain, o)
		}
	}
	return plain, secure
}

func runConnectionStatReset(r *request) Object {
	r.view.ResetConnectionStats()
	return nil
}

func runStatReset(r *request) Object {
	r.view.ResetServerStats()
	return nil
}

// runServerStats is srvr as ZooKeeper's SrvrCommand: version, read-only
// flag, the ServerStats bean, the client response sizes, the leader's
// proposal sizes, the node count.
func runServerStats(r *request) Object {
	st := r.view.ServerStats()
	mon := monitorValues(r.view.Monitor())
	clientSizes := Object{
		{"last_buffer_size", mon.int("last_client_response_size", -1)},
		{"min_buffer_size", mon.int("min_client_response_size", -1)},
		{"max_buffer_size", mon.int("max_client_response_size", -1)},
	}
	stats := Object{
		{"packets_sent", st.PacketsSent},
		{"packets_received", st.PacketsReceived},
		{"fsync_threshold_exceed_count", mon.int("fsync_threshold_exceed_count", 0)},
		{"client_response_stats", clientSizes},
		{"provider_null", false},
		{"server_state", r.view.Mode()},
		{"outstanding_requests", st.Outstanding},
		{"min_latency", st.MinLatency},
		{"avg_latency", math.Round(st.AvgLatency*1e4) / 1e4},
		{"max_latency", st.MaxLatency},
		{"data_dir_size", st.DataDirSize},
		{"log_dir_size", st.LogDirSize},
		{"last_processed_zxid", st.LastZxid},
		{"num_alive_client_connections", st.Connections},
		{"uptime", st.Uptime.Milliseconds()},
		{"auth_failed_count", mon.int("auth_failed_count", 0)},
		{"non_mtlsremote_conn_count", mon.int("non_mtls_remote_conn_count", 0)},
		{"non_mtlslocal_conn_count", mon.int("non_mtls_local_conn_count", 0)},
	}
	o := Object{
		{"version", mon.str("version")},
		{"read_only", r.view.ReadOnly()},
		{"server_stats", stats},
		{"client_response", clientSizes},
	}
	if r.view.Mode() == "leader" {
		o = append(o, Field{"proposal_stats", Object{
			{"last_buffer_size", mon.int("last_proposal_size", -1)},
			{"min_buffer_size", mon.int("min_proposal_size", -1)},
			{"max_buffer_size", mon.int("max_proposal_size", -1)},
		}})
	}
	return append(o, Field{"node_count", st.NodeCount})
}

// runStats is server_stats plus every connection, briefly.
func runStats(r *request) Object {
	o := runServerStats(r)
	plain, secure := connections(r.view.Connections(), true)
	return append(o, Field{"connections", plain}, Field{"secure_connections", secure})
}

// monitorValues indexes mntr's rows, to take the figures srvr shares
// with mntr from the one place they are counted.
type monitorValues []server.MonitorRow

// str returns row key as a string, "" when mntr has no such row.
func (m monitorValues) str(key string) string {
	for _, row := range m {
		if s, ok := row.Value.(string); ok && row.Key == key {
			return s
		}
	}
	return ""
}

// int returns row key as an int64, or def when mntr has no such row.
func (m monitorValues) int(key string, def int64) int64 {
	for _, row := range m {
		if row.Key != key {
			continue
		}
		switch v := row.Value.(type) {
		case int:
			return int64(v)
		case int32:
			return int64(v)
		case int64:
			return v
		case uint64:
			return int64(v)
		case float64:
			return int64(v)
		}
	}
	return def
}
