package consensus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

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
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // IPv6, as ZooKeeper writes it
		}
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
	out := make([]Peer, 0, d.Prealloc(n, 21))
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
	changed := !samePeers(n.peers, m)
	n.peers = m
	n.peersMu.Unlock()
	if changed {
		n.fsm.timeline.add(TimelineEvent{Kind: TimelineMembership, Term: n.term(), Detail: describeMembers(members)})
	}
}

// ErrRemoved is returned by Reconfigure when the new membership leaves
// this node out: the change is made, but a removed node no longer applies
// the ensemble's entries, so it cannot show the result.
var ErrRemoved = errors.New("consensus: this server is not a member of the new configuration")

// ErrReconfigInProgress is returned when the leader is already making
// another membership change: as ZooKeeper (RECONFIGINPROGRESS), zkraft
// runs one at a time and refuses the others rather than queueing them.
var ErrReconfigInProgress = errors.New("consensus: another membership change is in progress")

// ErrConfigChanged is returned when the membership asked for was computed
// from a configuration version that the ensemble has since replaced (a
// concurrent reconfig): the caller computes it again from Membership.
var ErrConfigChanged = errors.New("consensus: the membership changed since the new one was computed")

// Membership returns the current members with the version of the
// configuration they come from (0: the zoo.cfg's), read together, so a
// membership computed from them can be checked against the ensemble's.
func (n *Node) Membership() ([]Peer, int64) {
	n.fsm.mu.RLock()
	defer n.fsm.mu.RUnlock()
	return n.Peers(), n.fsm.configVersion
}

// Reconfigure makes the ensemble's membership members, as ZooKeeper's
// reconfig does, and returns the zxid of its config entry: the leader makes
// Raft's configuration match members one change at a time (Raft's
// single-server changes), then appends a config entry that every member
// writes into /zookeeper/config with version=<that zxid>. The same leader
// does both, so a membership never goes unrecorded because the server that
// asked lost its leader. A follower asks the leader. A leader that the
// change removes first hands its leadership to a member that stays, which
// then removes it and records the change; the old leader stays up, out of
// the ensemble, until a reconfig adds it back.
//
// base is the configuration version members was computed from (see
// Membership), or -1 to replace whatever membership there is. The leader
// runs one change at a time and checks base under that exclusion, so two
// changes computed from the same view (two servers joining at once) can
// never undo each other: the later one gets ErrConfigChanged, or
// ErrReconfigInProgress while the first is still running.
//
// Reconfigure returns once this node has applied the config entry, or with
// ErrRemoved (and the zxid) once the change is made when members leave
// this node out. ErrReconfigFailed means a change was refused (for
// example, a new member never caught up).
func (n *Node) Reconfigure(ctx context.Context, members []Peer, base, mtime int64) (int64, error) {
	if n.stores.window != nil {
		// Its log forgets applied entries and it keeps no snapshot, so a
		// new member could never catch up.
		return 0, ErrStandaloneInMemory
	}
	cmd := &Command{Kind: KindConfig, Members: members, Time: mtime}
	for {
		zxid, err := n.reconfigureOnce(ctx, cmd, base)
		switch {
		case err == nil && !isMember(members, n.self):
			return zxid, ErrRemoved
		case err == nil:
			return zxid, n.Sync(ctx)
		case !errors.Is(err, ErrNotLeader):
			return 0, err
		}
		// The leader changed (or handed over to be removed): every step is
		// idempotent, so the new leader runs the whole change again.
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(reconfigRetry):
		}
	}
}

// reconfigRetry is how long Reconfigure waits for a new leader between
// attempts.
const reconfigRetry = 20 * time.Millisecond

func (n *Node) reconfigureOnce(ctx context.Context, cmd *Command, base int64) (int64, error) {
	if n.fwdCli != nil && n.raft.State() != raft.Leader {
		return n.fwdCli.reconfig(ctx, cmd, base)
	}
	return n.reconfigureHere(cmd, base)
}

// reconfigureHere runs a membership change on the leader, one at a time:
// Raft's configuration first, then the config entry.
func (n *Node) reconfigureHere(cmd *Command, base int64) (int64, error) {
	if !n.reconfigMu.TryLock() {
		return 0, ErrReconfigInProgress
	}
	defer n.reconfigMu.Unlock()
	if err := n.admit(); err != nil {
		return 0, err
	}
	if err := n.checkBase(base); err != nil {
		return 0, err
	}
	if err := n.changeMembership(cmd.Members); err != nil {
		if errors.Is(err, ErrNotLeader) || errors.Is(err, ErrShutdown) {
			return 0, err
		}
		return 0, fmt.Errorf("%w: %v", ErrReconfigFailed, err)
	}
	f := n.raft.Apply(encodeCommand(cmd), 0)
	if err := f.Error(); err != nil {
		return 0, mapRaftError(err)
	}
	return f.Response().(*Applied).Zxid, nil
}

// checkBase makes sure the membership being installed was computed from
// the configuration in force (base -1 checks nothing). The barrier makes
// this leader apply every committed entry first: a leader new in its term
// may not have applied its predecessor's last config entry yet.
func (n *Node) checkBase(base int64) error {
	if base < 0 {
		return nil
	}
	if err := n.raft.Barrier(0).Error(); err != nil {
		return mapRaftError(err)
	}
	if n.ConfigVersion() != base {
		return ErrConfigChanged
	}
	return nil
}

func isMember(members []Peer, id raft.ServerID) bool {
	for _, p := range members {
		if serverID(p.ID) == id {
			return true
		}
	}
	return false
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
		want[serverID(p.ID)] = true
		if err := n.setMember(p, current); err != nil {
			return err
		}
	}
	for id := range current {
		if !want[id] && id != n.self {
			f := n.raft.RemoveServer(id, 0, 0)
			if err := f.Error(); err != nil {
				return mapRaftError(err)
			}
			n.tellRemoved(id, f.Index())
		}
	}
	if !want[n.self] {
		return n.handOverTo(members)
	}
	return nil
}

// setMember adds p to Raft's configuration or changes its vote or
// address, unless it is already there as it should be.
func (n *Node) setMember(p Peer, current map[raft.ServerID]raft.Server) error {
	id := serverID(p.ID)
	suffrage := raft.Voter
	if p.Observer {
		suffrage = raft.Nonvoter
	}
	s, exists := current[id]
	if exists && s.Suffrage == suffrage && string(s.Address) == p.RaftAddr {
		return nil
	}
	var fut raft.IndexFuture
	switch {
	case p.Observer && exists && s.Suffrage == raft.Voter:
		fut = n.raft.DemoteVoter(id, 0, 0) // AddNonvoter never takes a vote away
	case p.Observer:
		fut = n.raft.AddNonvoter(id, raft.ServerAddress(p.RaftAddr), 0, 0)
	default:
		fut = n.raft.AddVoter(id, raft.ServerAddress(p.RaftAddr), 0, 0)
	}
	return mapRaftError(fut.Error())
}

// handOverTo makes a voter of members lead in place of this leader, which
// the change removes, and returns ErrNotLeader so that the change is run
// again by the new leader. (Raft would let a leader remove itself, but the
// config entry must follow, and the rest of the ensemble would first wait
// out an election timeout.)
func (n *Node) handOverTo(members []Peer) error {
	for _, p := range members {
		if p.Observer {
			continue
		}
		err := n.raft.LeadershipTransferToServer(serverID(p.ID), raft.ServerAddress(p.RaftAddr)).Error()
		if err == nil {
			return ErrNotLeader
		}
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrRaftShutdown) {
			return mapRaftError(err)
		}
	}
	return fmt.Errorf("consensus: no member of the new configuration could take the leadership over")
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
