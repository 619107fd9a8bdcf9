package server

import "github.com/zkraft/zkraft/consensus"

// Read-only views of the messages between the servers, for the web
// console's "Replication, step by step": every member records the Raft
// messages and forwarded writes it sends, only while a view watches
// (consensus/msgtrace.go), and the records travel over the links
// between servers like the ensemble's figures.

// TraceMessage is one message between servers and its answer (see
// consensus.TraceMessage).
type TraceMessage = consensus.TraceMessage

// TraceCursor is where a reader is in one member's records.
type TraceCursor = consensus.TraceCursor

// ReplicationTrace is the ensemble's messages after a reader's cursors.
type ReplicationTrace = consensus.Trace

// WatchReplication says a view of the messages is watched: for the next
// few seconds every member records the messages it sends and the
// records are gathered here. A view calls it on each refresh; a
// standalone server sends no messages and records none.
func (s *Server) WatchReplication() { s.node.WatchTrace() }

// Replication returns the members' messages after the cursors in after
// (by member id), at most limit of each member, by time.
func (s *Server) Replication(after map[int64]TraceCursor, limit int) ReplicationTrace {
	return s.node.Trace(after, limit)
}
