package consensus

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// okTransport answers every AppendEntries with success and grants every
// vote.
type okTransport struct{ raft.Transport }

func (okTransport) AppendEntries(_ raft.ServerID, _ raft.ServerAddress, _ *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	resp.Success, resp.Term = true, 5
	return nil
}

func (okTransport) RequestVote(_ raft.ServerID, _ raft.ServerAddress, _ *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	resp.Granted, resp.Term = true, 5
	return nil
}

func testTracer() (*tracer, *traceTransport) {
	tr := newTracer(1, func() uint64 { return 10 }, func() uint64 { return 5 })
	return tr, &traceTransport{Transport: okTransport{}, trace: tr}
}

// appendTo sends server 2 an AppendEntries carrying commands at indexes
// first..last of term 5 (first 0: none).
func appendTo(tt *traceTransport, prev, first, last uint64) {
	req := &raft.AppendEntriesRequest{Term: 5, PrevLogEntry: prev, PrevLogTerm: 5, LeaderCommitIndex: prev}
	for i := first; i <= last && first > 0; i++ {
		req.Entries = append(req.Entries, &raft.Log{Index: i, Term: 5, Type: raft.LogCommand})
	}
	tt.AppendEntries("2", "addr2", req, &raft.AppendEntriesResponse{})
}

// Nothing is recorded, and no ring allocated, until a view asks; after
// it asks, every message sent and its answer are, with its zxids once
// the entries are applied here.
func TestTracerRecordsOnlyWhileWatched(t *testing.T) {
	tr, tt := testTracer()
	appendTo(tt, 10, 11, 11)
	tt.RequestVote("3", "addr3", &raft.RequestVoteRequest{Term: 6, LastLogIndex: 10, LastLogTerm: 5}, &raft.RequestVoteResponse{})
	msgs, _ := tr.read(0, 100)
	require.Empty(t, msgs)
	require.Nil(t, tr.ring, "no ring before anyone watched")
	require.False(t, tr.active())

	tr.want(time.Minute)
	appendTo(tt, 10, 11, 12)
	tt.RequestVote("3", "addr3", &raft.RequestVoteRequest{Term: 6, LastLogIndex: 12, LastLogTerm: 5}, &raft.RequestVoteResponse{})
	tt.AppendEntries("3", "addr3", &raft.AppendEntriesRequest{Term: 5}, &raft.AppendEntriesResponse{})
	tr.noteApplied([]appliedZxid{{at: position{11, 5}, zxid: 5<<32 | 3}, {at: position{12, 5}, zxid: 5<<32 | 4}})

	msgs, oldest := tr.read(0, 100)
	require.Equal(t, uint64(1), oldest)
	require.Len(t, msgs, 3)
	a, v, h := msgs[0], msgs[1], msgs[2]
	require.Equal(t, TraceAppend, a.Kind)
	require.Equal(t, []any{int64(1), int64(2), 2, 2, uint64(11), uint64(12), true}, []any{a.From, a.To, a.Entries, a.Commands, a.FirstIndex, a.LastIndex, a.OK})
	require.Equal(t, int64(5<<32|3), a.FirstZxid)
	require.Equal(t, int64(5<<32|4), a.LastZxid)
	require.Equal(t, TraceVote, v.Kind)
	require.Equal(t, []any{int64(3), uint64(6), uint64(12), true, PhaseDiscovery, "VOTE"}, []any{v.To, v.Term, v.PrevIndex, v.OK, v.Phase, v.Zab})
	require.Equal(t, TraceHeartbeat, h.Kind)
	require.Equal(t, []uint64{1, 2, 3}, []uint64{a.Seq, v.Seq, h.Seq})

	// Recording stops by itself once nobody asks.
	tr.until.Store(time.Now().Add(-time.Second).UnixNano())
	require.False(t, tr.active())
	appendTo(tt, 12, 13, 13)
	msgs, _ = tr.read(3, 100)
	require.Empty(t, msgs)
}

// The ring never grows: a view that reads too late sees how many records
// it missed.
func TestTracerRingIsBounded(t *testing.T) {
	tr, tt := testTracer()
	tr.want(time.Minute)
	for range TraceSize + 100 {
		tt.AppendEntries("2", "addr2", &raft.AppendEntriesRequest{Term: 5}, &raft.AppendEntriesResponse{})
	}
	require.Len(t, tr.ring, TraceSize)
	msgs, oldest := tr.read(0, 10)
	require.Equal(t, uint64(101), oldest)
	require.Equal(t, uint64(101), msgs[0].Seq)

	var got Trace
	got.add(1, TraceCursor{Run: tr.run, Seq: 50}, oldest, msgs, 0)
	require.Equal(t, uint64(50), got.Members[0].Missed, "records 51 to 100 were overwritten")
	require.Equal(t, uint64(110), got.Members[0].Next)
}

// A record whose entries are not applied yet is held back for a while
// (a reader gets it later with its zxids), then read as it is.
func TestTracerHoldsBackUnresolvedRecords(t *testing.T) {
	tr, tt := testTracer()
	tr.want(time.Minute)
	appendTo(tt, 10, 11, 11)
	appendTo(tt, 0, 0, 0) // a heartbeat behind it
	msgs, _ := tr.read(0, 10)
	require.Empty(t, msgs, "held back until index 11 is applied")
	tr.noteApplied([]appliedZxid{{at: position{11, 5}, zxid: 5<<32 | 1}})
	msgs, _ = tr.read(0, 10)
	require.Len(t, msgs, 2)
	require.Equal(t, int64(5<<32|1), msgs[0].FirstZxid)

	appendTo(tt, 11, 12, 12) // never applied: a new leader overwrote it
	tr.ring[2].Time = time.Now().Add(-2 * traceHoldBack)
	msgs, _ = tr.read(2, 10)
	require.Len(t, msgs, 1)
	require.Zero(t, msgs[0].FirstZxid)
}

// A forwarded write is recorded with its round trip and, once the
// follower applied it, the index and zxid it got.
func TestTracerRecordsForwards(t *testing.T) {
	tr, _ := testTracer()
	tr.forwardSent(7) // not watched: forgotten
	tr.want(time.Minute)
	tr.forwardAnswered(7, "3", fwdOK)
	tr.forwardSent(8)
	tr.forwardAnswered(8, "3", fwdOK)
	tr.noteApplied([]appliedZxid{{at: position{40, 5}, zxid: 5<<32 | 9, seq: 8}})
	msgs, _ := tr.read(0, 10)
	require.Len(t, msgs, 1)
	m := msgs[0]
	require.Equal(t, []any{TraceForward, int64(1), int64(3), true, PhaseBroadcast, "REQUEST", uint64(40), int64(5<<32 | 9)},
		[]any{m.Kind, m.From, m.To, m.OK, m.Phase, m.Zab, m.FirstIndex, m.FirstZxid})
}

// Windows cross the links intact.
func TestTraceWindowRoundTrip(t *testing.T) {
	w := traceWindow{run: 42, oldest: 3, msgs: []TraceMessage{{
		Seq: 3, Time: time.Unix(0, 1234567), LatencyUs: 250, From: 1, To: 2, Kind: TraceAppend, Term: 5,
		PrevIndex: 9, PrevTerm: 5, Commit: 9, Entries: 2, Commands: 1, FirstIndex: 10, LastIndex: 11, EntryTerm: 5,
		FirstZxid: 5<<32 | 1, LastZxid: 5<<32 | 1, OK: true, RespTerm: 5, Error: "", Phase: PhaseBroadcast, Zab: "PROPOSAL",
	}}}
	var e wire.Encoder
	encodeWindow(&e, w)
	d := wire.NewDecoder(e.Bytes(), 0)
	got := decodeWindow(d)
	require.NoError(t, d.Err())
	require.Zero(t, d.Remaining())
	require.Equal(t, w.run, got.run)
	require.Equal(t, w.oldest, got.oldest)
	require.Equal(t, w.msgs[0].Time.UnixNano(), got.msgs[0].Time.UnixNano())
	got.msgs[0].Time = w.msgs[0].Time
	require.Equal(t, w.msgs, got.msgs)
}

// txnEntry is a log entry carrying a transaction of op on body.
func txnEntry(index uint64, op wire.Op, body wire.Record) *raft.Log {
	cmd := &Command{Kind: KindTxn, Origin: 1, Seq: index, Txn: &datatree.Txn{Time: 1, Session: 2,
		Auth: []wire.Id{{Scheme: "digest", ID: "a:b"}}, Op: op, Body: body}}
	return &raft.Log{Index: index, Term: 5, Type: raft.LogCommand, Data: encodeCommand(cmd)}
}

// Records carrying a client write name it, "create /x" and the like: a
// forward from the proposal it sends, an AppendEntries from its first
// transaction (" +N" for the others); a path is cut to 60 bytes. While
// nobody watches, nothing is looked up or recorded.
func TestTracerNamesOps(t *testing.T) {
	tr, tt := testTracer()
	lookups := 0
	f := forwardOps(func(seq uint64) string {
		lookups++
		return commandOp(&Command{Kind: KindTxn, Txn: &datatree.Txn{Op: wire.OpCreate, Body: &wire.CreateRequest{Path: "/x"}}})
	})
	tr.forwardOp.Store(&f)
	tr.forwardSent(7)
	tr.forwardAnswered(7, "3", fwdOK)
	tt.AppendEntries("2", "addr2", &raft.AppendEntriesRequest{Term: 5, PrevLogEntry: 10,
		Entries: []*raft.Log{txnEntry(11, wire.OpCreate, &wire.CreateRequest{Path: "/x"})}}, &raft.AppendEntriesResponse{})
	require.Zero(t, lookups, "no op is looked up while nobody watches")
	require.Nil(t, tr.ring)

	tr.want(time.Minute)
	tr.forwardSent(8)
	tr.forwardAnswered(8, "3", fwdOK)
	require.Equal(t, 1, lookups)
	long := "/" + strings.Repeat("é", 40) // 81 bytes
	tt.AppendEntries("2", "addr2", &raft.AppendEntriesRequest{Term: 5, PrevLogEntry: 10, Entries: []*raft.Log{
		{Index: 11, Term: 5, Type: raft.LogNoop},
		txnEntry(12, wire.OpSetData, &wire.SetDataRequest{Path: long, Data: []byte("v"), Version: -1}),
		txnEntry(13, wire.OpDelete, &wire.DeleteRequest{Path: "/z", Version: -1}),
		txnEntry(14, wire.OpDelete, &wire.DeleteRequest{Path: "/w", Version: -1}),
	}}, &raft.AppendEntriesResponse{})
	tr.noteApplied([]appliedZxid{{at: position{12, 5}, zxid: 5<<32 | 1}, {at: position{14, 5}, zxid: 5<<32 | 3}, {at: position{50, 5}, zxid: 5<<32 | 4, seq: 8}})
	msgs, _ := tr.read(0, 10)
	require.Len(t, msgs, 2)
	require.Equal(t, "create /x", msgs[0].Op)
	op := msgs[1].Op
	require.True(t, strings.HasPrefix(op, "setData /éé"), op)
	require.True(t, strings.HasSuffix(op, "… +2"), op)
	path := strings.TrimSuffix(strings.TrimPrefix(op, "setData "), "… +2")
	require.LessOrEqual(t, len(path), opPathMax)
	require.True(t, utf8.ValidString(path))

	for _, c := range []struct {
		want string
		cmd  *Command
	}{
		{"createSession", &Command{Kind: KindCreateSession, Session: 9, Timeout: 30000, Time: 1}},
		{"closeSession", &Command{Kind: KindCloseSession, Session: 9, Time: 1}},
		{"error", &Command{Kind: KindError, Code: wire.CodeNoNode}},
		{"create2 /a", &Command{Kind: KindTxn, Txn: &datatree.Txn{Op: wire.OpCreate2, Body: &wire.CreateRequest{Path: "/a"}}}},
		{"setACL /b", &Command{Kind: KindTxn, Txn: &datatree.Txn{Op: wire.OpSetACL, Body: &wire.SetACLRequest{Path: "/b", Version: -1}}}},
		{"deleteContainer /c", &Command{Kind: KindTxn, Txn: &datatree.Txn{Op: wire.OpDeleteContainer, Body: &wire.DeleteContainerRequest{Path: "/c"}}}},
		{"multi", &Command{Kind: KindTxn, Txn: &datatree.Txn{Op: wire.OpMulti, Body: &wire.MultiRequest{}}}},
	} {
		require.Equal(t, c.want, commandOp(c.cmd))
		require.Equal(t, c.want, encodedOp(encodeCommand(c.cmd)), "read from the entry's bytes")
	}
	require.Equal(t, "deleteContainer /"+strings.Repeat("d", 59)+"…",
		encodedOp(encodeCommand(&Command{Kind: KindTxn, Txn: &datatree.Txn{Op: wire.OpDeleteContainer, Body: &wire.DeleteContainerRequest{Path: "/" + strings.Repeat("d", 5000)}}})))
	require.Empty(t, encodedOp([]byte{1, 2}), "not a command")
}

// The ops travel after the windows: a reader of an older version reads
// the windows as before and stops; a newer one reads the ops, each cut
// to opMax.
func TestTraceWindowOps(t *testing.T) {
	w := traceWindow{run: 1, oldest: 1, msgs: []TraceMessage{
		{Seq: 1, Kind: TraceHeartbeat, Time: time.Unix(0, 1)},
		{Seq: 2, Kind: TraceForward, Op: "create /x", Time: time.Unix(0, 2)},
		{Seq: 3, Kind: TraceAppend, Op: strings.Repeat("y", 500), Time: time.Unix(0, 3)},
	}}
	var e wire.Encoder
	encodeWindow(&e, w)
	encodeWindowOps(&e, w.msgs)

	old := wire.NewDecoder(e.Bytes(), 0)
	got := decodeWindow(old)
	require.NoError(t, old.Err())
	require.Len(t, got.msgs, 3)
	require.Empty(t, got.msgs[1].Op, "the window itself carries no op")

	d := wire.NewDecoder(e.Bytes(), 0)
	got = decodeWindow(d)
	decodeWindowOps(d, got.msgs)
	require.NoError(t, d.Err())
	require.Zero(t, d.Remaining())
	require.Equal(t, []string{"", "create /x", strings.Repeat("y", opMax) + "…"}, []string{got.msgs[0].Op, got.msgs[1].Op, got.msgs[2].Op})
}
