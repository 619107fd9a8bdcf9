// Package integration holds the exported test harness and the end-to-end,
// differential and fault tests that drive whole zkraft servers over TCP.
// Nothing in the server binary depends on it.
//
// StartServer starts an in-process server (optionally on a fake clock);
// StartCluster starts an in-process ensemble whose servers can be stopped,
// restarted and partitioned (Cluster.Partition, Heal). The fault tests
// include a linearizability check of histories under leader kills.
//
// The differential tests (TestDiff*, diff_*_test.go) run the same scenarios
// against Apache ZooKeeper 3.8.0 from the Debian packages (see
// internal/realzk) and against zkraft, and compare normalised transcripts;
// DIFFERENCES.md lists what the normalisation hides and what differs by
// design. They skip when Java or the zookeeper package is missing.
package integration
