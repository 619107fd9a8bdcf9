package consensus

import (
	"github.com/hashicorp/raft"
)

// EventKind says what an Event reports.
type EventKind int

// The changes Observe reports.
const (
	// LeaderChanged: this node learnt of a new leader, or lost its leader
	// (LeaderID is then "").
	LeaderChanged EventKind = iota
	// PeerUnreachable: the leader's heartbeats to PeerID started failing.
	// Reported once per outage, on the leader only.
	PeerUnreachable
	// PeerReachable: heartbeats to PeerID work again after an outage.
	PeerReachable
)

// Event is a change of the ensemble's state worth one log line.
type Event struct {
	Kind EventKind
	// LeaderID and LeaderAddr name the new leader (LeaderChanged).
	LeaderID, LeaderAddr string
	// Term is the Raft term (ZooKeeper's epoch) when the event was seen.
	Term uint64
	// PeerID and PeerAddr (its peer port) name the peer of
	// PeerUnreachable and PeerReachable.
	PeerID, PeerAddr string
}

// Observe calls fn, from one goroutine, for every leader change and every
// peer outage and recovery (one call each, not one per failed heartbeat).
// The returned stop function deregisters fn and waits for the goroutine;
// call it before Close.
func (n *Node) Observe(fn func(Event)) (stop func()) {
	ch := make(chan raft.Observation, 64)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.LeaderObservation, raft.FailedHeartbeatObservation, raft.ResumedHeartbeatObservation:
			return true
		}
		return false
	})
	n.raft.RegisterObserver(obs)
	done := make(chan struct{})
	go func() {
		defer close(done)
		down := map[raft.ServerID]bool{}
		for o := range ch {
			term := n.raft.CurrentTerm()
			switch d := o.Data.(type) {
			case raft.LeaderObservation:
				// A new leader reports outages afresh.
				clear(down)
				fn(Event{Kind: LeaderChanged, LeaderID: string(d.LeaderID), LeaderAddr: string(d.LeaderAddr), Term: term})
			case raft.FailedHeartbeatObservation:
				if !down[d.PeerID] {
					down[d.PeerID] = true
					fn(Event{Kind: PeerUnreachable, PeerID: string(d.PeerID), PeerAddr: n.peerAddr(d.PeerID), Term: term})
				}
			case raft.ResumedHeartbeatObservation:
				if down[d.PeerID] {
					delete(down, d.PeerID)
					fn(Event{Kind: PeerReachable, PeerID: string(d.PeerID), PeerAddr: n.peerAddr(d.PeerID), Term: term})
				}
			}
		}
	}()
	return func() {
		n.raft.DeregisterObserver(obs)
		close(ch)
		<-done
	}
}

// peerAddr returns a member's peer address, "" when it is unknown.
func (n *Node) peerAddr(id raft.ServerID) string {
	p, _ := n.peer(id)
	return p.RaftAddr
}

// Leader returns the id and peer address of the leader this node knows,
// or "" while it knows none.
func (n *Node) Leader() (id, addr string) {
	a, i := n.raft.LeaderWithID()
	return string(i), string(a)
}
