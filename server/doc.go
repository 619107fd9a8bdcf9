// Package server is zkraft's ZooKeeper-protocol front end: the TCP listener,
// one reader and one writer goroutine per connection, the request pipeline,
// connection-local watches, four-letter words and zoo.cfg parsing.
//
// The request path, wired in pipeline.go:
//
//	socket → wire.ReadFrame → decode → prep (stamp time, session, auth ids)
//	  read:  queued in order; run by the writer once the connection's earlier
//	         writes are applied → datatree read (+ watch registration) → reply
//	  write: consensus.ProposeAsync → Raft commit → FSM apply on every replica
//	         → apply hook fires watches into each connection's event queue
//	         → the writer sends queued events, then the reply
//
// Replies leave a connection in request order; a watch event is queued while
// the write that fires it is applied, so it always goes out before the reply
// to that write and before any reply that shows the new data. With
// audit.enable, the writer also queues the write's audit line once its
// outcome is known (audit.go, audit_events.go).
//
// Lock order (a lock on the left may be held while taking one on its right,
// never the reverse):
//
//	consensus state lock → watchManager.mu → conn.authMu, conn.events.mu
//	consensus state lock → Server.mu
//
// The audit queue's lock is a leaf: nothing is taken while it is held.
//
// The apply hook runs under the state write lock and takes the others only
// briefly; nothing that holds Server.mu or watchManager.mu takes the state
// lock, and nothing under the state lock blocks on a socket.
//
// In an ensemble the leader alone runs the session expiry tracker and the
// container reaper (leadership.go); followers report the sessions they saw
// alive every tick, and a server that knows no leader drops its clients.
//
// The package holds no tree semantics (see datatree) and does not touch Raft
// directly (see consensus).
package server
