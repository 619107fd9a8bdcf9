package server

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJudgeEnsemble: the one leader a view may draw is the one this
// server follows, and only while it is heard from; a quorum needs that
// leader and a majority of the voters heard from (or still loading);
// observers do not count.
func TestJudgeEnsemble(t *testing.T) {
	member := func(id int64, role string, leader int64, reachable, loading bool) EnsembleMember {
		return EnsembleMember{ID: id, Status: &NodeStatus{ID: id, Role: role, LeaderID: leader, Epoch: 3},
			Reachable: reachable, Loading: loading}
	}
	self := func(m EnsembleMember) EnsembleMember { m.Self, m.Reachable = true, true; return m }
	observer := func(m EnsembleMember) EnsembleMember { m.Observer = true; return m }
	for _, tc := range []struct {
		name    string
		members []EnsembleMember
		want    EnsembleHealth
	}{
		{"all heard from", []EnsembleMember{self(member(1, "follower", 2, true, false)), member(2, "leader", 2, true, false), member(3, "follower", 2, true, false)},
			EnsembleHealth{Leader: 2, Epoch: 3, Voters: 3, Reachable: 3, Quorum: true}},
		{"the leader this server follows is not heard from", []EnsembleMember{self(member(1, "follower", 2, true, false)), member(2, "leader", 2, false, false), member(3, "follower", 2, true, false)},
			EnsembleHealth{Epoch: 3, Voters: 3, Reachable: 2}},
		{"a dead leader's last figures do not make it the leader", []EnsembleMember{self(member(1, "follower", 3, true, false)), member(2, "leader", 2, false, false), member(3, "leader", 3, true, false)},
			EnsembleHealth{Leader: 3, Epoch: 3, Voters: 3, Reachable: 2, Quorum: true}},
		{"cut off: a leader known but one voter of three", []EnsembleMember{self(member(1, "follower", 2, true, false)), member(2, "leader", 2, true, false), member(3, "follower", 2, false, false), member(4, "follower", 2, false, false), member(5, "follower", 2, false, false)},
			EnsembleHealth{Leader: 2, Epoch: 3, Voters: 5, Reachable: 2}},
		{"still loading counts towards the quorum", []EnsembleMember{self(member(1, "follower", 2, true, false)), member(2, "leader", 2, false, true), member(3, "follower", 2, false, true)},
			EnsembleHealth{Leader: 2, Epoch: 3, Voters: 3, Reachable: 1, Loading: 2, Quorum: true}},
		{"looking", []EnsembleMember{self(member(1, "looking", 0, true, false)), member(2, "follower", 0, true, false), member(3, "follower", 0, true, false)},
			EnsembleHealth{Epoch: 3, Voters: 3, Reachable: 3}},
		{"observers do not vote", []EnsembleMember{observer(self(member(4, "observer", 1, true, false))), member(1, "leader", 1, true, false), member(2, "follower", 1, false, false), member(3, "follower", 1, false, false)},
			EnsembleHealth{Leader: 1, Epoch: 3, Voters: 3, Reachable: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, judgeEnsemble(tc.members, false))
		})
	}
	alone := []EnsembleMember{self(member(1, "standalone", 1, true, false))}
	require.Equal(t, EnsembleHealth{Leader: 1, Epoch: 3, Voters: 1, Reachable: 1, Quorum: true}, judgeEnsemble(alone, true))
}
