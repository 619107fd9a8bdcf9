// Package consensus replicates zkraft's state with hashicorp/raft in place of
// ZooKeeper's ZAB.
//
// It owns the Raft log entry format (Command), the FSM that applies each
// committed entry to the data tree and the session table, zxid assignment
// (Raft term in the high 32 bits, a per-term counter in the low 32 bits),
// snapshots, and the Raft node itself. Every write, session creation and
// session close is a log entry, even on a single standalone server.
//
// It must not decode client requests or know about connections: the server
// turns requests into datatree.Txn values and proposes them here.
package consensus
