package consensus

import (
	"io"
	"time"

	"github.com/hashicorp/raft"
)

// The two places the trace's messages come from: traceTransport, under
// every Raft RPC this server sends (the commit notices included), and the
// forwarding client's hooks for client writes sent to the leader.

// traceTransport is Raft's network transport, wrapped so that the trace
// sees every RPC this server sends and its answer. It sits under the
// noticeTransport, so that it sees the commit notices too and the commit
// index as actually sent. Off, each RPC costs one atomic load more.
type traceTransport struct {
	raft.Transport
	trace *tracer
}

var (
	_ raft.WithPreVote = (*traceTransport)(nil)
	_ raft.WithClose   = (*traceTransport)(nil)
)

func (t *traceTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	if !t.trace.active() {
		return t.Transport.AppendEntries(id, target, args, resp)
	}
	start := time.Now()
	err := t.Transport.AppendEntries(id, target, args, resp)
	t.recordAppend(id, start, args, resp, err)
	return err
}

// recordAppend records an AppendEntries sent at start and its outcome.
func (t *traceTransport) recordAppend(id raft.ServerID, start time.Time, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse, err error) {
	m := TraceMessage{Time: start, To: int64ID(id), Kind: TraceAppend, Term: args.Term,
		PrevIndex: args.PrevLogEntry, PrevTerm: args.PrevLogTerm, Commit: args.LeaderCommitIndex,
		Entries: len(args.Entries), OK: resp.Success, RespTerm: resp.Term}
	if args.PrevLogEntry == 0 && len(args.Entries) == 0 {
		m.Kind = TraceHeartbeat
	}
	if k := len(args.Entries); k > 0 {
		m.FirstIndex, m.LastIndex, m.EntryTerm = args.Entries[0].Index, args.Entries[k-1].Index, args.Entries[k-1].Term
		m.firstCmd, m.lastCmd, m.Commands = commandRange(args.Entries)
		if m.Commands > 0 {
			m.Op = entriesOp(firstCommand(args.Entries), m.Commands)
		}
	}
	t.done(&m, start, err)
}

func (t *traceTransport) RequestVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	if !t.trace.active() {
		return t.Transport.RequestVote(id, target, args, resp)
	}
	start := time.Now()
	err := t.Transport.RequestVote(id, target, args, resp)
	m := TraceMessage{Time: start, To: int64ID(id), Kind: TraceVote, Term: args.Term,
		PrevIndex: args.LastLogIndex, PrevTerm: args.LastLogTerm, OK: resp.Granted, RespTerm: resp.Term}
	t.done(&m, start, err)
	return err
}

// RequestPreVote sends a pre-vote (Raft uses them only when the
// transport offers them, as the network transport does).
func (t *traceTransport) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	inner := t.Transport.(raft.WithPreVote)
	if !t.trace.active() {
		return inner.RequestPreVote(id, target, args, resp)
	}
	start := time.Now()
	err := inner.RequestPreVote(id, target, args, resp)
	m := TraceMessage{Time: start, To: int64ID(id), Kind: TracePreVote, Term: args.Term,
		PrevIndex: args.LastLogIndex, PrevTerm: args.LastLogTerm, OK: resp.Granted, RespTerm: resp.Term}
	t.done(&m, start, err)
	return err
}

func (t *traceTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	if !t.trace.active() {
		return t.Transport.InstallSnapshot(id, target, args, resp, data)
	}
	start := time.Now()
	err := t.Transport.InstallSnapshot(id, target, args, resp, data)
	m := TraceMessage{Time: start, To: int64ID(id), Kind: TraceSnapshot, Term: args.Term,
		LastIndex: args.LastLogIndex, EntryTerm: args.LastLogTerm, OK: resp.Success, RespTerm: resp.Term}
	// The snapshot's last transaction, if it was applied while recording.
	m.lastCmd = position{args.LastLogIndex, args.LastLogTerm}
	if c := t.trace.zxidCache(); c != nil {
		c.mu.Lock()
		m.LastZxid = c.zxid(m.lastCmd)
		c.mu.Unlock()
	}
	t.done(&m, start, err)
	return err
}

func (t *traceTransport) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	if !t.trace.active() {
		return t.Transport.TimeoutNow(id, target, args, resp)
	}
	start := time.Now()
	err := t.Transport.TimeoutNow(id, target, args, resp)
	m := TraceMessage{Time: start, To: int64ID(id), Kind: TraceTimeoutNow, Term: t.trace.term(), OK: err == nil}
	t.done(&m, start, err)
	return err
}

// done completes m with its latency and outcome and records it.
func (t *traceTransport) done(m *TraceMessage, start time.Time, err error) {
	m.LatencyUs = time.Since(start).Microseconds()
	if err != nil {
		m.OK, m.RespTerm, m.Error = false, 0, err.Error()
	}
	t.trace.record(*m)
}

// Close closes the wrapped transport.
func (t *traceTransport) Close() error {
	if c, ok := t.Transport.(raft.WithClose); ok {
		return c.Close()
	}
	return nil
}

// maxPending bounds the forwards waiting for their reply while
// recording; past it, the oldest are forgotten (not recorded).
const maxPending = 4096

// pendingForward is a forward sent and not yet answered.
type pendingForward struct {
	sent time.Time
	op   string
}

// forwardSent notes that proposal seq left for the leader, with the op
// it carries (still among the waiters: msgop.go).
func (t *tracer) forwardSent(seq uint64) {
	if !t.active() {
		return
	}
	p := pendingForward{sent: time.Now(), op: t.opOf(seq)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == nil || len(t.pending) >= maxPending {
		t.pending = make(map[uint64]pendingForward)
	}
	t.pending[seq] = p
}

// forwardAnswered records proposal seq's round trip to leader, answered
// with code (fwdResult), or failed with err when the link was lost.
func (t *tracer) forwardAnswered(seq uint64, leader raft.ServerID, code int32) {
	if !t.active() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pending[seq]
	if !ok || t.ring == nil {
		return
	}
	delete(t.pending, seq)
	m := TraceMessage{Time: p.sent, LatencyUs: time.Since(p.sent).Microseconds(), To: int64ID(leader),
		Kind: TraceForward, Term: t.term(), OK: code == fwdOK, Op: p.op, proposal: seq}
	if code != fwdOK {
		m.Error = forwardCodeText(code)
	}
	m.Phase, m.Zab, _ = classify(peerPhase{}, &m, false, t.lastIndex)
	t.keepLocked(m)
}

// forwardCodeText says why the leader did not commit a forwarded write.
func forwardCodeText(code int32) string {
	switch code {
	case fwdNotLeader:
		return "not the leader (lost its leadership)"
	case fwdRefused:
		return "refused: not the leader"
	}
	return "failed"
}
