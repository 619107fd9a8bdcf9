// Package metrics holds the counters and summaries a zkraft server keeps,
// named and typed as Apache ZooKeeper 3.8's ServerMetrics: one Set per
// server, into which the packages where the events happen (server,
// consensus) register their metrics once, at start. mntr and the
// AdminServer's monitor command print a Set through Figures, ZooKeeper's
// default provider's expansion (avg_, min_, max_, cnt_, sum_ and, for
// Advanced summaries, p50_ ... p999_); the Prometheus exporter
// (metrics/exporter) reads the same objects through Each.
//
// Recording is cheap enough for the request path: a Counter is one atomic
// add; a Summary observation is a few atomic adds and compare-and-swaps,
// its quantiles kept in a lock-free windowed histogram (window.go).
//
// The package does no I/O, starts no goroutine and serves nothing; it
// imports only the standard library, and must not import server,
// consensus or anything that speaks HTTP.
package metrics
