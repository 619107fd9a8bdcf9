package consensus

// Each traced message is labelled with the ZAB phase it corresponds to
// and the ZAB message it plays the part of. Raft has no phases: a leader
// simply sends AppendEntries until each follower's log matches its own.
// The labels follow what the leader knows of each follower (peerPhase),
// by these rules, which classify applies:
//
//   - RequestVote and RequestPreVote: discovery (ZAB's leader election,
//     VOTE and PREVOTE). TimeoutNow, which starts an election at its
//     target: discovery (ELECT).
//   - A forwarded client write and its reply: broadcast (REQUEST).
//   - A leader's messages to one follower in one term:
//     1. until the follower first answers in this term: discovery
//        (NEWEPOCH: the follower learns the new epoch and its leader);
//     2. then, until the follower's log is known to match the leader's
//        up to the leader's last index at the term's first message:
//        synchronization (DIFF for AppendEntries, with or without
//        entries, rejected ones and the back-off included; SNAP for
//        InstallSnapshot; PING for heartbeats);
//     3. then broadcast: AppendEntries with entries is a PROPOSAL (its
//        success the ACK), with "+COMMIT" when it also raises the commit
//        index the follower was given; an empty one that raises it is a
//        COMMIT; an empty one that does not, and Raft's heartbeats, are
//        PINGs. A rejected AppendEntries (the follower lost entries, e.g.
//        it restarted from an older snapshot) goes back to
//        synchronization, with the leader's last index then as target;
//        an InstallSnapshot does too (SNAP).
//   - When recording starts in the middle of a term the leader did not
//     win while recording (it saw no RequestVote of its own for it),
//     each follower is taken to be in broadcast until it rejects one.
//
// A message that got no answer (the follower is down or cut off) keeps
// the follower's phase as it was.

// Phase is a ZAB phase.
type Phase string

// The three phases of ZAB after an election.
const (
	PhaseDiscovery       Phase = "discovery"
	PhaseSynchronization Phase = "synchronization"
	PhaseBroadcast       Phase = "broadcast"
)

// peerPhase is what a leader's trace knows of one follower.
type peerPhase struct {
	term      uint64 // the term this state belongs to; 0: none
	contacted bool   // the follower answered in term
	synced    bool   // its log matched the leader's up to target
	target    uint64 // the leader's last index when synchronization began
	told      uint64 // the highest commit index it was given
}

// leaderMessage reports whether a message of kind goes from a leader to
// a follower (and so moves that follower's peerPhase).
func leaderMessage(kind TraceKind) bool {
	switch kind {
	case TraceAppend, TraceHeartbeat, TraceSnapshot:
		return true
	}
	return false
}

// classify labels m by the rules above. p is what was known of m's
// receiver, won whether this server asked for votes in m's term (so the
// term's first messages are the new leader's), last the leader's last
// log index (read only when a synchronization starts). It returns the
// phase, the ZAB message and the receiver's new state.
func classify(p peerPhase, m *TraceMessage, won bool, last func() uint64) (Phase, string, peerPhase) {
	switch m.Kind {
	case TraceVote:
		return PhaseDiscovery, "VOTE", p
	case TracePreVote:
		return PhaseDiscovery, "PREVOTE", p
	case TraceTimeoutNow:
		return PhaseDiscovery, "ELECT", p
	case TraceForward:
		return PhaseBroadcast, "REQUEST", p
	}
	if p.term != m.Term {
		p = peerPhase{term: m.Term}
		if won {
			p.target = last()
		} else {
			p.contacted, p.synced = true, true
		}
	}
	answered := m.Error == ""
	switch {
	case !p.contacted:
		p.contacted = answered
		p = p.matched(m)
		return PhaseDiscovery, "NEWEPOCH", p
	case !p.synced:
		p = p.matched(m)
		return PhaseSynchronization, syncZab(m.Kind), p
	case m.Kind == TraceSnapshot:
		// The follower needs entries the leader no longer keeps.
		p.synced, p.target = false, last()
		p = p.matched(m)
		return PhaseSynchronization, "SNAP", p
	case answered && !m.OK && m.Kind != TraceHeartbeat:
		// Rejected: the follower's log no longer matches.
		p.synced, p.target = false, last()
		return PhaseSynchronization, syncZab(m.Kind), p
	}
	zab := broadcastZab(p, m)
	return PhaseBroadcast, zab, p.matched(m)
}

// matched notes what a successful answer to m proves: the follower's log
// matches up to m's last entry (or its previous one, or the snapshot's),
// and it was given m's commit index, up to there.
func (p peerPhase) matched(m *TraceMessage) peerPhase {
	if !m.OK || m.Error != "" {
		return p
	}
	match := m.PrevIndex
	if m.Entries > 0 || m.Kind == TraceSnapshot {
		match = m.LastIndex
	}
	if match == 0 {
		return p // a heartbeat names no entry
	}
	if match >= p.target {
		p.synced = true
	}
	p.told = max(p.told, min(m.Commit, match))
	return p
}

// syncZab names a message sent while synchronizing.
func syncZab(kind TraceKind) string {
	switch kind {
	case TraceSnapshot:
		return "SNAP"
	case TraceHeartbeat:
		return "PING"
	}
	return "DIFF"
}

// broadcastZab names a message sent in broadcast.
func broadcastZab(p peerPhase, m *TraceMessage) string {
	if m.Kind == TraceHeartbeat {
		return "PING"
	}
	end := m.PrevIndex
	if m.Entries > 0 {
		end = m.LastIndex
	}
	commits := min(m.Commit, end) > p.told
	switch {
	case m.Entries > 0 && commits:
		return "PROPOSAL+COMMIT"
	case m.Entries > 0:
		return "PROPOSAL"
	case commits:
		return "COMMIT"
	}
	return "PING"
}
