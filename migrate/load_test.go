package migrate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// Load reads the newest snapshot and the logs from the one that may hold
// the txn after it, replays what follows the snapshot's zxid, checks the
// digest logged with the last txn, and drops the ephemerals of sessions
// that are gone.
func TestLoadDirectory(t *testing.T) {
	tree := sampleTree(t)
	old := snapshotBytes(t, tree, map[int64]int32{sess1: 30000}, 0x100000001)
	snap := snapshotBytes(t, tree, map[int64]int32{sess2: 30000}, 0x100000009) // sess1 is gone
	early := logBytes(entry(txnBytes(sess1, 0x100000002, wire.OpCreate, createBody("/early", nil, false, 1))))
	// log.100000008 holds 8 and 9 (already in the snapshot), then 10.
	mid := logBytes(
		entry(txnBytes(sess1, 0x100000008, wire.OpCreate, createBody("/in-snapshot", nil, false, 5))),
		entry(txnBytes(sess1, 0x100000009, wire.OpDelete, pathBody("/in-snapshot"))),
		entry(txnBytes(sess2, 0x10000000a, wire.OpCreate, createBody("/b", []byte("b"), true, 6))))
	late := logBytes(entry(txnBytes(sess2, 0x10000000b, wire.OpSetData, func(e *wire.Encoder) {
		e.String("/b")
		e.Buffer([]byte("bb"))
		e.Int(1)
	})))
	dir := t.TempDir()
	writeDir(t, dir, map[string][]byte{
		hexName("snapshot", 0x100000001): old, hexName("snapshot", 0x100000009): snap,
		hexName("log", 0x100000002): early, hexName("log", 0x100000008): mid, hexName("log", 0x10000000b): late,
		"snapshot.notes": []byte("not ZooKeeper's"),
	})
	im, err := Load(Source{DataDir: dir, ExtendedTypes: true})
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "version-2", "snapshot.100000009"), im.Snapshot)
	require.Len(t, im.Logs, 2)
	require.Equal(t, 2, im.Txns)
	require.Equal(t, int64(0x10000000b), im.LastZxid)
	require.Nil(t, im.tree.nodes["/early"])
	require.Nil(t, im.tree.nodes["/in-snapshot"])
	require.Equal(t, "bb", string(im.tree.nodes["/b"].data))
	require.Nil(t, im.tree.nodes["/a/eph"], "session 1 is gone: its ephemeral is deleted")
	require.Equal(t, int64(0x10000000b), im.tree.nodes["/a"].stat.pzxid, "at the last zxid")
	require.Len(t, im.Notes, 1)
	require.Contains(t, im.Notes[0], "session 0x100000000000001 owns 1 ephemerals but no longer exists")

	// The last txn's digest must match the replayed tree.
	bad := logBytes(entry(append(txnBytes(sess2, 0x10000000b, wire.OpDelete, pathBody("/b")), 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1)))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "version-2", hexName("log", 0x10000000b)), bad, 0o644))
	_, err = Load(Source{DataDir: dir, ExtendedTypes: true})
	require.ErrorIs(t, err, ErrDigest)
}

// The newest snapshot without its end mark (a crash while ZooKeeper wrote
// it) is refused, naming the snapshot ZooKeeper would load instead; no
// snapshot at all is ErrNoSnapshot.
func TestLoadRefusesIncompleteSnapshot(t *testing.T) {
	tree := sampleTree(t)
	good := snapshotBytes(t, tree, nil, 0x100000001)
	dir := t.TempDir()
	writeDir(t, dir, map[string][]byte{hexName("snapshot", 0x100000001): good, hexName("snapshot", 0x100000009): good[:len(good)-7]})
	_, err := Load(Source{DataDir: dir})
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "snapshot.100000009: the snapshot is incomplete")
	require.ErrorContains(t, err, "it would load snapshot.100000001 instead")

	_, err = Load(Source{DataDir: t.TempDir()})
	require.ErrorIs(t, err, ErrNoSnapshot)
	writeDir(t, dir, map[string][]byte{hexName("snapshot", 0x10000000a) + ".gz": good})
	_, err = Load(Source{DataDir: dir})
	require.ErrorIs(t, err, ErrFormat)
}

func TestLogsFrom(t *testing.T) {
	logs := []zkFile{{"a", 1}, {"b", 5}, {"c", 9}}
	require.Equal(t, logs[1:], logsFrom(logs, 6))
	require.Equal(t, logs[1:], logsFrom(logs, 9), "log.5 may hold 6 to 8")
	require.Equal(t, logs, logsFrom(logs, 1))
	require.Equal(t, logs[2:], logsFrom(logs, 20))
	require.Empty(t, logsFrom(nil, 3))
}
