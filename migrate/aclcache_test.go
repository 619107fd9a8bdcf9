package migrate

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

var (
	readACL  = []wire.ACL{{Perms: wire.PermRead, ID: wire.AnyoneID}}
	otherACL = []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "ip", ID: "127.0.0.1"}}}
)

// fuzzyNode is one node record of a hand-made snapshot.
type fuzzyNode struct {
	path  string
	aclID int64
	czxid int64
}

// fuzzySnapshot is a snapshot at zxid with the given ACL table (id →
// list) and nodes, written as ZooKeeper writes one: the table before the
// nodes, so a node may refer to an id the table lacks.
func fuzzySnapshot(zxid int64, table map[int64][]wire.ACL, nodes []fuzzyNode) []byte {
	var buf bytes.Buffer
	s := newSnapWriter(&buf)
	s.e.Int(snapMagic)
	s.e.Int(fileVersion)
	s.e.Long(snapDBID)
	s.e.Int(0) // no sessions
	s.e.Int(int32(len(table)))
	for id := int64(1); len(table) > 0 && id <= 16; id++ {
		if acl, ok := table[id]; ok {
			s.e.Long(id)
			wire.EncodeACLs(&s.e, acl)
		}
	}
	s.node("", []byte{}, openUnsafeID, &statPersisted{pzxid: zxid, cversion: int32(len(nodes))})
	for _, n := range nodes {
		s.node(n.path, []byte("x"), n.aclID, &statPersisted{czxid: n.czxid, mzxid: n.czxid, pzxid: n.czxid})
	}
	s.e.String("/")
	s.seal()
	_ = s.w.Flush()
	return buf.Bytes()
}

func createACLBody(path string, acl []wire.ACL, parentCVersion int32) func(e *wire.Encoder) {
	return func(e *wire.Encoder) {
		e.String(path)
		e.Buffer([]byte("x"))
		wire.EncodeACLs(e, acl)
		e.Bool(false)
		e.Int(parentCVersion)
	}
}

// A node created while ZooKeeper wrote its snapshot can refer to an ACL id
// the snapshot's table lacks (the table is written first). ZooKeeper
// loads it, and the replay of its create gives the list that id, counting
// from the highest id the table had, even one no node used. The import
// does the same, and refuses the data only when no log entry defines the
// id.
func TestFuzzySnapshotACLDefinedByTheLog(t *testing.T) {
	table := map[int64][]wire.ACL{1: digestACL, 2: otherACL} // 2 is used by no node
	nodes := []fuzzyNode{{"/a", 1, 0x100000001}, {"/late", 3, 0x100000003}}
	snap := fuzzySnapshot(0x100000002, table, nodes)
	log := logBytes(entry(txnBytes(sess1, 0x100000003, wire.OpCreate, createACLBody("/late", readACL, 2))))

	dir := t.TempDir()
	writeDir(t, dir, map[string][]byte{hexName("snapshot", 0x100000002): snap, hexName("log", 0x100000001): log})
	im, err := Load(Source{DataDir: dir})
	require.NoError(t, err)
	require.Equal(t, 1, im.Txns)
	require.Equal(t, readACL, im.tree.nodes["/late"].acl, "the create in the log gives id 3 its list")
	require.Equal(t, digestACL, im.tree.nodes["/a"].acl)

	// Without the log entry nothing defines id 3.
	dir = t.TempDir()
	writeDir(t, dir, map[string][]byte{hexName("snapshot", 0x100000002): snap})
	_, err = Load(Source{DataDir: dir})
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "the node /late refers to ACL list 3, which neither the snapshot's ACL table nor the logs after it define")

	// A node deleted in the log needs no list.
	del := logBytes(entry(txnBytes(sess1, 0x100000003, wire.OpDelete, pathBody("/late"))))
	dir = t.TempDir()
	writeDir(t, dir, map[string][]byte{hexName("snapshot", 0x100000002): snap, hexName("log", 0x100000003): del})
	im, err = Load(Source{DataDir: dir})
	require.NoError(t, err)
	require.Nil(t, im.tree.nodes["/late"])
}

// The cache counts each id's nodes: a list no node uses any more is
// dropped and, made again, gets a new id, as ReferenceCountedACLCache
// does.
func TestACLCacheCountsUses(t *testing.T) {
	c := newACLCache()
	c.read(4, digestACL)
	c.addUsage(4)
	require.Equal(t, int64(4), c.convert(digestACL), "an equal list keeps its id")
	require.Equal(t, int64(5), c.convert(readACL), "a new list takes the next id")
	require.Equal(t, openUnsafeID, c.convert(nil))
	c.removeUsage(4)
	c.removeUsage(4)
	require.Nil(t, c.list(4), "no node uses id 4 any more")
	require.Equal(t, int64(6), c.convert(digestACL), "ids are not reused")
	require.Equal(t, wire.OpenACLUnsafe, c.list(openUnsafeID))
	c.removeUsage(99) // unknown: ignored
	c.addUsage(99)
	require.Nil(t, c.list(99))
}
