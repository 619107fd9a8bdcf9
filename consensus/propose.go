package consensus

import (
	"context"
	"time"

	"github.com/hashicorp/raft"
)

// applyHere appends cmd to this node's own Raft log, as its leader.
func (n *Node) applyHere(cmd *Command) *Future {
	seq, _, ok := n.fsm.waiters.register(cmd, false)
	if !ok {
		return &Future{err: ErrShutdown} // halted: see Halt
	}
	cmd.Origin, cmd.Seq = n.fsm.self, seq
	data := encodeCommand(cmd)
	n.metrics.proposed(len(data))
	f := n.raft.Apply(data, 0)
	return &Future{raftFut: f, waiters: n.fsm.waiters, seq: seq, proposed: time.Now().UnixNano()}
}

// ProposeAsLeader appends cmd only while this node leads in term, and
// waits until it is applied here; otherwise it fails with ErrNotLeader.
// It never forwards: a decision this node took as the leader of term (a
// session's expiry, from the deadlines it tracked then) must not be
// carried out by another leader, whose view of the sessions may differ.
// An old leader resumed after a pause still believes it leads and finds
// every session silent; forwarded, its expiries would close live sessions
// on the new leader. Appended in a term that has ended, the entry is never
// committed (Raft overwrites it).
func (n *Node) ProposeAsLeader(ctx context.Context, cmd *Command, term uint64) (*Applied, error) {
	if err := n.stores.diskErr(); err != nil {
		return nil, err
	}
	if n.raft.State() != raft.Leader || n.raft.CurrentTerm() != term || n.fwdCli != nil && n.admit() != nil {
		return nil, ErrNotLeader
	}
	return waitFuture(ctx, n.applyHere(cmd))
}

// Propose appends cmd to the log and waits until it is applied here.
func (n *Node) Propose(ctx context.Context, cmd *Command) (*Applied, error) {
	return waitFuture(ctx, n.ProposeAsync(cmd))
}

// waitFuture waits for fut's outcome or for ctx to end.
func waitFuture(ctx context.Context, fut *Future) (*Applied, error) {
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
