package consensus

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// startDurable starts a standalone node whose log lives in dir.
func startDurable(t *testing.T, dir string, noSync bool) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, Storage: Storage{DataDir: dir, NoSync: noSync}})
	require.NoError(t, err)
	return n
}

// writeAndRestart proposes a session and a create, closes the node, and
// checks that a node restarted on dir (with restartNoSync) has both.
func writeAndRestart(t *testing.T, dir string, noSync, restartNoSync bool) {
	t.Helper()
	n := startDurable(t, dir, noSync)
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/kept", Data: []byte("v"), ACL: wire.OpenACLUnsafe}))
	require.NoError(t, a.Result.Err)
	require.NoError(t, n.Close())

	n = startDurable(t, dir, restartNoSync)
	defer n.Close()
	var data []byte
	var err error
	n.Read(func(st *State) { data, _, err = st.Tree.GetData("/kept") })
	require.NoError(t, err, "the create survives the restart")
	require.Equal(t, "v", string(data))
}

func TestDurableLogFormat(t *testing.T) {
	t.Run("new log with syncing is a WAL", func(t *testing.T) {
		dir := t.TempDir()
		writeAndRestart(t, dir, false, false)
		require.DirExists(t, filepath.Join(dir, walDirName))
		require.NoFileExists(t, filepath.Join(dir, logFileName))
	})
	t.Run("new log without syncing is raft-boltdb", func(t *testing.T) {
		dir := t.TempDir()
		writeAndRestart(t, dir, true, true)
		require.FileExists(t, filepath.Join(dir, logFileName))
		require.NoDirExists(t, filepath.Join(dir, walDirName))
	})
	t.Run("an existing log keeps its format when forceSync changes", func(t *testing.T) {
		bolt := t.TempDir()
		writeAndRestart(t, bolt, true, false) // made without sync, reopened with
		require.NoDirExists(t, filepath.Join(bolt, walDirName))
		w := t.TempDir()
		writeAndRestart(t, w, false, true) // made with sync, reopened without
		_, err := os.Stat(filepath.Join(w, logFileName))
		require.True(t, os.IsNotExist(err), "no raft-boltdb file beside the WAL")
	})
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
