// Package integration holds the exported test harness (StartServer) and the
// end-to-end, differential and fault tests that drive a whole zkraft server
// over TCP. Nothing in the server binary depends on it.
//
// The differential tests (TestDiff*, diff_*_test.go) run the same scenarios
// against Apache ZooKeeper 3.8.0 from the Debian packages (see
// internal/realzk) and against zkraft, and compare normalised transcripts;
// DIFFERENCES.md lists what the normalisation hides and what differs by
// design. They skip when Java or the zookeeper package is missing.
package integration
