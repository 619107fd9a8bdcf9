package consensus

// PeerReachable reports whether this node, while it leads, currently
// reaches member id with its heartbeats (false on a node that does not
// lead: only the leader knows).
func (n *Node) PeerReachable(id int64) bool {
	return n.IsLeader() && n.health != nil && !n.health.isFailing(serverID(id))
}

// SyncedThisTerm reports, without waiting, whether this node has caught
// up with its leader in the current term: a handshake's AwaitSynced
// succeeded in it, or everything this node knows to be committed is
// applied. It is what ZAB calls the end of synchronisation, for views
// (zabstate); AwaitSynced is the call that waits for it.
func (n *Node) SyncedThisTerm() bool {
	if n.epochSync.term.Load() >= n.raft.CurrentTerm() {
		return true
	}
	return n.HasLeader() && n.raft.AppliedIndex() >= n.raft.CommitIndex()
}
