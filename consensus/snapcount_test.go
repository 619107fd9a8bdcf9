package consensus

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
)

// TestSnapCountIsHonoured: with snapCount 40 a durable node has a
// snapshot once 40 entries are applied, taken after more than 20 of them,
// and another within the next 40, instead of at Raft's next two-minute
// check.
func TestSnapCountIsHonoured(t *testing.T) {
	const snapCount = 40
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, Storage: Storage{DataDir: t.TempDir()}, SnapshotThreshold: snapCount})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	snapIndex := func() uint64 {
		i, _ := strconv.ParseUint(n.Stats()["last_snapshot_index"], 10, 64)
		return i
	}
	waitSnapshotAfter := func(index uint64) uint64 {
		deadline := time.Now().Add(10 * time.Second)
		for snapIndex() <= index {
			require.True(t, time.Now().Before(deadline), "no snapshot after index %d", index)
			time.Sleep(5 * time.Millisecond) // poll interval of the condition above
		}
		return snapIndex()
	}
	// The log starts with a few entries of Raft's own (configuration,
	// no-op); the count runs from its beginning.
	for i := 0; i < snapCount; i++ {
		propose(t, n, createCmd(fmt.Sprintf("/n%d", i)))
	}
	first := waitSnapshotAfter(snapCount / 2)
	for i := 0; i < snapCount; i++ {
		propose(t, n, createCmd(fmt.Sprintf("/m%d", i)))
	}
	require.Greater(t, waitSnapshotAfter(first), first+snapCount/2)
}
