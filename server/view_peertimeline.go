package server

import "encoding/json"

// Every server sends its newest timeline events with the figures it
// shares with the other members' views (encodeStatus), so that one page
// shows the whole ensemble's elections, not only those its server saw.
// It rides on the same gathering, which runs only while a view watches.

// peerTimelineMax is how many of its newest events a server shares: one
// or two elections' worth, a few kilobytes of JSON per second while
// watched.
const peerTimelineMax = 64

// sharedStatus is what a server sends the other members' views: its
// figures, and its newest timeline events (a server that predates this
// sends no "timeline", and decoding it into NodeStatus reads past it).
type sharedStatus struct {
	NodeStatus
	Timeline []TimelineEvent `json:"timeline,omitempty"`
}

// encodeStatus is this server's figures and newest events for the other
// members' views.
func (s *Server) encodeStatus() []byte {
	tl := s.node.Timeline(0)
	if len(tl) > peerTimelineMax {
		tl = tl[len(tl)-peerTimelineMax:]
	}
	b, _ := json.Marshal(sharedStatus{NodeStatus: s.Status(), Timeline: tl})
	return b
}

// PeerTimelines returns the newest events of every other member's
// timeline, by member id, as last gathered with their figures (see
// WatchEnsemble): none until a view watched, at most peerTimelineMax each,
// oldest first. Sequence numbers are each member's own.
func (s *Server) PeerTimelines() map[int64][]TimelineEvent {
	out := map[int64][]TimelineEvent{}
	if s.Standalone() {
		return out
	}
	for _, p := range s.node.PeerStatuses() {
		var st struct {
			Timeline []TimelineEvent `json:"timeline"`
		}
		if json.Unmarshal(p.Data, &st) == nil && len(st.Timeline) > 0 {
			out[p.ID] = st.Timeline
		}
	}
	return out
}
