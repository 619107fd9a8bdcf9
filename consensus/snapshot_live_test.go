package consensus

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// liveSession owns the ephemerals of liveLog; it is closed after the
// snapshot, deleting them.
const liveSession int64 = 0x0100000000000077

// liveLog returns the entries of a log: before is applied before the
// snapshot (a session, /m with 3,000 children, so wider than one walk step,
// some of them ephemeral), after during it (creates and deletes under /m,
// setData, setACL, the session's close, a new session).
func liveLog() (before, after []*raft.Log) {
	var cmds []*Command
	tx := func(op wire.Op, body wire.Record) {
		cmds = append(cmds, &Command{Kind: KindTxn, Txn: &datatree.Txn{
			Time: int64(len(cmds)), Session: liveSession, Op: op, Body: body}})
	}
	cmds = append(cmds, &Command{Kind: KindCreateSession, Session: liveSession, Timeout: 30000, Time: 1})
	tx(wire.OpCreate, &wire.CreateRequest{Path: "/m", ACL: wire.OpenACLUnsafe})
	for i := 0; i < 3000; i++ {
		tx(wire.OpCreate, &wire.CreateRequest{Path: "/m/n" + strconv.Itoa(i), Data: []byte("v0"),
			ACL: wire.OpenACLUnsafe, Flags: int32(i % 7 / 6)}) // every 7th ephemeral
	}
	split := len(cmds)
	for i := 0; i < 1500; i++ {
		p := "/m/n" + strconv.Itoa(i*2)
		switch i % 5 {
		case 0:
			tx(wire.OpCreate, &wire.CreateRequest{Path: "/m/x" + strconv.Itoa(i), Data: []byte("x"), ACL: wire.OpenACLUnsafe})
		case 1:
			tx(wire.OpDelete, &wire.DeleteRequest{Path: p, Version: -1})
		case 2:
			tx(wire.OpSetData, &wire.SetDataRequest{Path: p, Data: []byte("v1"), Version: -1})
		case 3:
			tx(wire.OpSetACL, &wire.SetACLRequest{Path: p, ACL: wire.ReadACLUnsafe, Version: -1})
		case 4:
			tx(wire.OpCreate, &wire.CreateRequest{Path: p + "/k", ACL: wire.OpenACLUnsafe})
		}
		if i == 700 {
			cmds = append(cmds, &Command{Kind: KindCloseSession, Session: liveSession, Time: 2},
				&Command{Kind: KindCreateSession, Session: liveSession + 1, Timeout: 5000, Time: 3})
		}
	}
	logs := make([]*raft.Log, len(cmds))
	for i, cmd := range cmds {
		logs[i] = commandEntry(uint64(i+1), 2, cmd)
	}
	return logs[:split], logs[split:]
}

// commandEntry is the log entry at index of term that carries cmd.
func commandEntry(index, term uint64, cmd *Command) *raft.Log {
	var e wire.Encoder
	cmd.Encode(&e)
	return &raft.Log{Index: index, Term: term, Type: raft.LogCommand, Data: e.Bytes()}
}

// applyAll applies logs to a new FSM, one batch of up to 64 at a time.
func applyAll(f *fsm, logs []*raft.Log) {
	for len(logs) > 0 {
		k := min(64, len(logs))
		f.ApplyBatch(logs[:k])
		logs = logs[k:]
	}
}

// steppingLock wraps the FSM's read lock for a snapshot's walk: before
// each step takes the lock, it lets the applier apply one more entry (of
// the left it has) and waits, with a deadline, until it has. An apply that
// had to wait for the walk would miss the deadline.
type steppingLock struct {
	t     *testing.T
	inner sync.Locker
	next  chan struct{}
	done  chan struct{}
	left  int // entries the applier has not been given yet
	steps int
}

func (l *steppingLock) Lock() {
	if l.left > 0 {
		l.left--
		l.next <- struct{}{} // the applier takes each entry it is offered
		select {
		case <-l.done:
			l.steps++
		case <-time.After(30 * time.Second):
			l.t.Error("an entry could not be applied while the snapshot was being persisted")
		}
	}
	l.inner.Lock()
}

func (l *steppingLock) Unlock() { l.inner.Unlock() }

// restoreFrom restores a persisted snapshot into a new FSM.
func restoreFrom(t *testing.T, sink *memSink) *fsm {
	t.Helper()
	g := newFSM(datatree.Config{}, nil, 1)
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(sink.plain()))))
	return g
}

// TestSnapshotIsExactWhileEntriesApply: entries are applied between the
// steps of Persist's walk (each apply taking the FSM's write lock while
// Persist is under way), and the snapshot is still exactly the state at
// its index: restored, it equals an FSM that applied the log up to there.
func TestSnapshotIsExactWhileEntriesApply(t *testing.T) {
	before, after := liveLog()
	f := newFSM(datatree.Config{}, nil, 1)
	applyAll(f, before)
	want := newFSM(datatree.Config{}, nil, 1)
	applyAll(want, before)

	snap, err := f.Snapshot()
	require.NoError(t, err)
	lock := &steppingLock{t: t, inner: f.mu.RLocker(), next: make(chan struct{}), done: make(chan struct{}), left: len(after)}
	snap.(*snapshot).lock = lock
	applierDone := make(chan struct{})
	go func() {
		defer close(applierDone)
		for _, l := range after {
			<-lock.next
			f.ApplyBatch([]*raft.Log{l})
			lock.done <- struct{}{}
		}
	}()
	var sink memSink
	require.NoError(t, snap.Persist(&sink))
	snap.Release()
	require.Greater(t, lock.steps, 3, "entries were applied during the walk")
	// Whatever the walk did not need is applied now.
	for range after[lock.steps:] {
		lock.next <- struct{}{}
		<-lock.done
	}
	<-applierDone

	requireSameState(t, want, restoreFrom(t, &sink))
	all := newFSM(datatree.Config{}, nil, 1)
	applyAll(all, append(append([]*raft.Log(nil), before...), after...))
	requireSameState(t, all, f)
}

// TestSnapshotIsExactUnderConcurrentApplies: the same with the applier
// running freely on its own goroutine (for the race detector), and then
// with Persist blocked on a slow sink: every entry is applied while it
// waits.
func TestSnapshotIsExactUnderConcurrentApplies(t *testing.T) {
	before, after := liveLog()
	f := newFSM(datatree.Config{}, nil, 1)
	applyAll(f, before)
	want := newFSM(datatree.Config{}, nil, 1)
	applyAll(want, before)

	snap, err := f.Snapshot()
	require.NoError(t, err)
	applied := make(chan struct{})
	go func() {
		defer close(applied)
		applyAll(f, after)
	}()
	sink := &slowSink{release: make(chan struct{})}
	persisted := make(chan error, 1)
	go func() { persisted <- snap.Persist(sink) }()
	select {
	case <-applied:
	case <-time.After(60 * time.Second):
		t.Fatal("entries were not applied while Persist was blocked on its sink")
	}
	close(sink.release)
	require.NoError(t, <-persisted)
	snap.Release()
	requireSameState(t, want, restoreFrom(t, &sink.memSink))
}

// slowSink blocks its first write until release is closed.
type slowSink struct {
	memSink
	release chan struct{}
	once    sync.Once
}

func (s *slowSink) Write(p []byte) (int, error) {
	s.once.Do(func() { <-s.release })
	return s.memSink.Write(p)
}
