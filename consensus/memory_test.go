package consensus

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStandaloneInMemoryLogStaysBounded: the log of an in-memory standalone
// node holds a short window of entries however many are proposed, instead
// of every entry since the last snapshot (issue 6).
func TestStandaloneInMemoryLogStaysBounded(t *testing.T) {
	n := startNode(t, nil)
	ctx := context.Background()
	_, err := n.Propose(ctx, &Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1})
	require.NoError(t, err)
	const batch, total = 100, 5000
	propose := func(paths []string) {
		futs := make([]*Future, len(paths))
		for i, p := range paths {
			futs[i] = n.ProposeAsync(createCmd(p))
		}
		for _, f := range futs {
			waitCreated(t, f)
		}
	}
	var before int
	n.Read(func(st *State) { before = st.Tree.NodeCount() })
	propose([]string{"/m"})
	for i := 0; i < total; i += batch {
		paths := make([]string, batch)
		for j := range paths {
			paths[j] = "/m/n" + strconv.Itoa(i+j)
		}
		propose(paths)
		// Every entry of earlier batches was applied before this batch
		// was stored, so the store keeps at most this batch beyond its
		// window.
		require.LessOrEqual(t, logEntries(n), uint64(windowKeep+batch), "after %d creates", i+batch)
	}
	last, _ := n.stores.logs.LastIndex()
	require.Greater(t, last, uint64(total), "every create went through the log")
	n.Read(func(st *State) { require.Equal(t, before+1+total, st.Tree.NodeCount()) })

	// Raft takes no snapshot on its own here; one on request still works
	// and compacts what is left.
	require.NoError(t, n.Snapshot())
	_, err = n.Reconfigure(ctx, []Peer{{ID: 1}, {ID: 2, RaftAddr: "127.0.0.1:1"}}, -1, 0)
	require.ErrorIs(t, err, ErrStandaloneInMemory)
}
