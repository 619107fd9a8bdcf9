// Package exporter serves a zkraft server's metrics at /metrics in
// Prometheus's text format, as Apache ZooKeeper 3.8's
// PrometheusMetricsProvider does (metricsProvider.className=
// org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider):
//
//   - every numeric gauge of server.Server.MonitorGauges, named as in mntr
//     without "zk_" (znode_count, packets_received, ...), read with one
//     call per scrape; leader-only gauges (learners, synced_followers,
//     leader_uptime, ...) are present only while the server leads;
//   - the server's metric set (ZooKeeper's ServerMetrics): counters
//     without a _total suffix, summaries with quantile="0.5" (Basic) or
//     0.5/0.9/0.99 (Advanced), _count and _sum, sets with label key;
//   - hashicorp/raft's metrics as raft_*, through go-metrics' Prometheus
//     sink, installed once per process on armon/go-metrics' global
//     registry (where hashicorp/raft's go-metrics compat layer sends
//     them);
//   - with ExportRuntime, Go's go_* and the process's process_* metrics,
//     in place of the JVM's.
//
// Only the classic text format is served (no OpenMetrics negotiation),
// as ZooKeeper's simpleclient 0.9 does; OpenMetrics would add _total to
// counter names. The exporter is started by cmd/zkserver from the
// parsed configuration, never by server.New, so tests and embedded
// servers open no port unless they ask.
//
// It owns the HTTP endpoint and the translation to Prometheus types; it
// holds no counter itself (package metrics and the server do).
package exporter
