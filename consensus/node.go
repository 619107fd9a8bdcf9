package consensus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/session"
)

// ErrNotLeader is returned when a proposal cannot reach a leader, or the
// leader lost its leadership before committing it.
var ErrNotLeader = errors.New("consensus: not the leader")

// ErrShutdown is returned for proposals after Close.
var ErrShutdown = errors.New("consensus: node is shut down")

// Peer is one member of an ensemble, from a server.N line of zoo.cfg.
type Peer struct {
	ID int64
	// RaftAddr is host:peerPort, where Raft runs.
	RaftAddr string
	// ForwardAddr is host:electionPort, where the leader takes followers'
	// proposals (Raft elects on its own port, so ZAB's election port is
	// free for this).
	ForwardAddr string
	// Observer makes the peer a Raft non-voter.
	Observer bool
	// Client is the ;[address:]port part of its server.N line, if any,
	// kept for /zookeeper/config.
	Client string
}

// Config configures a Node.
type Config struct {
	// ServerID names this server in the Raft configuration.
	ServerID int64
	// Peers lists every member of an ensemble, this server included; empty
	// means standalone.
	Peers []Peer
	// ElectionTimeout is Raft's heartbeat and election timeout in an
	// ensemble (zkserver uses one tick); 0 means one second.
	ElectionTimeout time.Duration
	// Tree configures the replicated data tree.
	Tree datatree.Config
	// Hook sees every applied entry under the state lock (see ApplyHook).
	Hook ApplyHook
	// OnRestore sees the state every installed snapshot brings (a
	// follower catching up, a restart, a user restore: restore.go), under
	// the state lock, like Hook. It may run before Start returns and must
	// not block.
	OnRestore func(st *State)
	// Logger receives Raft's errors; nil discards them.
	Logger *slog.Logger
	// OnDamage is called with a one-line error when a log entry read while
	// the node runs fails its checksum (damage found at start fails Start
	// instead). The caller should stop: when it returns, Raft gets the
	// error and panics. zkserver prints the line and exits.
	OnDamage func(error)
	// Storage is where the log and snapshots live; the zero value is memory.
	Storage Storage
	// SnapshotThreshold is ZooKeeper's snapCount: a snapshot is taken
	// after a random number of applied entries in (snapCount/2, snapCount]
	// since the last one; 0 keeps Raft's own default (8192 entries, checked
	// only every two minutes).
	SnapshotThreshold int
	// SnapshotBytes is ZooKeeper's snapSizeLimitInKb in bytes: a snapshot
	// is also taken once the entries applied since the last one reach a
	// random size in (SnapshotBytes/2, SnapshotBytes]. 0 follows the last
	// snapshot's size, at least 64 MiB; below 0 turns the size limit off
	// (see snapCounter). It applies only where SnapshotThreshold does.
	SnapshotBytes int64
	// Network carries the ensemble's traffic; nil means TCP.
	Network Network
	// legacyPeerProtocol makes the node speak only hashicorp/raft's
	// NetworkTransport protocol on the peer port, as servers before
	// consensus/transport did (tests of a rolling upgrade).
	legacyPeerProtocol bool
	// MembershipTime is the mtime (ms) of /zookeeper/config when an
	// ensemble member installs its configured membership there.
	MembershipTime int64
	// MembershipVersion is the version of Peers as configured: 0 for
	// zoo.cfg's server lines, the version in a dynamic config file's name
	// otherwise.
	// /zookeeper/config shows it (and reconfig's curConfigId is checked
	// against it) until the first reconfig.
	MembershipVersion int64
	// Metrics is the server's metric set, in which the node registers
	// ZooKeeper's consensus metrics (commit_count, election_time, ...);
	// nil keeps them in a set of the node's own.
	Metrics *metrics.Set
	// LinkTimeout bounds how long a link between servers may stall: a
	// Raft connection whose first byte, or a forwarding connection whose
	// next frame, does not arrive within it is closed, and a forwarding
	// write to a peer that stops reading fails after it. Followers send a
	// keepalive on an idle forwarding connection every LinkTimeout/4. 0
	// means DefaultLinkTimeout. (Raft's own RPC timeout stays 10 s.)
	LinkTimeout time.Duration

	// trailingLogs overrides Raft's TrailingLogs (entries kept behind a
	// snapshot for followers that lag) when positive; for tests.
	trailingLogs int
	// commitTimeout overrides Raft's CommitTimeout when positive; for
	// tests.
	commitTimeout time.Duration
	// leaseTimeout overrides an ensemble's leader lease (see leaseTimeout)
	// when positive; for tests.
	leaseTimeout time.Duration
	// counterBase starts every term's zxid counter there instead of at 0,
	// so that tests reach the rollover (rollover.go) in a few writes.
	// Every member must have the same.
	counterBase uint32
}

// Node is one replica: a Raft instance and the FSM it drives.
type Node struct {
	raft *raft.Raft
	// raftRef is raft for goroutines that may run before Start sets it
	// (the FSM's).
	raftRef   atomic.Pointer[raft.Raft]
	fsm       *fsm
	transport raft.Transport
	stores    *stores
	// quorum counts durable copies on a durable ensemble member (nil
	// otherwise): see durablequorum.go.
	quorum  *durableQuorum
	self    raft.ServerID
	peersMu sync.Mutex
	peers   map[raft.ServerID]Peer
	// reconfigMu is held by the leader while it makes a membership
	// change (membership.go): one at a time, as in ZooKeeper.
	reconfigMu sync.Mutex
	fwdSrv     *forwardServer
	fwdCli     *forwardClient
	// trace records the messages this server sends, while watched
	// (msgtrace.go); nil when standalone.
	trace   *tracer
	onTouch func(ids []int64)
	// timeouts owns Raft's heartbeat and election timeouts (nil before
	// Raft starts); stopWatch stops watchLeader (nil standalone).
	timeouts  *timeouts
	stopWatch func()
	// leaderKnown wakes AwaitLeader when a leader becomes known.
	leaderKnown *appliedSignal
	health      *peerHealth
	network     Network
	linkTime    time.Duration // Config.LinkTimeout, defaulted
	log         *slog.Logger  // Config.Logger; nil discards
	// removedAt is the index of the configuration entry that removed
	// this node, as the leader told it (see Removed); 0 if none.
	removedAt atomic.Uint64
	// epochSync remembers the last term this node synchronised with its
	// leader in (see AwaitSynced).
	epochSync epochSync
	// background counts goroutines Close waits for.
	background sync.WaitGroup
	// metrics are ZooKeeper's consensus metrics; stopElections stops
	// their election watch (nil standalone).
	metrics       *nodeMetrics
	stopElections func()
	// leaderNote dedupes the timeline's leader events (timeline.go).
	leaderNote leaderNote
	// status gathers the other members' figures for views (status.go).
	status peerStatus
	// rolledOver is the last term whose zxid counter made this node
	// start a new term (rollover.go).
	rolledOver atomic.Uint64
	// restoreMu runs one user restore at a time.
	restoreMu sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

// Start starts a node: a single voter that elects itself at once when
// cfg.Peers is empty, else a member of the ensemble cfg.Peers describes.
// With durable Storage it first recovers the last snapshot and the log
// after it, so every acknowledged write survives a restart. A standalone
// node is leading when Start returns; an ensemble member may still be
// looking for a quorum (see HasLeader).
func Start(ctx context.Context, cfg Config) (*Node, error) {
	began := time.Now()
	rc := raftConfig(cfg)
	st, err := openStores(cfg.Storage, len(cfg.Peers) == 0, rc.Logger, cfg.Logger)
	if err != nil {
		return nil, err
	}
	nm := newNodeMetrics(cfg.Metrics)
	if st.guard != nil && !cfg.Storage.NoSync {
		st.guard.fsyncTime = nm.fsyncTime
	}
	if cfg.OnDamage != nil {
		dataDir := cfg.Storage.DataDir
		st.setOnDamage(func(err error) { cfg.OnDamage(stopDamaged(err, dataDir)) })
	}
	n := &Node{fsm: newFSM(cfg.Tree, cfg.Hook, cfg.ServerID), stores: st, self: rc.LocalID, peers: map[raft.ServerID]Peer{}, network: cfg.Network,
		leaderKnown: newAppliedSignal(), metrics: nm}
	n.fsm.snapshotTime = nm.snapshotTime
	n.fsm.waiters.proposalLatency = nm.proposalLat
	n.fsm.commits = n.countCommits
	if n.network == nil {
		n.network = TCP{}
	}
	n.linkTime, n.log = cfg.linkTimeout(), cfg.Logger
	if len(cfg.Peers) > 0 {
		n.fsm.config, n.fsm.configTime = FormatMembership(cfg.Peers, cfg.MembershipVersion), cfg.MembershipTime
		n.fsm.configVersion = cfg.MembershipVersion
		n.fsm.installConfig()
	}
	n.fsm.onMembers = n.setPeers
	n.fsm.onRestore = cfg.OnRestore
	n.fsm.firstCounter, n.fsm.log = cfg.counterBase, cfg.Logger
	if st.overlap != nil {
		n.quorum = newDurableQuorum(rc.LocalID, st.overlap.durableIndex, nm.appliedAhead)
		st.overlap.countCopies(n.quorum)
		n.fsm.durable = n.quorum.wait
	}
	ready := make(chan struct{})
	defer close(ready)
	if rc.SnapshotThreshold != math.MaxUint64 && cfg.SnapshotThreshold > 0 {
		n.fsm.snaps = newSnapCounter(rc.SnapshotThreshold, cfg.SnapshotBytes, func() {
			<-ready                   // n.raft is set
			n.raft.Snapshot().Error() // fails only when there is nothing new or Raft stopped
		})
		n.fsm.snaps.onReplayed = n.metrics.replayed
		if err := n.fsm.snaps.replayFrom(st.logs); err != nil {
			n.closeStores()
			n.discardFresh()
			return nil, fmt.Errorf("consensus: start: %w", err)
		}
	}
	conf, err := n.setupTransport(cfg, rc)
	if err == nil {
		err = n.bootstrapOnce(rc, conf)
	}
	if err == nil {
		n.raft, err = raft.NewRaft(rc, n.fsm, st.logs, st.stable, stampStore{st.snaps}, n.transport)
	}
	if err == nil {
		if n.fsm.snaps != nil {
			n.fsm.snaps.watchQuiet(quietSnapAfter)
		}
		n.startupTimes(cfg.Storage.Durable(), began)
		n.raftRef.Store(n.raft)
		if n.quorum != nil {
			r := n.raft
			n.quorum.bind(func() raft.Configuration { return r.GetConfiguration().Configuration() }, r.CurrentTerm)
		}
		n.timeouts = newTimeouts(n.raft, rc.LocalID, rc.LeaderLeaseTimeout)
		st.bind(n.raft, n.timeouts.slowDown)
	}
	if err != nil {
		n.closeStores()
		n.discardFresh()
		return nil, fmt.Errorf("consensus: start: %w", err)
	}
	if len(cfg.Peers) == 0 {
		n.electNow(rc.Logger)
		if err := n.waitLeader(ctx); err != nil {
			n.Close()
			n.discardFresh()
			return nil, err
		}
		return n, nil
	}
	if err := n.startForwarding(cfg); err != nil {
		n.discardFresh()
		return nil, err
	}
	n.metrics.startLooking(began)
	n.stopElections = n.watchElections()
	if n.raft.Leader() == "" {
		n.timeouts.lookAtStart()
	}
	return n, nil
}

// discardFresh removes, after a failed start, the stores that start created.
func (n *Node) discardFresh() {
	if n.stores.discard != nil {
		n.stores.discard()
	}
}

func raftConfig(cfg Config) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(strconv.FormatInt(cfg.ServerID, 10))
	rc.Logger = raftLogger(cfg.Logger)
	// In an ensemble CommitTimeout stays Raft's 50 ms: followers learn of
	// commits from the leader's commit notices at once (commitnotice.go),
	// so the empty AppendEntries it paces are only a fallback, and a
	// shorter one kept an idle ensemble busy sending them. A standalone
	// server has no followers and keeps the 1 ms it always had: with 50 ms
	// a durable standalone restart under the race detector (the torn-tail
	// tests of damage_test.go) missed its 10 s start deadline, for a
	// reason not yet understood.
	if len(cfg.Peers) == 0 {
		rc.CommitTimeout = time.Millisecond
	}
	// Proposals queue in a buffered channel and the leader takes them in
	// batches, instead of each Apply waiting for the leader loop to take
	// it. (It voids Apply's timeout, which is never used here.)
	rc.BatchApplyCh = true
	// A server a reconfig removes stays up, out of the ensemble, so that a
	// reconfig can add it back (Raft would shut a removed leader down for
	// good, leaving a server that answers nothing until restarted).
	rc.ShutdownOnRemove = false
	// Raft's metrics carry the peer as a label only (raft_replication_*
	// {peer_id=...}), not also in per-peer names.
	rc.NoLegacyTelemetry = true
	if cfg.SnapshotThreshold > 0 {
		rc.SnapshotThreshold = uint64(cfg.SnapshotThreshold)
	}
	if cfg.commitTimeout > 0 {
		rc.CommitTimeout = cfg.commitTimeout
	}
	if cfg.trailingLogs > 0 {
		rc.TrailingLogs = uint64(cfg.trailingLogs)
	}
	if len(cfg.Peers) == 0 && !cfg.Storage.Durable() {
		// In memory and alone, a snapshot would have no reader: nothing
		// survives a restart and there is no follower to send it to. Its
		// log forgets applied entries by itself (memLogStore), so Raft
		// need not snapshot to compact it, and snapCount does not apply.
		// Node.Snapshot still takes one on request.
		rc.SnapshotThreshold = math.MaxUint64
	}
	timeout := cfg.ElectionTimeout
	if len(cfg.Peers) == 0 {
		// A single voter elects itself as soon as its heartbeat timeout
		// fires; electNow makes that happen at once.
		timeout = standaloneTimeout + time.Millisecond
	} else if timeout <= 0 {
		timeout = time.Second
	}
	rc.HeartbeatTimeout, rc.ElectionTimeout = timeout, timeout
	rc.LeaderLeaseTimeout = leaseTimeout(timeout)
	if cfg.leaseTimeout > 0 {
		rc.LeaderLeaseTimeout = cfg.leaseTimeout
	}
	if len(cfg.Peers) == 0 {
		rc.LeaderLeaseTimeout = standaloneTimeout
	}
	return rc
}

// standaloneTimeout is the smallest heartbeat timeout Raft accepts.
const standaloneTimeout = 5 * time.Millisecond

// electNow makes a single voter start its election now rather than after a
// randomized heartbeat timeout (5-10 ms, the bulk of a standalone start).
// Raft restarts a follower's heartbeat timer at once when the configured
// timeout shrinks, and a node that has never heard from a leader then
// stands for election; raftConfig starts it one millisecond above the
// minimum so that this reload shrinks it.
func (n *Node) electNow(log hclog.Logger) {
	rc := n.raft.ReloadableConfig()
	rc.HeartbeatTimeout, rc.ElectionTimeout = standaloneTimeout, standaloneTimeout
	if err := n.raft.ReloadConfig(rc); err != nil {
		// Not fatal: the election still happens when the timer fires.
		log.Warn("immediate election unavailable", "error", err)
	}
}

// setupTransport creates the Raft transport and returns the configuration
// to bootstrap with: the in-memory transport for a standalone node, TCP on
// the peer port for an ensemble member.
func (n *Node) setupTransport(cfg Config, rc *raft.Config) (raft.Configuration, error) {
	conf := bootConfiguration(cfg.ServerID, cfg.Peers)
	if len(cfg.Peers) == 0 {
		_, trans := raft.NewInmemTransport(conf.Servers[0].Address)
		n.transport = trans
		return conf, nil
	}
	var self *Peer
	for i, p := range cfg.Peers {
		id := raft.ServerID(strconv.FormatInt(p.ID, 10))
		n.peers[id] = p
		if id == rc.LocalID {
			self = &cfg.Peers[i]
		}
	}
	if self == nil {
		return conf, fmt.Errorf("server %s is not among the ensemble's servers", rc.LocalID)
	}
	trans, err := newRaftTransport(n.network, self.RaftAddr, rc, n.linkTime, n.log, cfg.legacyPeerProtocol)
	if err != nil {
		return conf, fmt.Errorf("listen on peer address %s: %w", self.RaftAddr, err)
	}
	n.trace = newTracer(cfg.ServerID, n.lastIndex, n.term)
	n.fsm.trace = n.trace
	tt := &traceTransport{Transport: trans, trace: n.trace}
	notices := newCommitNotices(tt, n.leading)
	n.fsm.onCommit = notices.committed
	nt := &noticeTransport{Transport: tt, notices: notices}
	if n.quorum != nil {
		nt.quorum = n.quorum
	}
	n.transport = nt
	return conf, nil
}

// bootConfiguration is the Raft configuration a new node starts with: the
// ensemble's peers (observers as non-voters), or the standalone server
// alone at an in-memory address that must not change between runs, since
// a restarted server keeps its configuration.
func bootConfiguration(serverID int64, peers []Peer) raft.Configuration {
	if len(peers) == 0 {
		id := strconv.FormatInt(serverID, 10)
		return raft.Configuration{Servers: []raft.Server{{ID: raft.ServerID(id), Address: raft.ServerAddress("standalone-" + id)}}}
	}
	var conf raft.Configuration
	for _, p := range peers {
		suffrage := raft.Voter
		if p.Observer {
			suffrage = raft.Nonvoter
		}
		conf.Servers = append(conf.Servers, raft.Server{ID: raft.ServerID(strconv.FormatInt(p.ID, 10)),
			Address: raft.ServerAddress(p.RaftAddr), Suffrage: suffrage})
	}
	return conf
}

// leading reports whether this node is Raft's leader; false before Start
// has created Raft.
func (n *Node) leading() bool {
	r := n.raftRef.Load()
	return r != nil && r.State() == raft.Leader
}

func (n *Node) startForwarding(cfg Config) error {
	n.health = watchPeerHealth(n.raft, n.notePeer)
	self, _ := n.peer(n.self)
	fs, err := startForwardServer(n, self.ForwardAddr)
	if err != nil {
		n.Close()
		return fmt.Errorf("consensus: listen on election address %s: %w", self.ForwardAddr, err)
	}
	n.fwdSrv, n.fwdCli = fs, newForwardClient(n)
	n.stopWatch = n.watchLeader()
	return nil
}

// bootstrapOnce writes the initial configuration unless the stores already
// hold Raft state from an earlier run. Every member of a new ensemble
// bootstraps with the same configuration, so three processes started from
// three zoo.cfg files form the ensemble with no other step.
func (n *Node) bootstrapOnce(rc *raft.Config, conf raft.Configuration) error {
	st := n.stores
	had, err := raft.HasExistingState(st.logs, st.stable, st.snaps)
	if err != nil || had {
		return err
	}
	return raft.BootstrapCluster(rc, st.logs, st.stable, st.snaps, n.transport, conf)
}

func (n *Node) closeStores() {
	if c, ok := n.transport.(io.Closer); ok {
		c.Close()
	}
	n.stores.close()
}

func (n *Node) waitLeader(ctx context.Context) error {
	for n.raft.State() != raft.Leader {
		select {
		case <-n.raft.LeaderCh():
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("consensus: waiting for leadership: %w", ctx.Err())
		}
	}
	// The first entry of a new term must be committed before reads are
	// current; Barrier waits for it.
	return n.raft.Barrier(0).Error()
}

// Future is a pending proposal.
type Future struct {
	raftFut raft.ApplyFuture // set when this node led and appended it itself
	ch      chan outcome
	err     error
	waiters *waitRegistry // with seq: forgotten when the proposal failed
	seq     uint64
	// proposed is when a leader appended it (unix ns), for
	// waiters.proposalLatency.
	proposed int64
}

// Wait blocks until this node has applied the proposal and returns the
// local result: a follower's client sees its write only once its own
// server has applied it.
func (p *Future) Wait() (*Applied, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.raftFut != nil {
		if err := p.raftFut.Error(); err != nil {
			p.waiters.cancel(p.seq)
			return nil, mapRaftError(err)
		}
		now := time.Now()
		p.waiters.proposalLatency.ObserveAt(now.Sub(time.Unix(0, p.proposed)).Milliseconds(), now)
		switch r := p.raftFut.Response().(type) {
		case *Applied:
			return r, nil
		case error:
			return nil, r // committed but not applied (ErrTermExhausted)
		}
		return nil, ErrShutdown // not applied: the node closed first
	}
	o := <-p.ch
	return o.applied, o.err
}

// ProposeAsync appends cmd to the log, through the leader when this node
// follows, without waiting. Proposals made one after another from one
// goroutine are applied in that order.
func (n *Node) ProposeAsync(cmd *Command) *Future {
	if err := n.stores.diskErr(); err != nil {
		return &Future{err: err}
	}
	lead := n.fwdCli == nil || n.raft.State() == raft.Leader
	if lead && n.admit() != nil {
		// Starting a new term (rollover.go): in an ensemble the proposal
		// is forwarded like a follower's, held until the next leader
		// takes it; a standalone node waits for its own new term.
		if n.fwdCli == nil {
			if err := n.awaitNewTerm(); err != nil {
				return &Future{err: err}
			}
		} else {
			lead = false
		}
	}
	if lead {
		return n.applyHere(cmd)
	}
	seq, ch, ok := n.fsm.waiters.register(cmd, true)
	if !ok {
		return &Future{err: ErrShutdown} // halted: see Halt
	}
	cmd.Origin, cmd.Seq = n.fsm.self, seq
	data := encodeCommand(cmd)
	if err := n.fwdCli.propose(seq, data); err != nil {
		n.fsm.waiters.deliver(seq, outcome{err: err})
	}
	return &Future{ch: ch}
}

func mapRaftError(err error) error {
	switch {
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipLost):
		return ErrNotLeader
	case errors.Is(err, raft.ErrRaftShutdown):
		return ErrShutdown
	}
	return err
}

// Sync returns once this node has applied every entry the leader had
// appended when the sync reached it, so reads after it are up to date.
func (n *Node) Sync(ctx context.Context) error {
	var index uint64
	if n.fwdCli == nil || n.raft.State() == raft.Leader {
		index = n.raft.LastIndex()
	} else {
		ch, err := n.fwdCli.leaderIndex()
		if err != nil {
			return err
		}
		select {
		case r := <-ch:
			if r.err != nil {
				return r.err
			}
			index = r.index
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return n.waitApplied(ctx, index)
}

// waitApplied returns once this node's state includes every entry up to
// index. Raft's AppliedIndex reaching index only means the entries were
// handed to the FSM goroutine; the FSM itself must then have applied the
// last command at or below index. (Raft's no-op and barrier entries never
// reach the FSM, hence the look back to a command.)
func (n *Node) waitApplied(ctx context.Context, index uint64) error {
	if err := waitApplied(ctx, n.fsm.applied, n.raft.AppliedIndex, index, n.running); err != nil {
		return err
	}
	target := n.lastCommandAtOrBelow(index)
	applied := func() uint64 {
		if a := n.fsm.appliedIndex.Load(); a >= target {
			return a
		}
		// Entries up to a snapshot (taken here or installed from the
		// leader) are in the state without passing through ApplyBatch.
		if s, err := strconv.ParseUint(n.raft.Stats()["last_snapshot_index"], 10, 64); err == nil && s >= target {
			return s
		}
		return n.fsm.appliedIndex.Load()
	}
	return waitApplied(ctx, n.fsm.applied, applied, target, n.running)
}

// running returns ErrShutdown once Raft has shut down: a waiter for
// applies would otherwise wait for its context.
func (n *Node) running() error {
	if n.raft.State() == raft.Shutdown {
		return ErrShutdown
	}
	return nil
}

// maxLookBack bounds the search for a command entry below a sync index.
const maxLookBack = 64

// lastCommandAtOrBelow returns the index of the last command entry at or
// below index, or 0 when there is none in the log (compacted entries are
// in a snapshot, hence applied).
func (n *Node) lastCommandAtOrBelow(index uint64) uint64 {
	var l raft.Log
	for i := index; i > 0 && index-i < maxLookBack; i-- {
		if err := n.stores.logs.GetLog(i, &l); err != nil {
			return 0
		}
		if l.Type == raft.LogCommand {
			return i
		}
	}
	return 0
}

// Touch tells the leader which sessions this follower saw alive; on the
// leader it goes straight to the touch handler.
func (n *Node) Touch(ids []int64) {
	if len(ids) == 0 {
		return
	}
	if n.fwdCli == nil || n.raft.State() == raft.Leader {
		n.handleTouch(ids)
		return
	}
	n.fwdCli.touch(ids)
}

// OnTouch sets the function that receives the session ids followers saw
// alive (the leader's expiry tracker). Set it before the node serves.
func (n *Node) OnTouch(fn func(ids []int64)) { n.onTouch = fn }

func (n *Node) handleTouch(ids []int64) {
	if n.onTouch != nil {
		n.onTouch(ids)
	}
}

// Read runs fn with the replicated state under the read lock. fn must not
// keep references to the state after it returns.
func (n *Node) Read(fn func(st *State)) {
	n.fsm.mu.RLock()
	defer n.fsm.mu.RUnlock()
	fn(&n.fsm.st)
}

// LastZxid returns the zxid of the last applied entry.
func (n *Node) LastZxid() int64 {
	n.fsm.mu.RLock()
	defer n.fsm.mu.RUnlock()
	return n.fsm.st.LastZxid
}

// IsLeader reports whether this node leads.
func (n *Node) IsLeader() bool { return n.raft.State() == raft.Leader }

// HasLeader reports whether this node knows a leader (it is part of a
// working quorum). A removed node has none: it applies nothing more.
func (n *Node) HasLeader() bool {
	_, id := n.raft.LeaderWithID()
	return id != "" && !n.Removed()
}

// LeaderContact is when this node last heard from a leader (zero if
// never; Raft's LastContact).
func (n *Node) LeaderContact() time.Time { return n.raft.LastContact() }

// LeaderCh delivers true when this node becomes leader and false when it
// stops; only the latest value matters (Raft's LeaderCh).
func (n *Node) LeaderCh() <-chan bool { return n.raft.LeaderCh() }

// Role names this node's ZAB role: standalone, leader, follower, observer,
// looking while there is no leader, or removed once a reconfig took it out
// of the ensemble.
func (n *Node) Role() string {
	switch {
	case n.fwdCli == nil:
		return "standalone"
	case n.raft.State() == raft.Leader:
		return "leader"
	case n.Removed():
		return "removed"
	case !n.HasLeader():
		return "looking"
	}
	if !n.voting() {
		return "observer"
	}
	return "follower"
}

// Epoch returns the current Raft term, the ZAB epoch of the zxids it assigns.
func (n *Node) Epoch() uint64 {
	t, _ := strconv.ParseUint(n.raft.Stats()["term"], 10, 64)
	return t
}

// Stats returns Raft's own statistics (term, indexes, state, peers).
func (n *Node) Stats() map[string]string { return n.raft.Stats() }

// Close shuts Raft down, waits for it and closes the stores. Calls after
// the first return its result.
func (n *Node) Close() error {
	n.closeOnce.Do(func() { n.closeErr = n.close() })
	return n.closeErr
}

func (n *Node) close() error {
	if n.stopWatch != nil {
		n.stopWatch()
	}
	if n.stopElections != nil {
		n.stopElections()
	}
	if n.fwdSrv != nil {
		n.fwdSrv.close()
	}
	if n.fwdCli != nil {
		n.fwdCli.close()
	}
	if n.health != nil {
		n.health.stop(n.raft)
	}
	n.stores.abortWaits() // appends and applies waiting for the disk
	err := n.raft.Shutdown().Error()
	if n.timeouts != nil {
		n.timeouts.stop()
	}
	n.background.Wait()
	if n.fsm.snaps != nil {
		n.fsm.snaps.wait()
	}
	n.fsm.waiters.failAll(ErrShutdown)
	n.closeStores()
	return err
}

// Sessions lists the replicated sessions (id and negotiated timeout), for
// a server that must start tracking them after a restart or election.
func (n *Node) Sessions() []session.Info {
	n.fsm.mu.RLock()
	defer n.fsm.mu.RUnlock()
	return n.fsm.st.Sessions.List()
}

// Snapshot takes a snapshot now and compacts the log behind it (one is
// also taken every SnapshotThreshold applied entries: see snapCounter).
func (n *Node) Snapshot() error { return n.raft.Snapshot().Error() }
