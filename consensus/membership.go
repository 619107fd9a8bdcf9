package consensus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/wire"
)

// FormatMembership renders members as ZooKeeper writes /zookeeper/config:
// one server.N=host:peerPort:electionPort:participant|observer[;client]
// line each, by id, then version=<hex>.
func FormatMembership(members []Peer, version int64) []byte {
	sorted := append([]Peer(nil), members...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	var b strings.Builder
	for _, p := range sorted {
		host, peerPort, _ := net.SplitHostPort(p.RaftAddr)
		_, electionPort, _ := net.SplitHostPort(p.ForwardAddr)
		role := "participant"
		if p.Observer {
			role = "observer"
		}
		fmt.Fprintf(&b, "server.%d=%s:%s:%s:%s", p.ID, host, peerPort, electionPort, role)
		if p.Client != "" {
			b.WriteString(";" + p.Client)
		}
		b.WriteString("\n")
	}
	b.WriteString("version=" + strconv.FormatInt(version, 16))
	return []byte(b.String())
}

func encodePeers(e *wire.Encoder, peers []Peer) {
	e.Int(int32(len(peers)))
	for _, p := range peers {
		e.Long(p.ID)
		e.String(p.RaftAddr)
		e.String(p.ForwardAddr)
		e.String(p.Client)
		e.Bool(p.Observer)
	}
}

func decodePeers(d *wire.Decoder) []Peer {
	n := d.Count(21)
	out := make([]Peer, 0, max(n, 0))
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, Peer{ID: d.Long(), RaftAddr: d.String(), ForwardAddr: d.String(), Client: d.String(), Observer: d.Bool()})
	}
	return out
}

func serverID(id int64) raft.ServerID { return raft.ServerID(strconv.FormatInt(id, 10)) }

// Peers returns the ensemble's current members (nil when standalone).
func (n *Node) Peers() []Peer {
	n.peersMu.Lock()
	defer n.peersMu.Unlock()
	out := make([]Peer, 0, len(n.peers))
	for _, p := range n.peers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (n *Node) peer(id raft.ServerID) (Peer, bool) {
	n.peersMu.Lock()
	defer n.peersMu.Unlock()
	p, ok := n.peers[id]
	return p, ok
}

// setPeers replaces the known members (after a reconfig is applied).
func (n *Node) setPeers(members []Peer) {
	m := make(map[raft.ServerID]Peer, len(members))
	for _, p := range members {
		m[serverID(p.ID)] = p
	}
	n.peersMu.Lock()
	n.peers = m
	n.peersMu.Unlock()
}

// ChangeMembership makes Raft's configuration match members, one change at
// a time (Raft's single-server changes), on the leader; a follower asks the
// leader to do it. It does not touch /zookeeper/config: propose a KindConfig
// command afterwards.
func (n *Node) ChangeMembership(ctx context.Context, members []Peer) error {
	if n.stores.window != nil {
		// Its log forgets applied entries and it keeps no snapshot, so a
		// new member could never catch up.
		return ErrStandaloneInMemory
	}
	if n.fwdCli != nil && n.raft.State() != raft.Leader {
		return n.fwdCli.reconfig(ctx, members)
	}
	return n.changeMembership(members)
}

func (n *Node) changeMembership(members []Peer) error {
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return mapRaftError(err)
	}
	current := map[raft.ServerID]raft.Server{}
	for _, s := range f.Configuration().Servers {
		current[s.ID] = s
	}
	want := map[raft.ServerID]bool{}
	for _, p := range members {
		id := serverID(p.ID)
		want[id] = true
		suffrage := raft.Voter
		if p.Observer {
			suffrage = raft.Nonvoter
		}
		if s, ok := current[id]; ok && s.Suffrage == suffrage && string(s.Address) == p.RaftAddr {
			continue
		}
		var fut raft.IndexFuture
		switch s, exists := current[id]; {
		case p.Observer && exists && s.Suffrage == raft.Voter:
			fut = n.raft.DemoteVoter(id, 0, 0) // AddNonvoter never takes a vote away
		case p.Observer:
			fut = n.raft.AddNonvoter(id, raft.ServerAddress(p.RaftAddr), 0, 0)
		default:
			fut = n.raft.AddVoter(id, raft.ServerAddress(p.RaftAddr), 0, 0)
		}
		if err := fut.Error(); err != nil {
			return mapRaftError(err)
		}
	}
	for id := range current {
		if !want[id] {
			if err := n.raft.RemoveServer(id, 0, 0).Error(); err != nil {
				return mapRaftError(err)
			}
		}
	}
	return nil
}

// voting reports whether Raft's current configuration gives this node a vote.
func (n *Node) voting() bool {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return true
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == n.self {
			return s.Suffrage == raft.Voter
		}
	}
	return false
}

// ErrStandaloneInMemory is returned by ChangeMembership on a standalone
// node without a dataDir, which cannot take members.
var ErrStandaloneInMemory = errors.New("consensus: an in-memory standalone node cannot change its membership")

// ErrNotLeading is returned by HandOver on a node that does not lead.
var ErrNotLeading = errors.New("consensus: not the leader")

// HandOver makes the most up-to-date voting follower the leader, so that a
// leader about to stop leaves the ensemble with a leader at once instead of
// after an election timeout. While it runs, new proposals are refused. It
// gives up after one election timeout if no follower could take over.
func (n *Node) HandOver() error {
	if n.fwdCli == nil || !n.IsLeader() {
		return ErrNotLeading
	}
	return n.raft.LeadershipTransfer().Error()
}
