package console

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// setPeer sets peer id's timeline in the fake view.
func (v *fakeView) setPeer(id int64, tl ...server.TimelineEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.peers == nil {
		v.peers = map[int64][]server.TimelineEvent{}
	}
	v.peers[id] = tl
}

// TestPeerTimelineOnStream checks that the snapshot carries every peer's
// events, labelled with the peer and ordered by time; that a stream
// delivers each once, new ones as they come; and that a peer that
// restarted (its numbering starts again) has its events sent anew.
func TestPeerTimelineOnStream(t *testing.T) {
	v := newFakeView()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	v.setPeer(2, server.TimelineEvent{Seq: 1, Time: at(1), Kind: "looking"}, server.TimelineEvent{Seq: 2, Time: at(3), Kind: "leader", Leader: "3"})
	v.setPeer(3, server.TimelineEvent{Seq: 1, Time: at(2), Kind: "leader", Leader: "3", Self: true})
	_, base := serve(t, v, 10*time.Millisecond)

	snap := snapshotOf(t, base)
	require.Len(t, snap.PeerTimeline, 3)
	var order []int64
	for _, ev := range snap.PeerTimeline {
		order = append(order, ev.Server*10+int64(ev.Seq))
	}
	require.Equal(t, []int64{21, 31, 22}, order, "labelled with the server, ordered by time")

	// The stream: between its first updates every event exactly once.
	ev := openEvents(t, base)
	seen := map[int64]int{}
	count := func(st state) {
		for _, e := range st.PeerTimeline {
			seen[e.Server*10+int64(e.Seq)]++
		}
	}
	for len(seen) < 3 {
		count(ev.next(t))
	}
	for range 3 {
		count(ev.next(t))
	}
	require.Equal(t, map[int64]int{21: 1, 22: 1, 31: 1}, seen, "every event once")
	v.setPeer(3, server.TimelineEvent{Seq: 1, Time: at(2), Kind: "leader", Leader: "3", Self: true},
		server.TimelineEvent{Seq: 2, Time: at(4), Kind: "peer-down", Peer: "1"})
	st := ev.next(t)
	for len(st.PeerTimeline) == 0 {
		st = ev.next(t)
	}
	require.Len(t, st.PeerTimeline, 1)
	require.Equal(t, int64(3), st.PeerTimeline[0].Server)
	require.Equal(t, "peer-down", string(st.PeerTimeline[0].Kind))

	v.setPeer(2, server.TimelineEvent{Seq: 1, Time: at(9), Kind: "looking"}) // server 2 restarted
	for st = ev.next(t); len(st.PeerTimeline) == 0; st = ev.next(t) {
	}
	require.Len(t, st.PeerTimeline, 1)
	require.Equal(t, int64(2), st.PeerTimeline[0].Server)
	require.Equal(t, at(9), st.PeerTimeline[0].Time.UTC())
}
