package server

import "github.com/zkraft/zkraft/metrics"

// idleCounters and idleSummaries are the metrics of ZooKeeper 3.8's
// ServerMetrics that name a part of ZooKeeper zkraft does not have
// (request processors' queues, the response cache, Netty, ZAB's learner
// handlers, throttling, digests, dead watchers, the JVM). They are
// registered so that mntr and /metrics list what ZooKeeper's do, and a
// dashboard or alert that names one finds it; they stay 0. The metrics
// zkraft records are registered where their events happen: server
// (metrics.go) and consensus (metrics.go).
var idleCounters = []string{
	"diff_count", "snap_count", "connection_rejected", "unrecoverable_error_count",
	"add_dead_watcher_stall_time", "dead_watchers_queued", "dead_watchers_cleared",
	"response_packet_cache_hits", "response_packet_cache_misses",
	"response_packet_get_children_cache_hits", "response_packet_get_children_cache_misses",
	"ensemble_auth_success", "ensemble_auth_fail", "ensemble_auth_skip",
	"prep_processor_request_queued", "outstanding_changes_queued", "outstanding_changes_removed",
	"revalidate_count", "connection_drop_count", "connection_revalidate_count",
	"request_commit_queued", "throttled_ops", "learner_proposal_received_count",
	"learner_commit_received_count", "sync_processor_request_queued",
	"quit_leading_due_to_disloyal_voter", "stale_requests", "stale_requests_dropped",
	"stale_replies", "request_throttle_wait_count", "large_requests_rejected",
	"digest_mismatches_count", "unsuccessful_handshake", "insecure_admin_count",
	"tls_handshake_exceeded", "cnxn_closed_without_zk_server_running",
	"skip_learner_request_to_next_processor_count", "requests_not_forwarded_to_commit_processor",
}

// idleSummaries are ServerMetrics' summaries zkraft has no event for, by
// level.
var idleSummaries = map[metrics.Level][]string{
	metrics.Basic: {
		"follower_sync_time", "observer_sync_time", "connection_token_deficit",
		"inflight_snap_count", "inflight_diff_count", "prep_processor_queue_size",
		"prep_process_time", "proposal_process_time", "unavailable_time", "leader_unavailable_time",
		"requests_in_session_queue", "pending_session_queue_size", "reads_after_write_in_session_queue",
		"reads_issued_from_session_queue", "session_queues_drained",
		"time_waiting_empty_pool_in_commit_processor_read_ms", "write_batch_time_in_commit_processor",
		"concurrent_request_processing_in_commit_processor", "read_commit_proc_req_queued",
		"write_commit_proc_req_queued", "commit_commit_proc_req_queued", "read_commit_proc_issued",
		"write_commit_proc_issued", "commit_process_time", "sync_processor_queue_size",
		"sync_process_time", "sync_processor_batch_size", "netty_queued_buffer_capacity",
		"learner_request_processor_queue_size", "socket_closing_time",
	},
	metrics.Advanced: {
		"propagation_latency", "dead_watchers_cleaner_latency", "prep_processor_queue_time_ms",
		"close_session_prep_time", "read_commitproc_time_ms", "write_commitproc_time_ms",
		"server_write_committed_time_ms", "om_proposal_process_time_ms", "om_commit_process_time_ms",
		"read_final_proc_time_ms", "write_final_proc_time_ms", "proposal_ack_creation_latency",
		"commit_propagation_latency", "sync_processor_queue_and_flush_time_ms",
		"sync_processor_queue_time_ms", "sync_processor_queue_flush_time_ms", "quorum_ack_latency",
		"request_throttle_queue_time_ms", "jvm_pause_time_ms",
	},
}

// registerIdle registers idleCounters and idleSummaries in set.
func registerIdle(set *metrics.Set) {
	for _, name := range idleCounters {
		set.Counter(name)
	}
	for _, l := range []metrics.Level{metrics.Basic, metrics.Advanced} {
		for _, name := range idleSummaries[l] {
			set.Summary(name, l)
		}
	}
	// A leader's per-learner queues and acks (label key = the learner's
	// sid): series appear only once a key is observed, so these show
	// nothing, as on a ZooKeeper server with no learners.
	set.SummarySet("learner_handler_qp_size", metrics.Basic)
	set.SummarySet("learner_handler_qp_time_ms", metrics.Advanced)
	set.SummarySet("ack_latency", metrics.Advanced)
}
