// Package diskcheck verifies a zkraft data directory offline: the Raft log
// (raft-wal segments or raft-boltdb), and the snapshots, each file against
// its checksums, and prints one line per file. `zkserver verify` is its
// command line.
//
// The checks themselves belong to the formats' owner (consensus.Verify);
// this package finds what is there and reports it. It must not start a
// server or write to the log or snapshots.
package diskcheck
