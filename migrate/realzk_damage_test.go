package migrate_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/migrate"
)

// TestDamagedLogOfZooKeeper: a real ZooKeeper 3.8 logs twelve
// transactions (a session and eleven creates) and is killed. A flipped
// length byte in the middle of its log is refused, naming the file, the
// offset and the transaction, where the import used to drop the eleven
// transactions after it; the last entry torn as a crash tears it is
// dropped with a note.
func TestDamagedLogOfZooKeeper(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	zkDir := t.TempDir()
	real, err := realzk.Start(zkDir, realzk.Options{})
	require.NoError(t, err)
	defer real.Stop()
	c := connect(t, real.Addr(), sessionTimeout)
	for i := range 11 {
		_, err := c.Create(fmt.Sprintf("/d%02d", i), []byte("data"), 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	require.NoError(t, real.Stop())
	c.Close()
	logs, _ := filepath.Glob(filepath.Join(zkDir, "data", "version-2", "log.*"))
	require.Len(t, logs, 1)
	orig, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	offs := entryOffsets(orig)
	require.GreaterOrEqual(t, len(offs), 12)

	load := func(log []byte) (*migrate.Image, error) {
		dir := filepath.Join(t.TempDir(), "data")
		require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(zkDir, "data"))))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "version-2", filepath.Base(logs[0])), log, 0o644))
		return migrate.Load(migrate.Source{DataDir: dir, ExtendedTypes: true})
	}
	whole, err := load(orig)
	require.NoError(t, err)
	require.GreaterOrEqual(t, whole.Txns, 12)
	require.Empty(t, whole.Notes)

	name := filepath.Base(logs[0])
	flipped := append([]byte{}, orig...)
	flipped[offs[5]+8] ^= 0x01 // the sixth entry's length, high byte: ZooKeeper says "Unreasonable length"
	_, err = load(flipped)
	require.ErrorIs(t, err, migrate.ErrCorrupt)
	require.ErrorContains(t, err, name+" at offset "+strconv.Itoa(offs[5]+8)+": transaction 6 of the file (the one after zxid 0x5): "+
		"entry length "+strconv.Itoa(int(binary.BigEndian.Uint32(flipped[offs[5]+8:])))+" is unreasonable (more than 2097150")
	require.ErrorContains(t, err, "Unreasonable length")

	flipped = append([]byte{}, orig...)
	flipped[offs[5]+11] ^= 0x01 // its low byte: ZooKeeper would stop reading the log there
	_, err = load(flipped)
	require.ErrorIs(t, err, migrate.ErrTorn)
	require.ErrorContains(t, err, name+" at offset "+strconv.Itoa(offs[5])+": transaction 6 of the file")
	require.ErrorContains(t, err, "yet a complete entry follows at offset "+strconv.Itoa(offs[6]))

	last := offs[len(offs)-1]
	n := int(binary.BigEndian.Uint32(orig[last+8:]))
	torn := append([]byte{}, orig...)
	clear(torn[last+12+n/2 : last+12+n+1]) // its second half and end mark never reached the disk
	im, err := load(torn)
	require.NoError(t, err)
	require.Equal(t, whole.Txns-1, im.Txns)
	require.Len(t, im.Notes, 1)
	require.Contains(t, im.Notes[0], name+" at offset "+strconv.Itoa(last))
	require.Contains(t, im.Notes[0], "dropped, as ZooKeeper drops it")
}

// entryOffsets lists where a ZooKeeper log's entries start, up to the
// zero fill.
func entryOffsets(log []byte) []int {
	var offs []int
	for off := 16; off+12 <= len(log); {
		n := int(binary.BigEndian.Uint32(log[off+8:]))
		if n == 0 || off+12+n+1 > len(log) {
			break
		}
		offs = append(offs, off)
		off += 12 + n + 1
	}
	return offs
}

// TestTornLogOfZooKeeperStartedAgain: ZooKeeper killed while it appended
// its last entry, then started again: it drops the torn entry and logs
// the next transactions in a new file, so the torn log is no longer the
// newest. Nothing is lost, and the import goes through with a note; the
// same older log torn further back (the file ending there) would lose
// transactions, and is refused.
func TestTornLogOfZooKeeperStartedAgain(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	zkDir := t.TempDir()
	create := func(prefix string) {
		real, err := realzk.Start(zkDir, realzk.Options{})
		require.NoError(t, err)
		defer real.Stop()
		c := connect(t, real.Addr(), sessionTimeout)
		defer c.Close()
		for i := range 5 {
			_, err := c.Create(fmt.Sprintf("/%s%d", prefix, i), []byte("data"), 0, zk.WorldACL(zk.PermAll))
			require.NoError(t, err)
		}
		require.NoError(t, real.Stop())
	}
	create("a")
	logs, _ := filepath.Glob(filepath.Join(zkDir, "data", "version-2", "log.*"))
	require.Len(t, logs, 1)
	orig, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	offs := entryOffsets(orig)
	last := offs[len(offs)-1]
	n := int(binary.BigEndian.Uint32(orig[last+8:]))
	torn := append([]byte{}, orig...)
	clear(torn[last+12+n/2 : last+12+n+1])
	require.NoError(t, os.WriteFile(logs[0], torn, 0o644))
	create("b") // ZooKeeper drops the torn entry and goes on in a new log

	logs, _ = filepath.Glob(filepath.Join(zkDir, "data", "version-2", "log.*"))
	require.Len(t, logs, 2)
	dataDir := filepath.Join(zkDir, "data")
	im, err := migrate.Load(migrate.Source{DataDir: dataDir, ExtendedTypes: true})
	require.NoError(t, err)
	require.Len(t, im.Notes, 1)
	require.Contains(t, im.Notes[0], filepath.Base(logs[0])+" at offset "+strconv.Itoa(last))
	require.Contains(t, im.Notes[0], "ZooKeeper, started again, logged the transactions from zxid")
	tree, err := im.Tree(datatree.Config{}, nil)
	require.NoError(t, err)
	for _, p := range []string{"/a0", "/a3", "/b0", "/b4"} {
		require.True(t, tree.Exists(p), p)
	}
	require.False(t, tree.Exists("/a4"), "the torn create")

	// The same log cut in its second entry: the transactions after it
	// are in no log.
	require.NoError(t, os.WriteFile(logs[0], torn[:offs[1]+20], 0o644))
	_, err = migrate.Load(migrate.Source{DataDir: dataDir, ExtendedTypes: true})
	require.ErrorIs(t, err, migrate.ErrTorn)
	require.ErrorContains(t, err, filepath.Base(logs[0])+" at offset "+strconv.Itoa(offs[1])+": transaction 2 of the file")
	require.ErrorContains(t, err, "this is not the newest log")
}
