package consensus

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// BenchmarkReplayMultiCreates applies a log shaped as zkbench -op
// bigtree fills (multis of 100 creates of 100 B, spread over 1,000
// parents), as a restart replays it: encoded entries through ApplyBatch
// in batches of 64. It reports the time and allocations per create;
// b.N counts creates. The log is encoded before the timer starts.
func BenchmarkReplayMultiCreates(b *testing.B) {
	const parents, perMulti = 1000, 100
	f := newFSM(datatree.Config{}, nil, 1)
	index := uint64(0)
	entry := func(cmd *Command) *raft.Log {
		var e wire.Encoder
		cmd.Encode(&e)
		index++
		return &raft.Log{Index: index, Term: 1, Type: raft.LogCommand, Data: e.Bytes()}
	}
	multi := func(reqs []wire.MultiOp) *Command {
		return &Command{Kind: KindTxn, Txn: &datatree.Txn{Time: 1, Session: memSession, Op: wire.OpMulti,
			Body: &wire.MultiRequest{Ops: reqs}}}
	}
	setup := []*raft.Log{entry(&Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1}),
		entry(createCmd("/bigtree"))}
	var ops []wire.MultiOp
	for p := 0; p < parents; p++ {
		ops = append(ops, wire.MultiOp{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: fmt.Sprintf("/bigtree/p%04d", p), ACL: wire.OpenACLUnsafe}})
		if len(ops) == perMulti {
			setup, ops = append(setup, entry(multi(ops))), nil
		}
	}
	applyAll(f, setup)
	data := bytes.Repeat([]byte{'x'}, 100)
	var logs []*raft.Log
	for i := 0; i < b.N; i++ {
		path := fmt.Sprintf("/bigtree/p%04d/c%08d", i%parents, i/parents)
		ops = append(ops, wire.MultiOp{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: path, Data: data, ACL: wire.OpenACLUnsafe}})
		if len(ops) == perMulti || i == b.N-1 {
			logs, ops = append(logs, entry(multi(ops))), nil
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	applyAll(f, logs)
	b.StopTimer()
	if got := f.st.Tree.NodeCount(); got < b.N {
		b.Fatalf("%d znodes after %d creates", got, b.N)
	}
}
