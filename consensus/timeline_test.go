package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTimelineRing fills the timeline past its size: it keeps the newest
// TimelineSize events in order, and since returns only newer ones.
func TestTimelineRing(t *testing.T) {
	var tl timeline
	require.Empty(t, tl.since(0))
	for i := range TimelineSize + 10 {
		tl.add(TimelineEvent{Kind: TimelineSnapshotTaken, Zxid: int64(i + 1)})
	}
	all := tl.since(0)
	require.Len(t, all, TimelineSize)
	require.Equal(t, uint64(11), all[0].Seq, "the oldest ten were dropped")
	require.Equal(t, int64(11), all[0].Zxid)
	for i := 1; i < len(all); i++ {
		require.Equal(t, all[i-1].Seq+1, all[i].Seq)
		require.False(t, all[i].Time.IsZero())
	}
	last := all[len(all)-1].Seq
	require.Empty(t, tl.since(last))
	require.Len(t, tl.since(last-3), 3)
	require.Len(t, tl.since(5), TimelineSize, "events already dropped are not returned")
}

// TestTimelineRecordsSnapshotsAndLeadership checks the events a standalone
// node records: its election, and a snapshot taken on request.
func TestTimelineRecordsSnapshotsAndLeadership(t *testing.T) {
	n := startNode(t, nil)
	n.noteLeader(n.self) // as watchElections does for an ensemble member
	n.noteLeader(n.self) // the same leader again adds nothing
	require.NoError(t, n.Snapshot())
	var kinds []TimelineKind
	for _, ev := range n.Timeline(0) {
		kinds = append(kinds, ev.Kind)
	}
	require.Equal(t, []TimelineKind{TimelineLeader, TimelineSnapshotTaken}, kinds)
	require.True(t, n.Timeline(0)[0].Self)
}

// TestTimelineRecordsMembershipChanges: a new membership (as an applied
// reconfig sets it) is one event naming the members; the same one again
// is none.
func TestTimelineRecordsMembershipChanges(t *testing.T) {
	n := startNode(t, nil)
	members := []Peer{{ID: 3, RaftAddr: "127.0.0.1:3"}, {ID: 1, RaftAddr: "127.0.0.1:1"}, {ID: 2, RaftAddr: "127.0.0.1:2", Observer: true}}
	n.setPeers(members)
	n.setPeers(members)
	var got []TimelineEvent
	for _, ev := range n.Timeline(0) {
		if ev.Kind == TimelineMembership {
			got = append(got, ev)
		}
	}
	require.Len(t, got, 1)
	require.Equal(t, "1 2(observer) 3", got[0].Detail)
}
