package console

import (
	"encoding/json"
	"time"

	"github.com/zkraft/zkraft/server"
)

// state is what the page shows, as the snapshot and each stream update
// carry it.
type state struct {
	// Server is the id of the server answering (0 when standalone with
	// no myid).
	Server int64     `json:"server"`
	Time   time.Time `json:"time"`
	// Members are the ensemble's servers by id.
	Members []server.EnsembleMember `json:"members"`
	// Health is the answering server's verdict on them: the one leader
	// to draw as current, and whether it hears from a quorum.
	Health server.EnsembleHealth `json:"health"`
	// Timeline holds the events after the ones the client has: all of
	// them in the snapshot and a stream's first update, the new ones
	// after.
	Timeline []server.TimelineEvent `json:"timeline"`
	// PeerTimeline holds the other servers' events, each labelled with
	// its server: all those gathered in the snapshot and a stream's first
	// update, the ones not sent before after (the page keys them by
	// server and sequence number, so a repeat does no harm).
	PeerTimeline []peerEvent `json:"peerTimeline"`
}

// state reads the figures now, with the timeline's events after seq.
func (c *Console) state(after uint64) state {
	st := state{Time: time.Now(), Members: c.view.Ensemble(), Timeline: c.view.Timeline(after),
		PeerTimeline: peerEvents(c.view.PeerTimelines(), nil)}
	st.Health = c.view.Health(st.Members)
	for _, m := range st.Members {
		if m.Self {
			st.Server = m.ID
		}
	}
	if st.Timeline == nil {
		st.Timeline = []server.TimelineEvent{}
	}
	return st
}

// lastSeq is the sequence number of the newest event in tl (after when
// there is none).
func lastSeq(tl []server.TimelineEvent, after uint64) uint64 {
	if len(tl) == 0 {
		return after
	}
	return tl[len(tl)-1].Seq
}

// mustJSON encodes v, whose types always encode.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
