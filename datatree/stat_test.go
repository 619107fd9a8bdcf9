package datatree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

func TestFreshTree(t *testing.T) {
	tr := New(Config{})
	cases := []struct {
		path      string
		cversion  int32
		children  int32
		aversion  int32
		acl       []wire.ACL
		childList []string
	}{
		{"/", -1, 1, 0, wire.OpenACLUnsafe, []string{"zookeeper"}},
		{"", -1, 1, 0, wire.OpenACLUnsafe, []string{"zookeeper"}},
		{"/zookeeper", -2, 2, 0, wire.OpenACLUnsafe, []string{"config", "quota"}},
		{"/zookeeper/quota", 0, 0, 0, wire.OpenACLUnsafe, []string{}},
		{"/zookeeper/config", 0, 0, -1, wire.ReadACLUnsafe, []string{}},
	}
	for _, c := range cases {
		st, err := tr.Stat(c.path)
		require.NoError(t, err, c.path)
		require.Equal(t, wire.Stat{Cversion: c.cversion, NumChildren: c.children, Aversion: c.aversion}, st, c.path)
		data, _, err := tr.GetData(c.path)
		require.NoError(t, err)
		require.NotNil(t, data, "built-in nodes have empty, not null, data")
		require.Empty(t, data)
		acl, _, err := tr.GetACL(c.path)
		require.NoError(t, err)
		require.Equal(t, c.acl, acl)
		kids, _, err := tr.GetChildren(c.path)
		require.NoError(t, err)
		require.Equal(t, c.childList, kids)
	}
	require.Equal(t, 5, tr.NodeCount(), "ZooKeeper's node map holds the root twice")
	require.Equal(t, int64(44), tr.ApproximateDataSize())
	n, err := tr.AllChildrenNumber("/")
	require.NoError(t, err)
	require.Equal(t, int32(3), n)
	n, err = tr.AllChildrenNumber("/zookeeper")
	require.NoError(t, err)
	require.Equal(t, int32(2), n)
	n, err = tr.AllChildrenNumber("")
	require.NoError(t, err)
	require.Equal(t, int32(4), n)
	_, err = tr.AllChildrenNumber("/nope")
	require.Equal(t, wire.CodeNoNode, err)
	require.Equal(t, 0, tr.EphemeralCount())
	require.Empty(t, tr.EphemeralSessions())
}

func TestReadsMissing(t *testing.T) {
	tr := New(Config{})
	for _, p := range []string{"/a", "a", "/zookeeper/", "//zookeeper", "/zookeeper/quota/x"} {
		_, err := tr.Stat(p)
		require.Equal(t, wire.CodeNoNode, err, p)
		_, _, err = tr.GetData(p)
		require.Equal(t, wire.CodeNoNode, err, p)
		_, _, err = tr.GetChildren(p)
		require.Equal(t, wire.CodeNoNode, err, p)
		_, _, err = tr.GetACL(p)
		require.Equal(t, wire.CodeNoNode, err, p)
		require.Equal(t, wire.CodeNoNode, tr.CheckACL(p, wire.PermRead, nil), p)
		require.False(t, tr.Exists(p), p)
	}
}

func TestCreateStat(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/p", 0)
	before := e.stat("/p")
	txn := e.txn(wire.OpCreate2, &wire.CreateRequest{Path: "/p/c", Data: []byte("hello"), ACL: wire.OpenACLUnsafe})
	r := e.tr.Apply(txn)
	require.NoError(t, r.Err)
	require.Equal(t, "/p/c", r.Path)
	want := wire.Stat{
		Czxid: txn.Zxid, Mzxid: txn.Zxid, Pzxid: txn.Zxid,
		Ctime: txn.Time, Mtime: txn.Time, DataLength: 5,
	}
	require.Equal(t, want, r.Stat)
	require.Equal(t, want, e.stat("/p/c"))
	require.Equal(t, []Event{
		{Type: wire.EventNodeCreated, Path: "/p/c"}, {Type: wire.EventNodeChildrenChanged, Path: "/p"},
	}, withoutACL(r.Events))

	parent := e.stat("/p")
	require.Equal(t, before.Czxid, parent.Czxid)
	require.Equal(t, before.Mzxid, parent.Mzxid, "child create leaves mzxid")
	require.Equal(t, before.Mtime, parent.Mtime, "child create leaves mtime")
	require.Equal(t, before.Version, parent.Version, "child create leaves version")
	require.Equal(t, txn.Zxid, parent.Pzxid, "child create sets pzxid")
	require.Equal(t, int32(1), parent.Cversion)
	require.Equal(t, int32(1), parent.NumChildren)
	require.Equal(t, before.Aversion, parent.Aversion)

	// Null data is kept as null and served with dataLength 0.
	r = e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/null", ACL: wire.OpenACLUnsafe})
	require.NoError(t, r.Err)
	data, st, err := e.tr.GetData("/null")
	require.NoError(t, err)
	require.Nil(t, data)
	require.Equal(t, int32(0), st.DataLength)
}

func TestChildDeleteStat(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/p", 0)
	e.mustCreate("/p/a", 0)
	e.mustCreate("/p/b", 0)
	before := e.stat("/p")
	txn := e.txn(wire.OpDelete, &wire.DeleteRequest{Path: "/p/a", Version: -1})
	r := e.tr.Apply(txn)
	require.NoError(t, r.Err)
	require.Equal(t, []Event{
		{Type: wire.EventNodeDeleted, Path: "/p/a"}, {Type: wire.EventNodeChildrenChanged, Path: "/p"},
	}, withoutACL(r.Events))
	after := e.stat("/p")
	require.Equal(t, txn.Zxid, after.Pzxid)
	require.Equal(t, before.Cversion+1, after.Cversion, "served cversion counts deletes")
	require.Equal(t, int32(1), after.NumChildren)
	require.Equal(t, before.Mzxid, after.Mzxid)
	require.Equal(t, before.Mtime, after.Mtime)
	require.Equal(t, before.Version, after.Version)
	require.Equal(t, int32(2), e.tr.lookup("/p").cversion(), "stored cversion counts creates only")
}

func TestSetDataStat(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/n", 0)
	e.mustCreate("/n/c", 0)
	created := e.stat("/n")
	for i := 1; i <= 3; i++ {
		txn := e.txn(wire.OpSetData, &wire.SetDataRequest{Path: "/n", Data: []byte("x"), Version: -1})
		r := e.tr.Apply(txn)
		require.NoError(t, r.Err)
		want := created
		want.Version = int32(i)
		want.Mzxid = txn.Zxid
		want.Mtime = txn.Time
		require.Equal(t, want, r.Stat, "identical data still bumps the version")
		require.Equal(t, want, e.stat("/n"))
		require.Equal(t, []Event{{Type: wire.EventNodeDataChanged, Path: "/n"}}, withoutACL(r.Events))
	}
	r := e.setData("/n", nil, 3)
	require.NoError(t, r.Err)
	require.Equal(t, int32(0), r.Stat.DataLength)
	require.Equal(t, int32(4), r.Stat.Version)
}

func TestSetACLStat(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/n", 0)
	before := e.stat("/n")
	r := e.setACL("/n", wire.ReadACLUnsafe, 0)
	require.NoError(t, r.Err)
	want := before
	want.Aversion = 1
	require.Equal(t, want, r.Stat, "setACL only bumps aversion")
	require.Equal(t, want, e.stat("/n"))
	require.Empty(t, r.Events)
	acl, _, err := e.tr.GetACL("/n")
	require.NoError(t, err)
	require.Equal(t, wire.ReadACLUnsafe, acl)
	r = e.setACL("/n", wire.OpenACLUnsafe, -1)
	require.Equal(t, wire.CodeNoAuth, r.Err, "READ-only ACL has no ADMIN")
}

func TestServedCversion(t *testing.T) {
	e := newEnv(t, Config{})
	require.Equal(t, int32(-1), e.stat("/").Cversion)
	steps := []struct {
		do   func()
		want int32
	}{
		{func() { e.mustCreate("/a", 0) }, 0},                   // stored 1, 2 children
		{func() { e.mustCreate("/b", 0) }, 1},                   // stored 2, 3 children
		{func() { require.NoError(t, e.del("/a", -1).Err) }, 2}, // stored 2, 2 children
		{func() { require.NoError(t, e.del("/b", -1).Err) }, 3},
		{func() { e.mustCreate("/zookeeper/x", 0) }, 3}, // not a child of /
	}
	for i, s := range steps {
		s.do()
		require.Equal(t, s.want, e.stat("/").Cversion, "step %d", i)
	}
	require.Equal(t, int32(-1), e.stat("/zookeeper").Cversion, "1 create, 3 children: 2*1-3")
}
