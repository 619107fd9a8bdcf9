package admin

import (
	"fmt"
	"net"
	"strconv"
)

// The commands about the ensemble, with ZAB's words mapped onto Raft:
// epoch = term, voting member = Raft voter, observer = Raft non-voter.

// runLeader is ZooKeeper's LeaderCommand; a standalone server answers
// with ZooKeeper's error.
func runLeader(r *request) Object {
	if r.view.Standalone() {
		return Object{{"error", "server is not initialized"}}
	}
	l := r.view.Leadership()
	id := l.LeaderID
	if id == 0 {
		id = -1
	}
	return Object{{"is_leader", l.IsLeader}, {"leader_id", id}, {"leader_ip", l.LeaderHost}}
}

// runVotingView lists the voting members, keyed by id.
func runVotingView(r *request) Object {
	view := Object{}
	for _, m := range r.view.Members() {
		if m.Observer {
			continue
		}
		view = append(view, Field{strconv.FormatInt(m.ID, 10), Object{
			{"server_addresses", []string{m.PeerAddr}},
			{"election_addresses", []string{m.ElectionAddr}},
			{"client_address", m.ClientAddr},
			{"learner_type", "participant"},
		}})
	}
	return Object{{"current_config", view}}
}

// runObservers lists, on the leader, the observers (Raft non-voters) its
// heartbeats reach. zkraft keeps no per-learner packet counts: those
// fields are 0 and last_zxid -1, as ZooKeeper shows before the first
// proposal.
func runObservers(r *request) Object {
	list := []Object{}
	if r.view.Leadership().IsLeader {
		for _, m := range r.view.Members() {
			if !m.Observer || !m.Reachable {
				continue
			}
			list = append(list, Object{
				{"remote_socket_address", "/" + m.PeerAddr},
				{"sid", m.ID},
				{"established", int64(0)},
				{"queued_packets", 0},
				{"queued_packets_size", int64(0)},
				{"packets_received", int64(0)},
				{"packets_sent", int64(0)},
				{"requests", int64(0)},
				{"last_zxid", int64(-1)},
			})
		}
	}
	return Object{{"synced_observers", len(list)}, {"observers", list}}
}

// runZabState reports ZAB's state: zab_epoch and zab_counter split the
// last applied zxid (its epoch is the Raft term that committed it), and
// zabstate is broadcast, synchronization or election.
func runZabState(r *request) Object {
	if r.view.Standalone() {
		return Object{{"voting", false}, {"zabstate", ""}}
	}
	l := r.view.Leadership()
	zxid := r.view.LastZxid()
	return Object{
		{"myid", r.view.Config().ServerID},
		{"is_leader", l.IsLeader},
		{"quorum_address", multipleAddresses(l.Self.PeerAddr)},
		{"election_address", multipleAddresses(l.Self.ElectionAddr)},
		{"client_address", l.Self.ClientAddr},
		{"voting", l.Voting},
		{"last_zxid", fmt.Sprintf("0x%x", zxid)},
		{"zab_epoch", zxid >> 32},
		{"zab_counter", zxid & 0xffffffff},
		{"zabstate", l.ZabState},
	}
}

// multipleAddresses is the Jackson dump of a ZooKeeper MultipleAddresses
// holding the one address addr (host:port), field for field.
func multipleAddresses(addr string) Object {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return Object{{"empty", true}}
	}
	n, _ := strconv.Atoi(port)
	one := []string{addr}
	return Object{
		{"empty", false},
		{"all_addresses", one},
		{"all_reachable_addresses", one},
		{"one", addr},
		{"reachable_address", addr},
		{"wildcard_addresses", []string{net.JoinHostPort("0.0.0.0", port)}},
		{"all_ports", []int{n}},
		{"all_host_strings", []string{host}},
		{"all_reachable_addresses_or_all", one},
		{"reachable_or_one", addr},
	}
}
