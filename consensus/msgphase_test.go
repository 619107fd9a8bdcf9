package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestClassify is the table of classify's rules (msgphase.go): each row
// is what the leader knew of the follower, the message and its answer,
// and the phase, ZAB message and new state expected.
func TestClassify(t *testing.T) {
	const last = 20 // the leader's last index when a synchronization starts
	synced := peerPhase{term: 5, contacted: true, synced: true, target: 10, told: 12}
	syncing := peerPhase{term: 5, contacted: true, target: 10}
	app := func(prev, first, lastIdx, commit uint64, ok bool) TraceMessage {
		m := TraceMessage{Kind: TraceAppend, Term: 5, PrevIndex: prev, Commit: commit, OK: ok}
		if lastIdx > 0 {
			m.Entries, m.FirstIndex, m.LastIndex = int(lastIdx-first+1), first, lastIdx
		}
		return m
	}
	down := app(12, 13, 13, 12, false)
	down.Error = "connection refused"
	rows := []struct {
		name  string
		p     peerPhase
		m     TraceMessage
		won   bool
		phase Phase
		zab   string
		after peerPhase
	}{
		{"a vote", peerPhase{}, TraceMessage{Kind: TraceVote, Term: 6, OK: true}, false,
			PhaseDiscovery, "VOTE", peerPhase{}},
		{"a pre-vote", synced, TraceMessage{Kind: TracePreVote, Term: 6}, false, PhaseDiscovery, "PREVOTE", synced},
		{"timeout-now", synced, TraceMessage{Kind: TraceTimeoutNow, Term: 5}, false, PhaseDiscovery, "ELECT", synced},
		{"a forwarded write", peerPhase{}, TraceMessage{Kind: TraceForward, Term: 5, OK: true}, false,
			PhaseBroadcast, "REQUEST", peerPhase{}},
		{"new term, first heartbeat answered", peerPhase{term: 4, contacted: true, synced: true},
			TraceMessage{Kind: TraceHeartbeat, Term: 5, OK: true}, true,
			PhaseDiscovery, "NEWEPOCH", peerPhase{term: 5, contacted: true, target: last}},
		{"new term, first message unanswered", peerPhase{}, func() TraceMessage {
			m := app(19, 20, 20, 0, false)
			m.Error = "timeout"
			return m
		}(), true, PhaseDiscovery, "NEWEPOCH", peerPhase{term: 5, target: last}},
		{"new term, first append already matches", peerPhase{}, app(19, 20, 20, 19, true), true,
			PhaseDiscovery, "NEWEPOCH", peerPhase{term: 5, contacted: true, synced: true, target: last, told: 19}},
		{"syncing: rejected (back-off)", syncing, app(9, 10, 10, 8, false), false,
			PhaseSynchronization, "DIFF", syncing},
		{"syncing: a catch-up batch short of the target", syncing, app(3, 4, 8, 9, true), false,
			PhaseSynchronization, "DIFF", peerPhase{term: 5, contacted: true, target: 10, told: 8}},
		{"syncing: the batch that reaches the target", syncing, app(8, 9, 11, 11, true), false,
			PhaseSynchronization, "DIFF", peerPhase{term: 5, contacted: true, synced: true, target: 10, told: 11}},
		{"syncing: a heartbeat", syncing, TraceMessage{Kind: TraceHeartbeat, Term: 5, OK: true}, false,
			PhaseSynchronization, "PING", syncing},
		{"syncing: a snapshot", syncing, TraceMessage{Kind: TraceSnapshot, Term: 5, LastIndex: 15, OK: true}, false,
			PhaseSynchronization, "SNAP", peerPhase{term: 5, contacted: true, synced: true, target: 10}},
		{"broadcast: a proposal", synced, app(12, 13, 13, 12, true), false,
			PhaseBroadcast, "PROPOSAL", peerPhase{term: 5, contacted: true, synced: true, target: 10, told: 12}},
		{"broadcast: a proposal that commits the one before", synced, app(13, 14, 14, 13, true), false,
			PhaseBroadcast, "PROPOSAL+COMMIT", peerPhase{term: 5, contacted: true, synced: true, target: 10, told: 13}},
		{"broadcast: an empty append raising the commit index", synced, app(13, 0, 0, 13, true), false,
			PhaseBroadcast, "COMMIT", peerPhase{term: 5, contacted: true, synced: true, target: 10, told: 13}},
		{"broadcast: an empty append with nothing new", synced, app(12, 0, 0, 12, true), false,
			PhaseBroadcast, "PING", synced},
		{"broadcast: a heartbeat", synced, TraceMessage{Kind: TraceHeartbeat, Term: 5, OK: true}, false,
			PhaseBroadcast, "PING", synced},
		{"broadcast: rejected, back to synchronization", synced, app(12, 13, 13, 12, false), false,
			PhaseSynchronization, "DIFF", peerPhase{term: 5, contacted: true, target: last, told: 12}},
		{"broadcast: no answer keeps the phase", synced, down, false, PhaseBroadcast, "PROPOSAL", synced},
		{"broadcast: a snapshot goes back to synchronization", synced,
			TraceMessage{Kind: TraceSnapshot, Term: 5, LastIndex: 30, OK: true}, false,
			PhaseSynchronization, "SNAP", peerPhase{term: 5, contacted: true, synced: true, target: last, told: 12}},
		{"recording began mid-term: taken as broadcast", peerPhase{}, app(40, 41, 41, 40, true), false,
			PhaseBroadcast, "PROPOSAL+COMMIT", peerPhase{term: 5, contacted: true, synced: true, told: 40}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			m := r.m
			phase, zab, after := classify(r.p, &m, r.won, func() uint64 { return last })
			require.Equal(t, r.phase, phase)
			require.Equal(t, r.zab, zab)
			require.Equal(t, r.after, after)
		})
	}
}
