package consensus

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// State is the replicated state: the data tree, the session table and the
// last applied zxid. Read it only through Node.Read, which holds the lock.
type State struct {
	Tree     *datatree.Tree
	Sessions *session.Table
	LastZxid int64
}

// Applied describes one committed log entry after it was applied.
type Applied struct {
	Zxid    int64
	Command *Command
	Result  datatree.Result
}

// ApplyHook sees every applied entry, in log order, while the state's write
// lock is held, so that a reader holding the read lock never misses an event
// that concerns what it read. It must not block.
type ApplyHook func(a *Applied)

// fsm implements raft.FSM over State.
type fsm struct {
	mu      sync.RWMutex
	st      State
	treeCfg datatree.Config
	term    uint64 // term of the last applied command
	counter uint32 // commands applied in that term (see rollover.go)
	// used mirrors term<<32 | counter for readers without the lock (the
	// leader's rollover gate).
	used atomic.Uint64
	// firstCounter is the counter a term starts from: 0, except in tests
	// that start every term near the limit (Config.counterBase).
	firstCounter uint32
	// exhaustedTerm is the last term whose counter ran out here, so that
	// it is logged once; log receives that line (nil discards it).
	exhaustedTerm uint64
	log           *slog.Logger
	hook          ApplyHook
	// lastSnap is the last snapshot taken or loaded (lastsnap.go).
	lastSnap lastSnapshot
	// timeline records the ensemble's events (timeline.go).
	timeline timeline

	config        []byte // ensemble membership for /zookeeper/config; nil standalone
	configTime    int64  // when it was installed (ms)
	configVersion int64  // zxid of the last reconfig (0: the zoo.cfg's)
	members       []Peer // membership set by the last reconfig (nil: the zoo.cfg's)
	onMembers     func([]Peer)

	self    int64          // this server's id: commands it proposed carry it as Origin
	waiters *waitRegistry  // its proposals waiting for their local apply
	applied *appliedSignal // wakes sync waiters
	// appliedIndex is the Raft index of the last entry ApplyBatch applied.
	// Raft's own AppliedIndex moves when a batch is handed to the FSM
	// goroutine, before it is applied, so it cannot tell a sync that the
	// state is current.
	appliedIndex atomic.Uint64
	// onCommit, when set, hears of every batch applied: the index and
	// term of its last entry (commit notices: see commitnotice.go).
	onCommit func(index, term uint64)
	// snaps asks for a snapshot every snapCount entries; nil when
	// snapCount does not apply.
	snaps *snapCounter
	// durable, when set, waits until the local log holds an index on
	// disk and reports whether it does (see leaderappend.go).
	durable func(index uint64) bool
	// commits, when set, hears how many commands each batch applied
	// (commit_count); snapshotTime times Persist; restoreTook is the
	// duration of the last Restore (startup_snap_load_time).
	commits      func(n int)
	snapshotTime *metrics.Summary
	restoreTook  atomic.Int64
	// onRestore, when set, sees the state a snapshot installed, under the
	// lock (Config.OnRestore).
	onRestore func(st *State)
	// restoredZxid is the zxid of the last user restore installed here
	// (restore.go); 0 if none.
	restoredZxid atomic.Int64
	// trace, in an ensemble, hears the zxids applied while it records
	// (msgzxid.go).
	trace *tracer
	// walkers counts the snapshot and backup walks waiting for the read
	// lock (yieldingLocker).
	walkers atomic.Int32
}

// applyHold is how long an apply batch holds the lock, applying entry
// after entry, before it lets a waiting walk in. A batch can hold it for
// tens of milliseconds (64 multis of 100 creates in a bulk load), and a
// walk that waited for whole batches spent a third of a snapshot's time
// waiting, so that snapshots of a tree being filled trailed the fill by
// millions of znodes. The walk holds the lock about as long as it waited
// (datatree's View.WriteTo), so the lock alternates in turns of about
// applyHold while a walk runs. Readers that see the state between two
// entries of a batch see a state the log passed through: every entry is
// applied, and its watches triggered, under one hold.
var applyHold = 5 * time.Millisecond

func newFSM(cfg datatree.Config, hook ApplyHook, self int64) *fsm {
	return &fsm{
		st:      State{Tree: datatree.New(cfg), Sessions: session.NewTable()},
		treeCfg: cfg,
		hook:    hook,
		self:    self,
		waiters: newWaitRegistry(),
		applied: newAppliedSignal(),
	}
}

// nextZxid advances the zxid for a command committed in term. It reports
// false, and changes nothing, when term's counter is used up: the zxid
// would wrap (see rollover.go).
func (f *fsm) nextZxid(term uint64) (int64, bool) {
	if term != f.term {
		f.setCounter(term, f.firstCounter)
	}
	if f.counter >= maxCounter {
		return 0, false
	}
	f.setCounter(term, f.counter+1)
	return int64(term)<<32 | int64(f.counter), true
}

// setCounter sets the term and counter zxids continue from; the caller
// holds mu or owns the FSM.
func (f *fsm) setCounter(term uint64, counter uint32) {
	f.term, f.counter = term, counter
	f.used.Store(term<<32 | uint64(counter))
}

// Apply implements raft.FSM; Raft calls ApplyBatch instead, this is for
// completeness.
func (f *fsm) Apply(l *raft.Log) interface{} {
	return f.ApplyBatch([]*raft.Log{l})[0]
}

// ApplyBatch implements raft.BatchingFSM: the committed entries Raft hands
// over together are applied under one hold of the state lock, and sync
// waiters are woken once per batch. Entries this server proposed are
// applied from the proposal's own Command, not decoded again.
func (f *fsm) ApplyBatch(logs []*raft.Log) []interface{} {
	resp := make([]interface{}, len(logs))
	if len(logs) > 0 && f.durable != nil && !f.durable(logs[len(logs)-1].Index) {
		return resp // the node is closing: nothing it had not stored is applied
	}
	done := make([]delivery, 0, len(logs))
	var traced []appliedZxid // only while the trace records
	tracing := f.trace.active()
	f.mu.Lock()
	held := time.Now()
	for i, l := range logs {
		if f.walkers.Load() > 0 && time.Since(held) >= applyHold {
			f.mu.Unlock() // the walk's turn: see applyHold
			f.mu.Lock()
			held = time.Now()
		}
		if l.Type != raft.LogCommand {
			continue // configuration entries: Raft keeps them itself
		}
		cmd, wt, mine := f.command(l)
		a := f.apply(l.Term, cmd)
		if a == nil { // the term's zxids are used up: nothing applied
			f.noteExhausted(l)
			resp[i] = ErrTermExhausted
			if mine {
				done = append(done, delivery{wt, outcome{err: ErrTermExhausted}})
			}
			continue
		}
		resp[i] = a
		if mine {
			done = append(done, delivery{wt, outcome{applied: a}})
		}
		if tracing {
			traced = append(traced, appliedZxid{at: position{l.Index, l.Term}, zxid: a.Zxid, seq: f.ownSeq(cmd)})
		}
	}
	f.mu.Unlock()
	f.trace.noteApplied(traced)
	if f.commits != nil {
		f.commits(commands(logs))
	}
	if len(logs) > 0 {
		f.appliedIndex.Store(logs[len(logs)-1].Index)
		if f.snaps != nil {
			f.snaps.applied(logs[0].Index, logs[len(logs)-1].Index, logs[len(logs)-1].Term, logBytes(logs))
		}
		if f.onCommit != nil {
			last := logs[len(logs)-1]
			f.onCommit(last.Index, last.Term)
		}
	}
	for _, d := range done {
		d.wt.send(d.o)
	}
	f.applied.notify()
	return resp
}

// ownSeq is cmd's proposal number when this server proposed it, else 0.
func (f *fsm) ownSeq(cmd *Command) uint64 {
	if cmd.Origin == f.self && f.self != 0 {
		return cmd.Seq
	}
	return 0
}

// delivery is a proposal's outcome, told its waiter after the lock.
type delivery struct {
	wt waiter
	o  outcome
}

// command returns the entry's command: the proposal itself when this server
// made it and still waits for it, else decoded from the entry.
func (f *fsm) command(l *raft.Log) (*Command, waiter, bool) {
	if origin, seq, ok := commandOrigin(l.Data); ok && origin == f.self {
		if wt, ok := f.waiters.take(seq); ok {
			return wt.cmd, wt, true
		}
	}
	cmd, err := DecodeCommand(l.Data)
	if err != nil {
		panic(fmt.Sprintf("consensus: corrupt log entry %d: %v", l.Index, err))
	}
	if cmd.Txn != nil {
		cmd.Txn.Unanswered = true // no waiter here: nobody reads the per-op results
	}
	return cmd, waiter{}, false
}

// apply applies one command; the caller holds mu. It returns nil, having
// changed nothing, when term has no zxid left for it.
func (f *fsm) apply(term uint64, cmd *Command) *Applied {
	zxid, ok := f.nextZxid(term)
	if !ok {
		return nil
	}
	a := &Applied{Zxid: zxid, Command: cmd}
	f.st.LastZxid = a.Zxid
	a.Result = f.applyCommand(a.Zxid, cmd)
	if f.hook != nil {
		f.hook(a)
	}
	return a
}

func (f *fsm) applyCommand(zxid int64, cmd *Command) datatree.Result {
	switch cmd.Kind {
	case KindCreateSession:
		f.st.Sessions.Add(cmd.Session, cmd.Timeout)
		return datatree.Result{}
	case KindCloseSession:
		if !f.st.Sessions.Remove(cmd.Session) {
			return datatree.Result{Err: wire.CodeSessionExpired}
		}
		return datatree.Result{Events: f.st.Tree.KillSession(cmd.Session, zxid)}
	case KindError:
		return datatree.Result{Err: cmd.Code}
	case KindConfig:
		f.config, f.configTime, f.configVersion = FormatMembership(cmd.Members, zxid), cmd.Time, zxid
		f.members = cmd.Members
		f.installConfig()
		if f.onMembers != nil {
			f.onMembers(cmd.Members)
		}
		st, _ := f.st.Tree.Stat("/zookeeper/config")
		return datatree.Result{Stat: st}
	default:
		txn := cmd.Txn
		if txn.Session != 0 {
			if _, ok := f.st.Sessions.Get(txn.Session); !ok {
				return datatree.Result{Err: wire.CodeSessionExpired}
			}
		}
		txn.Zxid = zxid
		return f.st.Tree.Apply(txn)
	}
}

// installConfig puts this server's view of the membership in
// /zookeeper/config (ZooKeeper's initConfigInZKDatabase); callers hold mu
// or own the FSM exclusively.
func (f *fsm) installConfig() {
	if f.config != nil {
		f.st.Tree.SetConfig(f.config, f.configVersion, f.configTime)
	}
}

// ConfigVersion returns the version of the current membership: the zxid of
// the last reconfig, or 0 for the zoo.cfg's.
func (n *Node) ConfigVersion() int64 {
	n.fsm.mu.RLock()
	defer n.fsm.mu.RUnlock()
	return n.fsm.configVersion
}

// commands counts the command entries of a batch.
func commands(logs []*raft.Log) int {
	n := 0
	for _, l := range logs {
		if l.Type == raft.LogCommand {
			n++
		}
	}
	return n
}

// logBytes sums the data of a batch's entries (what a restart replays).
func logBytes(logs []*raft.Log) uint64 {
	var n uint64
	for _, l := range logs {
		n += uint64(len(l.Data))
	}
	return n
}
