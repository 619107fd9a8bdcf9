package consensus

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// snapshotOnDisk starts a node in a new data directory, creates /snap,
// snapshots and stops; it returns the directory and the state file.
func snapshotOnDisk(t *testing.T) (dir, state string) {
	dir = t.TempDir()
	n, err := tryStart(dir, false, nil)
	require.NoError(t, err)
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/snap", Data: payload(1), ACL: wire.OpenACLUnsafe}))
	require.NoError(t, n.Snapshot())
	require.NoError(t, n.Close())
	states, err := filepath.Glob(filepath.Join(dir, snapshotDirName, snapshotsSubdir, "*", snapshotStateFile))
	require.NoError(t, err)
	require.Len(t, states, 1)
	return dir, states[0]
}

// restoreDataDir opens the newest snapshot in dir as a server does and
// restores it into a new FSM.
func restoreDataDir(t *testing.T, dir string) (*fsm, error) {
	store, err := newReapingSnapshots(filepath.Join(dir, snapshotDirName), 2, nil)
	require.NoError(t, err)
	f := newFSM(datatree.Config{}, nil, 0)
	_, err = restoreLatest(f, plainSnapshots{store})
	return f, err
}

func TestSnapshotOpensInOnePass(t *testing.T) {
	dir, _ := snapshotOnDisk(t)
	f, err := restoreDataDir(t, dir)
	require.NoError(t, err)
	require.True(t, f.st.Tree.Exists("/snap"))
}

func TestSnapshotDamageFailsTheRestoreAtTheEnd(t *testing.T) {
	dir, state := snapshotOnDisk(t)
	patch(t, state, offsetOf(t, state, payload(1))+8, []byte("9"))
	_, err := restoreDataDir(t, dir)
	require.ErrorIs(t, err, ErrDamaged)
	require.Contains(t, err.Error(), "CRC-64 mismatch")

	// The store's reader itself: every byte is handed out, and the end
	// is the damage, not io.EOF.
	store, err := newReapingSnapshots(filepath.Join(dir, snapshotDirName), 2, nil)
	require.NoError(t, err)
	metas, err := store.List()
	require.NoError(t, err)
	_, rc, err := store.Open(metas[0].ID)
	require.NoError(t, err)
	defer rc.Close()
	got, err := io.ReadAll(rc)
	require.ErrorIs(t, err, ErrDamaged)
	require.EqualValues(t, metas[0].Size, len(got))
}

func TestSnapshotCutShortFailsTheRestore(t *testing.T) {
	dir, state := snapshotOnDisk(t)
	fi, err := os.Stat(state)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(state, fi.Size()-1))
	_, err = restoreDataDir(t, dir)
	require.ErrorIs(t, err, ErrDamaged)
}
