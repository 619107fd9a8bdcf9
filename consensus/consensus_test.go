package consensus

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testSession int64 = 0x0100000000000001

func startNode(t *testing.T, hook ApplyHook) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{ExtendedTypesEnabled: true}, Hook: hook})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	return n
}

func propose(t *testing.T, n *Node, cmd *Command) *Applied {
	t.Helper()
	a, err := n.Propose(context.Background(), cmd)
	require.NoError(t, err)
	return a
}

func txnCmd(op wire.Op, body wire.Record) *Command {
	return &Command{Kind: KindTxn, Txn: &datatree.Txn{Time: 1_700_000_000_000, Session: testSession, Op: op, Body: body}}
}

// workload is a mix of successful and failing writes, ephemerals and a
// testSession close, used to compare replicas.
func workload() []*Command {
	acl := wire.OpenACLUnsafe
	cmds := []*Command{{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1}}
	for i := 0; i < 5; i++ {
		cmds = append(cmds,
			txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/n%d", i), Data: []byte("d"), ACL: acl}),
			txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/n%d/s-", i), ACL: acl, Flags: wire.FlagEphemeralSequential}),
			txnCmd(wire.OpSetData, &wire.SetDataRequest{Path: fmt.Sprintf("/n%d", i), Data: []byte("v2"), Version: 0}),
			txnCmd(wire.OpSetData, &wire.SetDataRequest{Path: fmt.Sprintf("/n%d", i), Version: 7}), // BADVERSION
		)
	}
	return append(cmds,
		&Command{Kind: KindError, Code: wire.CodeReconfigDisabled},
		&Command{Kind: KindCloseSession, Session: testSession, Time: 2})
}

func TestZxidCarriesEpochAndCountsEveryCommand(t *testing.T) {
	n := startNode(t, nil)
	epoch := n.Epoch()
	require.NotZero(t, epoch)
	var last int64
	for i, cmd := range workload() {
		a := propose(t, n, cmd)
		require.Equal(t, int64(epoch), a.Zxid>>32, "#%d: epoch in the high 32 bits", i)
		require.Equal(t, int64(i+1), a.Zxid&0xffffffff, "#%d: counter in the low 32 bits, failed writes included", i)
		require.Greater(t, a.Zxid, last)
		last = a.Zxid
	}
	require.Equal(t, last, n.LastZxid())
}

func TestResultsAndErrors(t *testing.T) {
	n := startNode(t, nil)
	a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/x", ACL: wire.OpenACLUnsafe}))
	require.Equal(t, wire.CodeSessionExpired, a.Result.Err, "writes need a live testSession")
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 4000})
	a = propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/x", ACL: wire.OpenACLUnsafe}))
	require.NoError(t, a.Result.Err)
	require.Equal(t, "/x", a.Result.Path)
	a = propose(t, n, &Command{Kind: KindError, Code: wire.CodeMarshallingError})
	require.Equal(t, wire.CodeMarshallingError, a.Result.Err)
	a = propose(t, n, &Command{Kind: KindCloseSession, Session: testSession})
	require.NoError(t, a.Result.Err)
	a = propose(t, n, &Command{Kind: KindCloseSession, Session: testSession})
	require.Equal(t, wire.CodeSessionExpired, a.Result.Err, "a testSession closes once")
}

// TestRaftAndDirectApplyAgree runs the same transactions through one-node
// Raft and directly on a tree with the zxids Raft assigned: the trees must
// be identical, Stat for Stat.
func TestRaftAndDirectApplyAgree(t *testing.T) {
	n := startNode(t, nil)
	direct := datatree.New(datatree.Config{ExtendedTypesEnabled: true})
	for _, cmd := range workload() {
		a := propose(t, n, cmd)
		switch cmd.Kind {
		case KindTxn:
			txn := *cmd.Txn
			txn.Zxid = a.Zxid
			require.Equal(t, a.Result.Err, direct.Apply(&txn).Err)
		case KindCloseSession:
			direct.KillSession(cmd.Session, a.Zxid)
		}
	}
	var viaRaft []string
	n.Read(func(st *State) { viaRaft = walk(st.Tree) })
	require.Equal(t, walk(direct), viaRaft)
}

func walk(tr *datatree.Tree) []string {
	var out []string
	tr.Walk(func(p string, st wire.Stat) { out = append(out, fmt.Sprintf("%s %+v", p, st)) })
	return out
}

func TestSnapshotRestoreContinuesZxids(t *testing.T) {
	f := newFSM(datatree.Config{}, nil, 1)
	for i, cmd := range workload()[:9] {
		var e wire.Encoder
		cmd.Encode(&e)
		f.Apply(&raft.Log{Index: uint64(i + 1), Term: 3, Data: e.Bytes()})
	}
	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink := &memSink{}
	require.NoError(t, snap.Persist(sink))

	g := newFSM(datatree.Config{}, nil, 1)
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(sink.plain()))))
	require.Equal(t, walk(f.st.Tree), walk(g.st.Tree))
	require.Equal(t, f.st.Sessions.List(), g.st.Sessions.List())
	require.Equal(t, f.st.LastZxid, g.st.LastZxid)
	zxid, _ := g.nextZxid(3)
	require.Equal(t, int64(3)<<32|10, zxid, "counter continues within the term")
	zxid, _ = g.nextZxid(4)
	require.Equal(t, int64(4)<<32|1, zxid, "a new term restarts the counter")
}

type memSink struct{ buf bytesBuffer }

type bytesBuffer struct{ b []byte }

func (b *bytesBuffer) Write(p []byte) (int, error) { b.b = append(b.b, p...); return len(p), nil }
func (b *bytesBuffer) Read(p []byte) (int, error) {
	if len(b.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.b)
	b.b = b.b[n:]
	return n, nil
}

func (s *memSink) Write(p []byte) (int, error) { return s.buf.Write(p) }
func (s *memSink) Close() error                { return nil }
func (s *memSink) ID() string                  { return "mem" }
func (s *memSink) Cancel() error               { return nil }

// plain returns the persisted snapshot as its store opens it: format 2,
// with the length in the header (snapstream.go).
func (s *memSink) plain() []byte {
	r, err := asPlain(bytes.NewReader(s.buf.b), int64(len(s.buf.b)))
	if err != nil {
		panic(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		panic(err)
	}
	return b
}

func TestCommandRoundTrip(t *testing.T) {
	for i, cmd := range workload() {
		var e wire.Encoder
		cmd.Encode(&e)
		got, err := DecodeCommand(e.Bytes())
		require.NoError(t, err, "#%d", i)
		require.Equal(t, cmd, got, "#%d", i)
	}
	_, err := DecodeCommand([]byte{0, 0, 0, 9})
	require.Error(t, err, "unknown kind")
	_, err = DecodeCommand(nil)
	require.Error(t, err, "empty entry")
}

func TestHookSeesEveryEntryInOrder(t *testing.T) {
	var zxids []int64
	n := startNode(t, func(a *Applied) { zxids = append(zxids, a.Zxid) })
	for _, cmd := range workload()[:4] {
		propose(t, n, cmd)
	}
	n.Read(func(*State) {}) // the hook runs under the write lock; reading after is ordered
	require.Len(t, zxids, 4)
	for i := 1; i < len(zxids); i++ {
		require.Equal(t, zxids[i-1]+1, zxids[i])
	}
}
