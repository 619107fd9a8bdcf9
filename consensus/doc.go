// Package consensus replicates zkraft's state with hashicorp/raft in place of
// ZooKeeper's ZAB.
//
// It owns the Raft log entry format (Command), the FSM that applies each
// committed entry to the data tree and the session table, zxid assignment
// (Raft term in the high 32 bits, a per-term counter in the low 32 bits,
// and a new term before that counter can wrap: rollover.go),
// snapshots, the stores (in memory, or raft-wal or raft-boltdb plus snapshot
// files in a dataDir), and the Raft node itself. Every write, session creation and
// session close is a log entry, even on a single standalone server.
//
// In an ensemble Raft runs on each server's peer port. A follower sends its
// clients' proposals, the sessions it saw alive and its sync requests to the
// leader over the election port (forward.go); it answers a proposal's client
// when its own FSM applies the entry (wait.go), so replies always reflect
// local state. Both channels listen and dial through a Network, which tests
// replace to cut links. docs/zab-and-raft.md maps all of this onto ZAB.
//
// Durable stores are locked while open (lock.go), carry a checksum on every
// log entry (logsum.go, sumstore.go), and are checked in full before Raft
// opens them (walscan.go, walcheck.go, snapcheck.go); Verify runs the same
// checks offline for package diskcheck. docs/on-disk.md describes the files.
//
// A durable log sits behind a guard (diskguard.go) that turns a full disk
// into a read-only state (ErrDiskFull) instead of Raft's step-down and
// re-election, and resumes by itself when space returns. Raft's own log
// lines reach the server's slog logger as native records (raftlog.go), and
// Observe reports leader changes and peer outages once each.
//
// Online backups (backup.go) encode a frozen view of the state while writes
// go on, in a self-checking envelope; RestoreBackup (restore.go) checks one
// in full and installs it on every replica through Raft's user restore.
//
// For views (the web console), Replication reports Raft's indexes and, on
// the leader, each member's match index (replview.go); Timeline keeps a
// fixed ring of elections, leader changes, peer outages, membership
// changes and snapshots (timeline.go); and while a view is watched, the
// forwarding links carry every member's figures (status.go).
//
// It must not decode client requests or know about connections: the server
// turns requests into datatree.Txn values and proposes them here.
package consensus
