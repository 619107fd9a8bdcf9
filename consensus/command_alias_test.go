package consensus

import (
	"bytes"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// A decoded entry's buffers are slices of the entry (DecodeCommand), so the
// tree must copy what it keeps: scribbling over the entries after they were
// applied changes no znode.
func TestAppliedEntriesAreNotKept(t *testing.T) {
	f := newFSM(datatree.Config{}, nil, 1)
	var logs []*raft.Log
	add := func(cmd *Command) { logs = append(logs, commandEntry(uint64(len(logs)+1), 1, cmd)) }
	add(&Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1})
	add(createCmd("/a"))
	add(&Command{Kind: KindTxn, Txn: &datatree.Txn{Time: 2, Session: memSession, Op: wire.OpMulti,
		Body: &wire.MultiRequest{Ops: []wire.MultiOp{
			{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: "/b", Data: []byte("bee"), ACL: wire.OpenACLUnsafe}},
			{Type: wire.OpSetData, Record: &wire.SetDataRequest{Path: "/a", Data: []byte("ay"), Version: -1}},
		}}}})

	cmd, err := DecodeCommand(logs[2].Data)
	require.NoError(t, err)
	data := cmd.Txn.Body.(*wire.MultiRequest).Ops[0].Record.(*wire.CreateRequest).Data
	require.Equal(t, "bee", string(data))
	require.True(t, &data[0] == &logs[2].Data[bytes.Index(logs[2].Data, []byte("bee"))],
		"a decoded entry's data is a slice of the entry, not a copy")

	applyAll(f, logs)
	for _, l := range logs {
		for i := range l.Data {
			l.Data[i] = '#'
		}
	}
	for path, want := range map[string]string{"/a": "ay", "/b": "bee"} {
		got, _, err := f.st.Tree.GetData(path)
		require.NoError(t, err, path)
		require.Equal(t, want, string(got), path)
	}
}
