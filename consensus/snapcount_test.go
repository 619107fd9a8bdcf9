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

// TestSnapCounterWaitsForReplay: a snapshot that comes due while the FSM
// replays the log found at start is asked for by the batch that ends the
// replay (its last entry, or an entry of a later term), not in the middle.
func TestSnapCounterWaitsForReplay(t *testing.T) {
	takes := 0
	c := newSnapCounter(10, -1, func() { takes++ })
	c.roll = 10
	c.replayUntil(100, 2)
	for i := uint64(1); i < 100; i += 9 {
		c.applied(i, min(i+8, 99), 2, 1)
		c.wait()
	}
	require.Zero(t, takes, "snapshots asked for while replaying the log up to 100")
	c.applied(100, 100, 2, 1)
	c.wait()
	require.Equal(t, 1, takes, "the batch that ends the replay asks for the due snapshot")

	// The old log's tail beyond a new leader's first entry was never
	// committed: the new term's entry ends the replay.
	takes = 0
	c = newSnapCounter(10, -1, func() { takes++ })
	c.roll = 10
	c.replayUntil(100, 2)
	c.applied(1, 49, 2, 1)
	c.wait()
	require.Zero(t, takes)
	c.applied(50, 50, 3, 1)
	c.wait()
	require.Equal(t, 1, takes, "an entry of a later term ends the replay")
	c.taken(50)
	c.applied(51, 61, 3, 1)
	c.wait()
	require.Equal(t, 2, takes, "after the replay snapshots follow snapCount again")
}

// TestSnapCounterReportsTheReplay: the end of the replay reports the
// entries of the old log applied; none when the first entry applied was
// already past it (a snapshot from the leader covered the old log).
func TestSnapCounterReportsTheReplay(t *testing.T) {
	var got []uint64
	c := newSnapCounter(100000, -1, func() {})
	c.onReplayed = func(n uint64, _ time.Duration) { got = append(got, n) }
	c.replayUntil(100, 2)
	c.applied(41, 80, 2, 1)
	c.applied(81, 120, 3, 1)
	c.applied(121, 130, 3, 1)
	require.Equal(t, []uint64{60}, got, "entries 41 to 100, once")

	got = nil
	c = newSnapCounter(100000, -1, func() {})
	c.onReplayed = func(n uint64, _ time.Duration) { got = append(got, n) }
	c.replayUntil(100, 2)
	c.applied(501, 510, 4, 1)
	require.Equal(t, []uint64{0}, got)
}

// TestRestartSnapshotsAfterReplay: a durable ensemble member restarted
// with a log of many entries behind its last snapshot takes no snapshot
// of a half-replayed tree: its first snapshot after the restart covers
// the whole log it found. (A one-member ensemble: its Start returns
// before the election, as an ensemble member's does, and the replay
// comes after it.)
func TestRestartSnapshotsAfterReplay(t *testing.T) {
	const entries = 5000
	peers := []Peer{{ID: 1, RaftAddr: freeAddr(t), ForwardAddr: freeAddr(t)}}
	storage := Storage{DataDir: t.TempDir(), NoSync: true}
	start := func(snapCount int) *Node {
		n, err := Start(context.Background(), Config{ServerID: 1, Peers: peers, Storage: storage, SnapshotThreshold: snapCount, SnapshotBytes: -1})
		require.NoError(t, err)
		require.Eventually(t, n.HasLeader, 10*time.Second, 5*time.Millisecond)
		return n
	}
	n := start(100000)
	propose(t, n, &Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1})
	futures := make([]*Future, entries)
	for i := range futures {
		futures[i] = n.ProposeAsync(createCmd(fmt.Sprintf("/n%d", i)))
	}
	for _, f := range futures {
		waitCreated(t, f)
	}
	require.Equal(t, "0", n.Stats()["last_snapshot_index"])
	logLast, err := strconv.ParseUint(n.Stats()["last_log_index"], 10, 64)
	require.NoError(t, err)
	require.NoError(t, n.Close())

	// snapCount 40: without waiting for the replay, the replay of the
	// 5000 entries asks for a snapshot after at most 40 of them.
	n = start(40)
	t.Cleanup(func() { n.Close() })
	deadline := time.Now().Add(10 * time.Second)
	var snap uint64
	for snap == 0 {
		require.True(t, time.Now().Before(deadline), "no snapshot after the replay")
		time.Sleep(5 * time.Millisecond) // poll interval of the condition above
		snap, _ = strconv.ParseUint(n.Stats()["last_snapshot_index"], 10, 64)
	}
	require.GreaterOrEqual(t, snap, logLast, "the first snapshot after the restart is of a half-replayed log")
	// The replay is in startup_txns_loaded and startup_txns_load_time.
	loaded := n.metrics.txnsLoaded.Value()
	require.Equal(t, int64(1), loaded.Count)
	require.GreaterOrEqual(t, loaded.Max, int64(entries))
	require.LessOrEqual(t, loaded.Max, int64(logLast))
	require.Equal(t, int64(1), n.metrics.txnsLoadTime.Value().Count)
}

// TestSnapCounterQuietSnapshot: once nothing has been applied for the
// quiet time, a log holding a quarter of snapCount since the last
// snapshot gets one snapshot; a smaller log, a busy server or a replay
// gets none.
func TestSnapCounterQuietSnapshot(t *testing.T) {
	takes := 0
	c := newSnapCounter(100, -1, func() { takes++ })
	c.roll = 100
	start := time.Now()
	c.applied(1, 10, 1, 1)
	c.checkQuiet(start.Add(time.Hour), time.Second)
	c.wait()
	require.Zero(t, takes, "10 entries of a snapCount of 100 are not worth it")

	c.applied(11, 30, 1, 1)
	c.checkQuiet(time.Now(), time.Second)
	c.wait()
	require.Zero(t, takes, "not quiet yet")
	c.checkQuiet(time.Now().Add(2*time.Second), time.Second)
	c.wait()
	require.Equal(t, 1, takes, "30 entries, quiet for the quiet time")
	c.checkQuiet(time.Now().Add(3*time.Second), time.Second)
	c.wait()
	require.Equal(t, 1, takes, "one request per quiet spell")

	c.taken(30)
	c.applied(31, 40, 1, 1)
	c.checkQuiet(time.Now().Add(time.Hour), time.Second)
	c.wait()
	require.Equal(t, 1, takes, "10 entries since the snapshot")

	// Bytes: a quarter of the byte limit.
	takes = 0
	c = newSnapCounter(100000, 1000, func() { takes++ })
	c.applied(1, 1, 1, 300)
	c.checkQuiet(time.Now().Add(time.Hour), time.Second)
	c.wait()
	require.Equal(t, 1, takes, "300 bytes of a 1000-byte limit")

	// A snapshot still being taken puts the quiet one off, not away.
	takes = 0
	c = newSnapCounter(100, -1, func() { takes++ })
	c.roll = 100
	c.applied(1, 30, 1, 1)
	c.pending.Store(true)
	c.checkQuiet(time.Now().Add(time.Hour), time.Second)
	require.Zero(t, takes)
	c.pending.Store(false)
	c.checkQuiet(time.Now().Add(time.Hour), time.Second)
	c.wait()
	require.Equal(t, 1, takes, "asked for once the snapshot in progress ended")

	// Not while replaying the log found at start.
	takes = 0
	c = newSnapCounter(100, -1, func() { takes++ })
	c.roll = 100
	c.replayUntil(80, 1)
	c.applied(1, 50, 1, 1)
	c.checkQuiet(time.Now().Add(time.Hour), time.Second)
	c.wait()
	require.Zero(t, takes)
}

// TestSnapCounterQuietWatchStops: the watch's goroutine ends with wait.
func TestSnapCounterQuietWatchStops(t *testing.T) {
	taken := make(chan struct{}, 1)
	c := newSnapCounter(4, -1, func() { taken <- struct{}{} })
	c.roll = 100
	c.watchQuiet(40 * time.Millisecond)
	c.applied(1, 3, 1, 1)
	select {
	case <-taken:
	case <-time.After(10 * time.Second):
		t.Fatal("no quiet snapshot")
	}
	c.wait()
}
