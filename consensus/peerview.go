package consensus

// PeerReachable reports whether this node, while it leads, currently
// reaches member id with its heartbeats (false on a node that does not
// lead: only the leader knows).
func (n *Node) PeerReachable(id int64) bool {
	return n.IsLeader() && n.health != nil && !n.health.isFailing(serverID(id))
}

// SyncedThisTerm reports, without waiting, whether this node has caught
// up with its leader in the current term: it has applied every entry the
// leader had when this node first asked it in the term (AwaitSynced, run
// by a client's handshake or in the background once a leader is known).
// It is what ZAB calls the end of synchronisation, for views (zabstate)
// and for srvr's "not currently serving". A restarted follower's applied
// index may equal the commit index it knows while both are still far
// behind the leader's, so that comparison is not enough.
func (n *Node) SyncedThisTerm() bool {
	return n.HasLeader() && n.epochSync.term.Load() >= n.raft.CurrentTerm()
}
