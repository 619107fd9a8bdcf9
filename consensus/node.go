package consensus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// ErrNotLeader is returned when a proposal reaches a server that is not the leader.
var ErrNotLeader = errors.New("consensus: not the leader")

// ErrShutdown is returned for proposals after Close.
var ErrShutdown = errors.New("consensus: node is shut down")

// Config configures a Node.
type Config struct {
	// ServerID names this server in the Raft configuration.
	ServerID int64
	// Tree configures the replicated data tree.
	Tree datatree.Config
	// Hook sees every applied entry under the state lock (see ApplyHook).
	Hook ApplyHook
	// Logger receives Raft's errors; nil discards them.
	Logger *slog.Logger
	// Storage is where the log and snapshots live; the zero value is memory.
	Storage Storage
	// SnapshotThreshold is the number of log entries between snapshots
	// (ZooKeeper's snapCount); 0 keeps Raft's default.
	SnapshotThreshold int
}

// Node is one replica: a Raft instance and the FSM it drives.
type Node struct {
	raft      *raft.Raft
	fsm       *fsm
	transport raft.Transport
	stores    *stores
}

// StartStandalone starts a single-voter Raft and waits until it leads,
// which takes one short election timeout. With durable Storage it first
// recovers the last snapshot and the log after it, so every acknowledged
// write survives a restart.
func StartStandalone(ctx context.Context, cfg Config) (*Node, error) {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(strconv.FormatInt(cfg.ServerID, 10))
	// A single voter elects itself as soon as its heartbeat timeout fires;
	// the minimum Raft accepts keeps start-up in milliseconds.
	rc.HeartbeatTimeout = 10 * time.Millisecond
	rc.ElectionTimeout = 10 * time.Millisecond
	rc.LeaderLeaseTimeout = 10 * time.Millisecond
	rc.CommitTimeout = time.Millisecond
	rc.Logger = raftLogger(cfg.Logger)
	if cfg.SnapshotThreshold > 0 {
		rc.SnapshotThreshold = uint64(cfg.SnapshotThreshold)
	}

	st, err := openStores(cfg.Storage, rc.Logger)
	if err != nil {
		return nil, err
	}
	f := newFSM(cfg.Tree, cfg.Hook)
	// The in-memory transport's address is random per start; a restarted
	// standalone server keeps its configuration, so give it a fixed one.
	addr, trans := raft.NewInmemTransport(raft.ServerAddress("standalone-" + string(rc.LocalID)))
	n := &Node{fsm: f, transport: trans, stores: st}
	if err := n.bootstrapOnce(rc, addr); err != nil {
		n.closeStores()
		return nil, err
	}
	r, err := raft.NewRaft(rc, f, st.logs, st.stable, st.snaps, trans)
	if err != nil {
		n.closeStores()
		return nil, fmt.Errorf("consensus: start raft: %w", err)
	}
	n.raft = r
	if err := n.waitLeader(ctx); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// bootstrapOnce writes the single-voter configuration unless the stores
// already hold Raft state from an earlier run.
func (n *Node) bootstrapOnce(rc *raft.Config, addr raft.ServerAddress) error {
	st := n.stores
	had, err := raft.HasExistingState(st.logs, st.stable, st.snaps)
	if err != nil {
		return fmt.Errorf("consensus: read existing state: %w", err)
	}
	if had {
		return nil
	}
	conf := raft.Configuration{Servers: []raft.Server{{ID: rc.LocalID, Address: addr}}}
	if err := raft.BootstrapCluster(rc, st.logs, st.stable, st.snaps, n.transport, conf); err != nil {
		return fmt.Errorf("consensus: bootstrap: %w", err)
	}
	return nil
}

func (n *Node) closeStores() {
	if c, ok := n.transport.(io.Closer); ok {
		c.Close()
	}
	n.stores.close()
}

func (n *Node) waitLeader(ctx context.Context) error {
	obs := make(chan raft.Observation, 4)
	o := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	n.raft.RegisterObserver(o)
	defer n.raft.DeregisterObserver(o)
	for n.raft.State() != raft.Leader {
		select {
		case <-obs:
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("consensus: waiting for leadership: %w", ctx.Err())
		}
	}
	// The first entry of a new term must be committed before reads are
	// current; Barrier waits for it.
	return n.raft.Barrier(0).Error()
}

func raftLogger(l *slog.Logger) hclog.Logger {
	if l == nil {
		return hclog.New(&hclog.LoggerOptions{Name: "raft", Output: io.Discard, Level: hclog.Off})
	}
	// Raft's warnings are routine here (every start "times out" into its
	// election); only its errors reach the server's log.
	return hclog.New(&hclog.LoggerOptions{Name: "raft", Output: slogWriter{l}, Level: hclog.Error})
}

// slogWriter forwards hclog lines to slog at error level.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Error(string(trimNewline(p)), "component", "raft")
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

// Future is a pending proposal.
type Future struct {
	f   raft.ApplyFuture
	err error
}

// Wait blocks until the proposal is applied and returns its result.
func (p *Future) Wait() (*Applied, error) {
	if p.err != nil {
		return nil, p.err
	}
	if err := p.f.Error(); err != nil {
		return nil, mapRaftError(err)
	}
	return p.f.Response().(*Applied), nil
}

// ProposeAsync appends cmd to the log without waiting. Proposals made one
// after another from one goroutine are applied in that order.
func (n *Node) ProposeAsync(cmd *Command) *Future {
	var e wire.Encoder
	cmd.Encode(&e)
	return &Future{f: n.raft.Apply(e.Bytes(), 0)}
}

// Propose appends cmd to the log and waits until it is applied.
func (n *Node) Propose(ctx context.Context, cmd *Command) (*Applied, error) {
	fut := n.ProposeAsync(cmd)
	done := make(chan struct{})
	var a *Applied
	var err error
	go func() { a, err = fut.Wait(); close(done) }()
	select {
	case <-done:
		return a, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
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

// Epoch returns the current Raft term, the ZAB epoch of the zxids it assigns.
func (n *Node) Epoch() uint64 {
	t, _ := strconv.ParseUint(n.raft.Stats()["term"], 10, 64)
	return t
}

// Close shuts Raft down, waits for it and closes the stores.
func (n *Node) Close() error {
	err := n.raft.Shutdown().Error()
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

// Snapshot takes a snapshot now and compacts the log behind it (Raft also
// takes them on its own every SnapshotThreshold entries).
func (n *Node) Snapshot() error { return n.raft.Snapshot().Error() }
