package console

import (
	"cmp"
	"slices"

	"github.com/zkraft/zkraft/server"
)

// peerEvent is another server's timeline event, labelled with the server
// that recorded it.
type peerEvent struct {
	Server int64 `json:"server"`
	server.TimelineEvent
}

// peerEvents flattens the peers' timelines into one list ordered by time.
// With marks (the newest sequence number already sent, per peer) it keeps
// only the newer events and advances the marks; a peer whose newest event
// is older than its mark has restarted (its numbering starts again), and
// all of its events count as new.
func peerEvents(tls map[int64][]server.TimelineEvent, marks map[int64]uint64) []peerEvent {
	out := []peerEvent{}
	for id, tl := range tls {
		var mark uint64
		if marks != nil {
			mark = marks[id]
			if last := lastSeq(tl, 0); last < mark {
				mark = 0
			}
			marks[id] = lastSeq(tl, mark)
		}
		for _, ev := range tl {
			if ev.Seq > mark {
				out = append(out, peerEvent{Server: id, TimelineEvent: ev})
			}
		}
	}
	slices.SortFunc(out, func(a, b peerEvent) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Server, b.Server), cmp.Compare(a.Seq, b.Seq))
	})
	return out
}

// sentBefore keeps the events the hub had sent when marks were read: the
// hub sends the later ones.
func sentBefore(evs []peerEvent, marks map[int64]uint64) []peerEvent {
	out := evs[:0]
	for _, ev := range evs {
		if ev.Seq <= marks[ev.Server] {
			out = append(out, ev)
		}
	}
	return out
}
