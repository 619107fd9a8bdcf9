package consensus

import (
	"sync"

	"github.com/hashicorp/raft"
)

// Members counts an ensemble's members as ZooKeeper's leader reports them
// in mntr.
type Members struct {
	// Followers and Observers are the other voters and non-voters.
	Followers, Observers int
	// SyncedFollowers and SyncedObservers are those the leader's
	// heartbeats currently reach (Raft reports each peer whose heartbeats
	// fail and resume).
	SyncedFollowers, SyncedObservers int
}

// peerHealth remembers which peers the leader's heartbeats fail to reach.
type peerHealth struct {
	mu      sync.Mutex
	failing map[raft.ServerID]bool
	obs     *raft.Observer
	ch      chan raft.Observation
	done    chan struct{}
	// note hears of each outage's start (down) and end, once each.
	note func(id raft.ServerID, down bool)
}

func watchPeerHealth(r *raft.Raft, note func(id raft.ServerID, down bool)) *peerHealth {
	h := &peerHealth{failing: map[raft.ServerID]bool{}, ch: make(chan raft.Observation, 64), done: make(chan struct{}), note: note}
	h.obs = raft.NewObserver(h.ch, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.FailedHeartbeatObservation, raft.ResumedHeartbeatObservation:
			return true
		}
		return false
	})
	r.RegisterObserver(h.obs)
	go h.run()
	return h
}

func (h *peerHealth) run() {
	defer close(h.done)
	for o := range h.ch {
		h.mu.Lock()
		var id raft.ServerID
		var was, down bool
		switch d := o.Data.(type) {
		case raft.FailedHeartbeatObservation:
			id, was, down = d.PeerID, h.failing[d.PeerID], true
			h.failing[d.PeerID] = true
		case raft.ResumedHeartbeatObservation:
			id, was = d.PeerID, h.failing[d.PeerID]
			delete(h.failing, d.PeerID)
		}
		h.mu.Unlock()
		if was != down && h.note != nil {
			h.note(id, down)
		}
	}
}

func (h *peerHealth) isFailing(id raft.ServerID) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failing[id]
}

func (h *peerHealth) stop(r *raft.Raft) {
	r.DeregisterObserver(h.obs)
	close(h.ch)
	<-h.done
}

// Voters is the number of voting members in the current configuration,
// this node included when it votes: ZooKeeper's quorum size.
func (n *Node) Voters() int {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return 0
	}
	v := 0
	for _, s := range f.Configuration().Servers {
		if s.Suffrage == raft.Voter {
			v++
		}
	}
	return v
}

// Members reports the ensemble's other members; synced counts are only
// meaningful on the leader.
func (n *Node) Members() Members {
	var m Members
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return m
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == n.self {
			continue
		}
		synced := n.health != nil && !n.health.isFailing(s.ID)
		if s.Suffrage == raft.Voter {
			m.Followers++
			if synced {
				m.SyncedFollowers++
			}
		} else {
			m.Observers++
			if synced {
				m.SyncedObservers++
			}
		}
	}
	return m
}
