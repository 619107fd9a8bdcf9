package consensus

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/hashicorp/raft-wal/fs"
	"github.com/hashicorp/raft-wal/types"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// startDurable starts a standalone node whose log lives in dir, with s's
// other settings.
func startDurable(t *testing.T, dir string, s Storage) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.DataDir = dir
	n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, Storage: s})
	require.NoError(t, err)
	return n
}

// writeAndRestart proposes a session and a create on a node started with
// first, closes it, and checks that a node restarted on dir with then has
// both.
func writeAndRestart(t *testing.T, dir string, first, then Storage) {
	t.Helper()
	n := startDurable(t, dir, first)
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/kept", Data: []byte("v"), ACL: wire.OpenACLUnsafe}))
	require.NoError(t, a.Result.Err)
	require.NoError(t, n.Close())

	n = startDurable(t, dir, then)
	defer n.Close()
	var data []byte
	var err error
	n.Read(func(st *State) { data, _, err = st.Tree.GetData("/kept") })
	require.NoError(t, err, "the create survives the restart")
	require.Equal(t, "v", string(data))
}

func TestDurableLogFormat(t *testing.T) {
	synced, unsynced := Storage{}, Storage{NoSync: true}
	for _, s := range []Storage{synced, unsynced} {
		t.Run(fmt.Sprintf("new log is a WAL (NoSync %v)", s.NoSync), func(t *testing.T) {
			dir := t.TempDir()
			writeAndRestart(t, dir, s, s)
			require.DirExists(t, filepath.Join(dir, walDirName))
			require.NoFileExists(t, filepath.Join(dir, logFileName))
		})
	}
	t.Run("a raft-boltdb log keeps its format", func(t *testing.T) {
		for _, then := range []Storage{synced, unsynced} {
			dir := t.TempDir()
			writeAndRestart(t, dir, Storage{NoSync: true, Bolt: true}, then)
			require.FileExists(t, filepath.Join(dir, logFileName))
			require.NoDirExists(t, filepath.Join(dir, walDirName))
		}
	})
	t.Run("a WAL keeps its format when asked for raft-boltdb", func(t *testing.T) {
		dir := t.TempDir()
		writeAndRestart(t, dir, synced, Storage{NoSync: true, Bolt: true})
		require.NoFileExists(t, filepath.Join(dir, logFileName))
	})
}

// TestNoSyncWALDoesNotSync: the files of a WAL opened with NoSync pass
// writes through and skip Sync.
func TestNoSyncWALDoesNotSync(t *testing.T) {
	counted := &syncCountingVFS{VFS: fs.New()}
	for _, noSync := range []bool{false, true} {
		var v types.VFS = counted
		if noSync {
			v = noSyncVFS{counted}
		}
		dir := t.TempDir()
		f, err := v.Create(dir, "seg", 0)
		require.NoError(t, err)
		_, err = f.WriteAt([]byte("entry"), 0)
		require.NoError(t, err)
		before := counted.syncs
		require.NoError(t, f.Sync())
		require.NoError(t, f.Close())
		if noSync {
			require.Equal(t, before, counted.syncs, "no sync reaches the file")
		} else {
			require.Equal(t, before+1, counted.syncs)
		}
		got := make([]byte, 5)
		r, err := v.OpenReader(dir, "seg")
		require.NoError(t, err)
		_, err = r.ReadAt(got, 0)
		require.NoError(t, err)
		require.NoError(t, r.Close())
		require.Equal(t, "entry", string(got))
	}
}

// syncCountingVFS counts the Sync calls that reach its files.
type syncCountingVFS struct {
	types.VFS
	syncs int
}

func (v *syncCountingVFS) Create(dir, name string, size uint64) (types.WritableFile, error) {
	f, err := v.VFS.Create(dir, name, size)
	if err != nil {
		return nil, err
	}
	return &syncCountingFile{WritableFile: f, v: v}, nil
}

type syncCountingFile struct {
	types.WritableFile
	v *syncCountingVFS
}

func (f *syncCountingFile) Sync() error {
	f.v.syncs++
	return f.WritableFile.Sync()
}

// Raft must see that a durable raft-wal log takes no gaps, through every
// wrapper, or a follower that installs a snapshot from the leader keeps
// its old entries and can never append again.
func TestDurableWALLogIsMonotonic(t *testing.T) {
	st, err := openStores(Storage{DataDir: t.TempDir()}, false, hclog.NewNullLogger(), nil)
	require.NoError(t, err)
	defer st.close()
	m, ok := st.logs.(raft.MonotonicLogStore)
	require.True(t, ok, "%T hides MonotonicLogStore", st.logs)
	require.True(t, m.IsMonotonic())
}

// TestCompactedEntriesAreGone: after a snapshot compacts the log, an entry
// below the first index is not found in either format, so a leader sends
// a follower that far behind its snapshot (raft-wal kept such entries
// readable in its open segment, and the leader sent them instead).
func TestCompactedEntriesAreGone(t *testing.T) {
	for _, s := range []Storage{{}, {NoSync: true}, {NoSync: true, Bolt: true}} {
		t.Run(fmt.Sprintf("NoSync %v Bolt %v", s.NoSync, s.Bolt), func(t *testing.T) {
			s.DataDir = t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, trailingLogs: 2, Storage: s})
			require.NoError(t, err)
			defer n.Close()
			propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
			for i := 0; i < 20; i++ {
				a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/n%d", i), Data: []byte("v"), ACL: wire.OpenACLUnsafe}))
				require.NoError(t, a.Result.Err)
			}
			require.NoError(t, n.Snapshot())
			first, err := n.stores.logs.FirstIndex()
			require.NoError(t, err)
			require.Greater(t, first, uint64(5))
			var l raft.Log
			require.ErrorIs(t, n.stores.logs.GetLog(first-1, &l), raft.ErrLogNotFound)
			require.NoError(t, n.stores.logs.GetLog(first, &l))
		})
	}
}
