package consensus

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/metadb"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// smallSegments makes raft-wal seal a segment every few dozen entries.
func smallSegments(t *testing.T) {
	old := walSegmentSize
	walSegmentSize = 16 << 10
	t.Cleanup(func() { walSegmentSize = old })
}

// tryStart starts a standalone node on dir, logging into logs. With bolt,
// a new log is a raft-boltdb one without syncing (what forceSync=no made
// before raft-wal could skip its fsync).
func tryStart(dir string, bolt bool, logs *bytes.Buffer) (*Node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var log *slog.Logger
	if logs != nil {
		log = slog.New(slog.NewTextHandler(logs, nil))
	}
	return Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, Logger: log, Storage: Storage{DataDir: dir, NoSync: bolt, Bolt: bolt}})
}

// payload is the data of /n<i>, easy to find in a file.
func payload(i int) []byte {
	return []byte(fmt.Sprintf("payload-%05d-%s", i, strings.Repeat("x", 200)))
}

// fillDurable writes count znodes into a node on dir and closes it.
func fillDurable(t *testing.T, dir string, noSync bool, count int) {
	t.Helper()
	n, err := tryStart(dir, noSync, nil)
	require.NoError(t, err)
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	for i := 0; i < count; i++ {
		a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/n%d", i), Data: payload(i), ACL: wire.OpenACLUnsafe}))
		require.NoError(t, a.Result.Err)
	}
	require.NoError(t, n.Close())
}

// segmentFiles lists dir's WAL segments, oldest first.
func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, walDirName, "*.wal"))
	require.NoError(t, err)
	sort.Strings(files)
	return files
}

// patch overwrites file at off with b.
func patch(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// offsetOf returns where needle is in path.
func offsetOf(t *testing.T, path string, needle []byte) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	i := bytes.Index(data, needle)
	require.GreaterOrEqual(t, i, 0, "%q not in %s", needle, path)
	return int64(i)
}

// requireRefused checks that a start on dir fails at once with one line
// naming the damaged file and saying what to do, and no node running.
func requireRefused(t *testing.T, dir string, noSync bool, file string) string {
	t.Helper()
	n, err := tryStart(dir, noSync, nil)
	if n != nil {
		n.Close()
	}
	require.ErrorIs(t, err, ErrDamaged)
	msg := err.Error()
	t.Log(msg)
	require.NotContains(t, msg, "\n", "one line")
	require.Contains(t, msg, file)
	require.Contains(t, msg, "zkserver verify "+dir)
	return msg
}

func TestDamagedLogRefusesToStart(t *testing.T) {
	smallSegments(t)
	t.Run("data byte changed in a sealed segment", func(t *testing.T) {
		dir := t.TempDir()
		fillDurable(t, dir, false, 200)
		segs := segmentFiles(t, dir)
		require.Greater(t, len(segs), 2)
		off := offsetOf(t, segs[0], payload(3))
		patch(t, segs[0], off+8, []byte("9")) // payload-00003 -> payload-90003... a client never wrote it
		msg := requireRefused(t, dir, false, segs[0])
		require.Contains(t, msg, "offset")
	})
	t.Run("data byte changed early in the newest segment", func(t *testing.T) {
		dir := t.TempDir()
		fillDurable(t, dir, false, 200)
		segs := segmentFiles(t, dir)
		tail := segs[len(segs)-1]
		data, err := os.ReadFile(tail)
		require.NoError(t, err)
		i := bytes.Index(data, []byte("payload-"))
		require.GreaterOrEqual(t, i, 0)
		patch(t, tail, int64(i)+9, []byte("Q"))
		requireRefused(t, dir, false, tail)
	})
	t.Run("frame header damaged in a sealed segment", func(t *testing.T) {
		dir := t.TempDir()
		fillDurable(t, dir, false, 200)
		segs := segmentFiles(t, dir)
		patch(t, segs[1], walHeaderLen, []byte{0xff}) // first frame's type
		requireRefused(t, dir, false, segs[1])
	})
	t.Run("frame length damaged in a sealed segment", func(t *testing.T) {
		dir := t.TempDir()
		fillDurable(t, dir, false, 200)
		segs := segmentFiles(t, dir)
		patch(t, segs[0], walHeaderLen+4, []byte{0xff, 0xff, 0xff, 0x7f})
		requireRefused(t, dir, false, segs[0])
	})
	t.Run("index frame or file header damaged in a sealed segment", func(t *testing.T) {
		for _, where := range []string{"index", "header"} {
			dir := t.TempDir()
			fillDurable(t, dir, false, 200)
			seg := segmentFiles(t, dir)[0]
			s := scanSegment(mustOpen(t, seg), 1<<30, 0, 0)
			require.True(t, s.sealed)
			off := int64(8) // the base index in the file header
			if where == "index" {
				data, err := os.ReadFile(seg)
				require.NoError(t, err)
				// The index frame (type 2) is the last frame before the final commit.
				for off = s.end - 2*walFrameHdrLen; data[off] != frameIndex; off -= walFrameHdrLen {
				}
				off += walFrameHdrLen + 4 // inside its offsets array
			}
			patch(t, seg, off, []byte{0x5a})
			requireRefused(t, dir, false, seg)
		}
	})
	t.Run("segment emptied", func(t *testing.T) {
		for _, which := range []string{"sealed", "newest"} {
			dir := t.TempDir()
			fillDurable(t, dir, false, 200)
			segs := segmentFiles(t, dir)
			seg := segs[0]
			if which == "newest" {
				seg = segs[len(segs)-1]
			}
			require.NoError(t, os.Truncate(seg, 0))
			requireRefused(t, dir, false, seg)
		}
	})
	t.Run("segment missing", func(t *testing.T) {
		dir := t.TempDir()
		fillDurable(t, dir, false, 200)
		segs := segmentFiles(t, dir)
		require.NoError(t, os.Remove(segs[1]))
		requireRefused(t, dir, false, segs[1])
	})
	t.Run("meta file missing", func(t *testing.T) {
		dir := t.TempDir()
		fillDurable(t, dir, false, 20)
		meta := filepath.Join(dir, walDirName, "wal-meta.db")
		require.NoError(t, os.Remove(meta))
		requireRefused(t, dir, false, meta)
	})
	t.Run("raft-boltdb entry changed", func(t *testing.T) {
		dir := t.TempDir()
		fillDurable(t, dir, true, 20)
		db := filepath.Join(dir, logFileName)
		patch(t, db, offsetOf(t, db, payload(7))+8, []byte("9"))
		msg := requireRefused(t, dir, true, db)
		require.Contains(t, msg, "log entry")
	})
}

func TestTornTailIsTruncatedAndLogged(t *testing.T) {
	dir := t.TempDir()
	fillDurable(t, dir, false, 30)
	segs := segmentFiles(t, dir)
	tail := segs[len(segs)-1]
	// A crash in the middle of writing a batch: an entry frame whose
	// payload only partly reached the disk, and no commit frame.
	s := scanSegment(mustOpen(t, tail), 1<<30, 0, 0)
	require.Negative(t, s.badAt)
	torn := append([]byte{frameEntry, 0, 0, 0, 200, 0, 0, 0}, bytes.Repeat([]byte{0xab}, 100)...)
	patch(t, tail, s.end, torn)

	var logs bytes.Buffer
	n, err := tryStart(dir, false, &logs)
	require.NoError(t, err)
	var data []byte
	n.Read(func(st *State) { data, _, err = st.Tree.GetData("/n29") })
	require.NoError(t, err)
	require.Equal(t, payload(29), data, "every committed write is there")
	require.NoError(t, n.Close())
	line := logs.String()
	require.Contains(t, line, "torn tail")
	require.Contains(t, line, fmt.Sprintf("bytes=%d", len(torn)))
	require.Contains(t, line, "uncommitted_entries=1")
	require.Equal(t, 1, strings.Count(line, "\n"), "one line: %s", line)

	logs.Reset()
	n, err = tryStart(dir, false, &logs)
	require.NoError(t, err)
	require.NoError(t, n.Close())
	require.NotContains(t, logs.String(), "torn tail", "truncated for good")
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func TestDamagedSnapshotRefusesToStart(t *testing.T) {
	dir, state := snapshotOnDisk(t)
	patch(t, state, offsetOf(t, state, payload(1))+8, []byte("9"))
	requireRefused(t, dir, false, state)
}

func TestSecondNodeOnDataDirFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	n, err := tryStart(dir, false, nil)
	require.NoError(t, err)
	defer n.Close()
	began := time.Now()
	n2, err := tryStart(dir, false, nil)
	if n2 != nil {
		n2.Close()
	}
	require.ErrorIs(t, err, ErrDirInUse)
	require.Less(t, time.Since(began), 5*time.Second, "no waiting on the lock")
	require.Contains(t, err.Error(), dir)
	require.Contains(t, err.Error(), fmt.Sprintf("process %d", os.Getpid()))
}

func TestFailedStartLeavesNoLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The peer port is taken, so the start fails after the stores opened.
	busy := listenBusy(t)
	peers := []Peer{{ID: 1, RaftAddr: busy, ForwardAddr: "127.0.0.1:0"}, {ID: 2, RaftAddr: "127.0.0.1:1", ForwardAddr: "127.0.0.1:1"}}
	n, err := Start(ctx, Config{ServerID: 1, Peers: peers, Storage: Storage{DataDir: dir}})
	require.Error(t, err)
	require.Nil(t, n)
	require.NoDirExists(t, dir, "a failed start removes the log it created")

	// A data directory that existed keeps everything that was there.
	require.NoError(t, os.MkdirAll(dir, 0o755))
	keep := filepath.Join(dir, "myid")
	require.NoError(t, os.WriteFile(keep, []byte("1\n"), 0o644))
	_, err = Start(ctx, Config{ServerID: 1, Peers: peers, Storage: Storage{DataDir: dir}})
	require.Error(t, err)
	require.FileExists(t, keep)
	require.NoDirExists(t, filepath.Join(dir, walDirName))
	require.NoFileExists(t, filepath.Join(dir, lockFileName))
}

// listenBusy holds a loopback port for the test and returns its address.
func listenBusy(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// TestLogWithoutChecksumsStillReads: a log written before entries carried
// checksums (here: Raft's bootstrap entry, stored by raft-wal directly)
// is read, and every entry written after it carries one.
func TestLogWithoutChecksumsStillReads(t *testing.T) {
	dir := t.TempDir()
	walDir := filepath.Join(dir, walDirName)
	require.NoError(t, os.MkdirAll(walDir, 0o755))
	meta := &metadb.BoltMetaDB{}
	w, err := wal.Open(walDir, wal.WithMetaStore(meta))
	require.NoError(t, err)
	rc := raftConfig(Config{ServerID: 1})
	addr, trans := raft.NewInmemTransport(raft.ServerAddress("standalone-1"))
	conf := raft.Configuration{Servers: []raft.Server{{ID: rc.LocalID, Address: addr}}}
	require.NoError(t, raft.BootstrapCluster(rc, w, w, raft.NewInmemSnapshotStore(), trans, conf))
	var legacy raft.Log
	require.NoError(t, w.GetLog(1, &legacy))
	require.Empty(t, legacy.Extensions, "written without a checksum")
	require.NoError(t, w.Close())
	require.NoError(t, meta.Close())
	trans.Close()

	fillDurable(t, dir, false, 5) // opens the legacy log, writes checksummed entries
	n, err := tryStart(dir, false, nil)
	require.NoError(t, err)
	defer n.Close()
	var data []byte
	n.Read(func(st *State) { data, _, err = st.Tree.GetData("/n4") })
	require.NoError(t, err)
	require.Equal(t, payload(4), data)
	logs := n.stores.guard.inner.logs.(*sumLog)
	require.Equal(t, uint64(2), logs.from, "entries from index 2 on carry checksums")
}

// TestTornLastCommitIsTruncated: the last batch's frames and commit frame
// reached the disk but not all of its data (its commit CRC fails) and
// nothing follows: a crash during that write, so that batch (never
// acknowledged) is dropped and the rest served.
func TestTornLastCommitIsTruncated(t *testing.T) {
	dir := t.TempDir()
	fillDurable(t, dir, false, 30)
	segs := segmentFiles(t, dir)
	tail := segs[len(segs)-1]
	s := scanSegment(mustOpen(t, tail), 1<<30, 0, 0)
	require.Negative(t, s.badAt)
	data, err := os.ReadFile(tail)
	require.NoError(t, err)
	last := int64(bytes.LastIndex(data[:s.end], []byte("payload-")))
	require.Greater(t, last, int64(0))
	patch(t, tail, last, make([]byte, 16)) // a sector of the last batch never written

	var logs bytes.Buffer
	n, err := tryStart(dir, false, &logs)
	require.NoError(t, err)
	defer n.Close()
	require.Contains(t, logs.String(), "torn tail")
	var got []byte
	n.Read(func(st *State) { got, _, err = st.Tree.GetData("/n28") })
	require.NoError(t, err)
	require.Equal(t, payload(28), got)
}

// TestSnapshotsWithoutLogRefuse: snapshots with no log beside them (log
// deleted, or dataLogDir changed) would start from the last snapshot and
// silently drop every write after it; the start refuses instead.
func TestSnapshotsWithoutLogRefuse(t *testing.T) {
	dir := t.TempDir()
	n, err := tryStart(dir, false, nil)
	require.NoError(t, err)
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	require.NoError(t, n.Snapshot())
	require.NoError(t, n.Close())
	require.NoError(t, os.RemoveAll(filepath.Join(dir, walDirName)))
	msg := requireRefused(t, dir, false, dir)
	require.Contains(t, msg, "Raft log is missing")
}

// TestDamagedSnapshotMetaRefusesToStart: meta.json carries no checksum of
// its own; a changed index is caught against the snapshot's name.
func TestDamagedSnapshotMetaRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	n, err := tryStart(dir, false, nil)
	require.NoError(t, err)
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	require.NoError(t, n.Snapshot())
	require.NoError(t, n.Close())
	metas, err := filepath.Glob(filepath.Join(dir, snapshotDirName, "snapshots", "*", "meta.json"))
	require.NoError(t, err)
	require.Len(t, metas, 1)
	patch(t, metas[0], offsetOf(t, metas[0], []byte(`"Index":`))+8, []byte("9"))
	requireRefused(t, dir, false, metas[0])
}

// TestDamageWhileRunningCallsOnDamage: an entry that goes bad on disk
// after the start check is caught on read, and OnDamage hears of it with
// the one-line explanation (zkserver exits there; Raft would panic).
func TestDamageWhileRunningCallsOnDamage(t *testing.T) {
	dir := t.TempDir()
	fillDurable(t, dir, false, 10)
	heard := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Storage: Storage{DataDir: dir}, OnDamage: func(err error) { heard <- err }})
	require.NoError(t, err)
	defer n.Close()
	seg := segmentFiles(t, dir)[0]
	patch(t, seg, offsetOf(t, seg, payload(5))+8, []byte("9"))
	var l raft.Log
	for i := uint64(1); ; i++ { // Raft's own reads: a follower applying, a leader replicating
		if err = n.stores.logs.GetLog(i, &l); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, ErrDamaged)
	select {
	case got := <-heard:
		require.ErrorIs(t, got, ErrDamaged)
		require.Contains(t, got.Error(), "the server stops")
		require.Contains(t, got.Error(), "zkserver verify "+dir)
	default:
		t.Fatal("OnDamage was not called")
	}
}

// TestCompactedLogWithoutItsSnapshotRefuses: once a snapshot has let Raft
// compact the log, the log alone no longer holds the tree. With the
// snapshot gone (or only an older one left) the start refuses with the
// damage; before the check hashicorp/raft panicked in NewRaft reading an
// entry that was compacted away.
func TestCompactedLogWithoutItsSnapshotRefuses(t *testing.T) {
	for _, keepOlder := range []bool{false, true} {
		t.Run(fmt.Sprintf("older snapshot kept %v", keepOlder), func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, trailingLogs: 2,
				Storage: Storage{DataDir: dir, SnapshotRetain: 2}})
			require.NoError(t, err)
			propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
			create := func(from, to int) {
				for i := from; i < to; i++ {
					a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/n%d", i), Data: payload(i), ACL: wire.OpenACLUnsafe}))
					require.NoError(t, a.Result.Err)
				}
			}
			create(0, 10)
			require.NoError(t, n.Snapshot())
			create(10, 40)
			require.NoError(t, n.Snapshot())
			first, err := n.stores.logs.FirstIndex()
			require.NoError(t, err)
			require.Greater(t, first, uint64(20), "the log was compacted past the first snapshot")
			require.NoError(t, n.Close())

			snaps, err := filepath.Glob(filepath.Join(dir, snapshotDirName, "snapshots", "*"))
			require.NoError(t, err)
			require.Len(t, snaps, 2)
			sort.Strings(snaps) // names start with the term and index: oldest first
			gone := snaps
			if keepOlder {
				gone = snaps[1:]
			}
			for _, s := range gone {
				require.NoError(t, os.RemoveAll(s))
			}
			msg := requireRefused(t, dir, false, filepath.Join(dir, snapshotDirName))
			require.Contains(t, msg, fmt.Sprintf("starts at entry %d", first))
		})
	}
}
