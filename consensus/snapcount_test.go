package consensus

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
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

// TestSnapCountCountsBytes: entries that each carry many bytes (a multi
// of many creates is one entry) bring a snapshot once the bytes applied
// since the last one reach the size limit, long before snapCount entries.
func TestSnapCountCountsBytes(t *testing.T) {
	const limit = 64 << 10 // bytes
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, Storage: Storage{DataDir: t.TempDir()},
		SnapshotThreshold: 100000, SnapshotBytes: limit})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	snapIndex := func() uint64 {
		i, _ := strconv.ParseUint(n.Stats()["last_snapshot_index"], 10, 64)
		return i
	}
	data := make([]byte, 4<<10)
	for i := 0; i < limit/len(data)+1; i++ { // at least limit bytes of data
		cmd := createCmd(fmt.Sprintf("/n%d", i))
		cmd.Txn.Body.(*wire.CreateRequest).Data = data
		propose(t, n, cmd)
	}
	deadline := time.Now().Add(10 * time.Second)
	for snapIndex() == 0 {
		require.True(t, time.Now().Before(deadline), "no snapshot after %d bytes of entries", limit)
		time.Sleep(5 * time.Millisecond) // poll interval of the condition above
	}
}

func TestSnapCounterByteLimit(t *testing.T) {
	c := newSnapCounter(100000, 0, func() {})
	c.sizeFrac = 1
	require.Equal(t, uint64(defaultSnapBytesFloor), c.byteLimit(), "no snapshot yet: the floor")
	c.sized(1 << 30)
	require.Equal(t, uint64(1<<30), c.byteLimit(), "follows the last snapshot's size")
	c.sized(1 << 20)
	require.Equal(t, uint64(defaultSnapBytesFloor), c.byteLimit(), "never below the floor")
	off := newSnapCounter(100000, -1, func() {})
	off.sized(1 << 30)
	require.Zero(t, off.byteLimit(), "a negative limit is none")
	fixed := newSnapCounter(100000, 1<<20, func() {})
	fixed.sized(1 << 30)
	require.LessOrEqual(t, fixed.byteLimit(), uint64(1<<20))
	require.Greater(t, fixed.byteLimit(), uint64(1<<19), "drawn in (limit/2, limit]")
}
