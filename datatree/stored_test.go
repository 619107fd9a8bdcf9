package datatree

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// A tree built from stored nodes serves them as ZooKeeper would (served
// cversion, hidden owners of containers) and walks back to the same
// stored nodes; Finish adds missing built-ins and recounts quota stats.
func TestBuilder(t *testing.T) {
	b := NewBuilder(Config{ExtendedTypesEnabled: true}, StoredNode{Data: []byte{}, ACL: wire.OpenACLUnsafe, Cversion: 3, Pzxid: 9})
	a := StoredNode{Data: []byte("a"), ACL: wire.ReadACLUnsafe, Czxid: 2, Mzxid: 5, Pzxid: 8, Ctime: 10, Mtime: 20,
		Version: 4, Cversion: 7, Aversion: 2}
	require.NoError(t, b.Add("/a", a))
	require.NoError(t, b.Add("/a/c", StoredNode{ACL: wire.OpenACLUnsafe, Czxid: 8, Mzxid: 8, Pzxid: 8, EphemeralOwner: containerOwner}))
	require.NoError(t, b.Add("/zookeeper", StoredNode{Data: []byte{}, ACL: wire.OpenACLUnsafe}))
	require.NoError(t, b.Add("/zookeeper/quota", StoredNode{Data: []byte{}, ACL: wire.OpenACLUnsafe}))
	require.NoError(t, b.Add("/zookeeper/quota/a", StoredNode{Data: []byte{}, ACL: wire.OpenACLUnsafe}))
	require.NoError(t, b.Add("/zookeeper/quota/a/zookeeper_limits", StoredNode{Data: []byte("count=5,bytes=-1"), ACL: wire.OpenACLUnsafe}))
	require.NoError(t, b.Add("/zookeeper/quota/a/zookeeper_stats", StoredNode{Data: []byte("count=99,bytes=99"), ACL: wire.OpenACLUnsafe}))
	require.ErrorIs(t, b.Add("/a", a), ErrBadStoredNode)
	require.ErrorIs(t, b.Add("/x/y", a), ErrBadStoredNode)
	require.ErrorIs(t, b.Add("rel", a), ErrBadStoredNode)
	tree := b.Finish()

	st, err := tree.Stat("/a")
	require.NoError(t, err)
	require.Equal(t, wire.Stat{Czxid: 2, Mzxid: 5, Pzxid: 8, Ctime: 10, Mtime: 20, Version: 4, Cversion: 13, Aversion: 2,
		DataLength: 1, NumChildren: 1}, st)
	require.Equal(t, 1, tree.ContainerCount())
	data, _, err := tree.GetData("/zookeeper/quota/a/zookeeper_stats")
	require.NoError(t, err)
	require.Equal(t, "count=2,bytes=1", string(data), "recounted: /a and /a/c")
	require.True(t, tree.Exists("/zookeeper/config"))
	acl, cst, err := tree.GetACL("/zookeeper/config")
	require.NoError(t, err)
	require.Equal(t, wire.ReadACLUnsafe, acl)
	require.Equal(t, int32(-1), cst.Aversion)

	seen := map[string]StoredNode{}
	require.NoError(t, tree.WalkStored(func(p string, sn StoredNode) error { seen[p] = sn; return nil }))
	require.Equal(t, a, seen["/a"])
	require.Equal(t, containerOwner, seen["/a/c"].EphemeralOwner)
	require.Nil(t, seen["/a/c"].Data, "null data is kept")
	require.Len(t, seen, 9)
}
