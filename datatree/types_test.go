package datatree

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

func TestEphemerals(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/p", 0)
	e.session = 0xA
	e.mustCreate("/p/a", wire.FlagEphemeral)
	e.mustCreate("/p/b", wire.FlagEphemeral)
	e.mustCreate("/c", wire.FlagEphemeral)
	e.session = 0xB
	e.mustCreate("/p/z", wire.FlagEphemeralSequential)
	require.Equal(t, int64(0xA), e.stat("/p/a").EphemeralOwner)
	require.Equal(t, int64(0), e.stat("/p").EphemeralOwner)
	require.Equal(t, []string{"/c", "/p/a", "/p/b"}, e.tr.Ephemerals(0xA))
	require.Equal(t, []string{}, e.tr.Ephemerals(0xC))
	require.Equal(t, map[int64][]string{0xA: {"/c", "/p/a", "/p/b"}, 0xB: {"/p/z0000000002"}}, e.tr.EphemeralSessions())
	require.Equal(t, []int64{0xA, 0xB}, e.tr.EphemeralSessionIDs())
	require.Equal(t, 4, e.tr.EphemeralCount())
	require.Equal(t, wire.CodeNoChildrenForEphemerals, e.create("/c/x", 0).Err)
	require.NoError(t, e.del("/c", -1).Err, "any session may delete an ephemeral")
	require.Equal(t, []string{"/p/a", "/p/b"}, e.tr.Ephemerals(0xA))
	e.session = 0
	require.Equal(t, wire.CodeSessionExpired, e.create("/x", wire.FlagEphemeral).Err)
	require.NoError(t, e.create("/x", 0).Err)
}

func TestKillSession(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/p", 0)
	e.session = 0xA
	e.mustCreate("/p/b", wire.FlagEphemeral)
	e.mustCreate("/p/a", wire.FlagEphemeral)
	e.mustCreate("/e", wire.FlagEphemeral)
	e.session = 0xB
	e.mustCreate("/p/other", wire.FlagEphemeral)
	before := e.stat("/p")
	rootBefore := e.stat("/")
	size := e.tr.ApproximateDataSize()

	zxid := e.zxid + 1
	ev := e.tr.KillSession(0xA, zxid)
	require.Equal(t, []Event{
		{Type: wire.EventNodeDeleted, Path: "/e"}, {Type: wire.EventNodeChildrenChanged, Path: "/"},
		{Type: wire.EventNodeDeleted, Path: "/p/a"}, {Type: wire.EventNodeChildrenChanged, Path: "/p"},
		{Type: wire.EventNodeDeleted, Path: "/p/b"}, {Type: wire.EventNodeChildrenChanged, Path: "/p"},
	}, withoutACL(ev))
	after := e.stat("/p")
	require.Equal(t, zxid, after.Pzxid)
	require.Equal(t, before.Cversion+2, after.Cversion)
	require.Equal(t, before.Mzxid, after.Mzxid)
	require.Equal(t, int32(1), after.NumChildren)
	require.Equal(t, rootBefore.Cversion+1, e.stat("/").Cversion)
	require.Empty(t, e.tr.Ephemerals(0xA))
	require.Equal(t, []string{"/p/other"}, e.tr.Ephemerals(0xB))
	require.Equal(t, size-(4+1)-(4+1)-(2+1), e.tr.ApproximateDataSize())
	require.Empty(t, e.tr.KillSession(0xA, zxid+1), "second kill is a no-op")

	// pzxid only moves forward.
	e.zxid = zxid + 10
	e.mustCreate("/p/late", 0)
	late := e.stat("/p").Pzxid
	ev = e.tr.KillSession(0xB, zxid+2)
	require.Len(t, ev, 2)
	require.Equal(t, late, e.stat("/p").Pzxid)

	// closeSession through Apply is the same.
	e.session = 0xC
	e.mustCreate("/c1", wire.FlagEphemeral)
	r := e.apply(wire.OpCloseSession, nil)
	require.NoError(t, r.Err)
	require.Equal(t, []Event{{Type: wire.EventNodeDeleted, Path: "/c1"}, {Type: wire.EventNodeChildrenChanged, Path: "/"}}, withoutACL(r.Events))
	require.False(t, e.tr.Exists("/c1"))
}

func TestContainers(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.apply(wire.OpCreateContainer, createReq("/c", wire.FlagContainer))
	require.NoError(t, r.Err)
	require.Equal(t, int64(0), r.Stat.EphemeralOwner)
	require.Equal(t, int64(math.MinInt64), e.tr.lookup("/c").owner())
	mtime := r.Stat.Mtime

	require.Empty(t, e.tr.ContainerCandidates(mtime+1_000_000, 0), "never used, rule off")
	require.Empty(t, e.tr.ContainerCandidates(mtime+100, 100), "not yet older than maxNeverUsed")
	require.Equal(t, []string{"/c"}, e.tr.ContainerCandidates(mtime+101, 100))

	e.mustCreate("/c/child", wire.FlagEphemeral) // containers may hold ephemerals
	require.Empty(t, e.tr.ContainerCandidates(mtime+1_000_000, 1), "has a child")
	require.NoError(t, e.del("/c/child", -1).Err)
	require.Equal(t, []string{"/c"}, e.tr.ContainerCandidates(0, 0), "cversion > 0")

	// createContainer inside a container, and sorted output.
	require.NoError(t, e.apply(wire.OpCreateContainer, createReq("/b", 0)).Err)
	require.NoError(t, e.apply(wire.OpCreate, createReq("/b/x", 0)).Err)
	require.NoError(t, e.del("/b/x", -1).Err)
	require.Equal(t, []string{"/b", "/c"}, e.tr.ContainerCandidates(0, 0))

	e.session = 0
	r = e.apply(wire.OpDeleteContainer, &wire.DeleteContainerRequest{Path: "/c"})
	require.NoError(t, r.Err)
	require.Equal(t, []Event{{Type: wire.EventNodeDeleted, Path: "/c"}, {Type: wire.EventNodeChildrenChanged, Path: "/"}}, withoutACL(r.Events))
	require.Equal(t, []string{"/b"}, e.tr.ContainerCandidates(0, 0))
	require.Equal(t, 1, e.tr.ContainerCount())
}

func TestDeleteContainerErrors(t *testing.T) {
	cases := []struct {
		path string
		want error
	}{
		{"/", wire.CodeBadArguments},
		{"/zookeeper", wire.CodeBadArguments},
		{"/zookeeper/config", wire.CodeBadArguments},
		{"", wire.CodeBadArguments},
		{"x", wire.CodeBadArguments},
		{"/missing", wire.CodeNoNode},
		{"/ctr/", wire.CodeNoNode},
		{"/a", wire.CodeNotEmpty},
		{"/eph", wire.CodeBadVersion},
		{"/ctr", nil},
		{"/a/b", nil},    // a plain persistent node: ZooKeeper deletes it too
		{"/ro/kid", nil}, // no ACL check
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			e := fixture(t, Config{})
			e.session, e.auth = 0, nil
			before := dumpTree(t, e.tr)
			r := e.apply(wire.OpDeleteContainer, &wire.DeleteContainerRequest{Path: c.path})
			require.Equal(t, c.want, r.Err)
			if c.want != nil {
				require.Equal(t, before, dumpTree(t, e.tr))
			} else {
				require.False(t, e.tr.Exists(c.path))
				require.Len(t, r.Events, 2)
			}
		})
	}
}

func TestTTLNodes(t *testing.T) {
	e := newEnv(t, Config{ExtendedTypesEnabled: true})
	ttl := func(path string, flags int32, ms int64) Result {
		return e.apply(wire.OpCreateTTL, &wire.CreateTTLRequest{Path: path, Data: []byte("d"), ACL: wire.OpenACLUnsafe, Flags: flags, TTL: ms})
	}
	r := ttl("/t", 5, 1000)
	require.NoError(t, r.Err)
	require.Equal(t, int64(0), r.Stat.EphemeralOwner, "TTL owner encoding is hidden")
	require.Equal(t, int64(-0x0100000000000000|1000), e.tr.lookup("/t").owner())
	created := r.Stat.Mtime
	require.Empty(t, e.tr.ContainerCandidates(created+1000, 0))
	require.Equal(t, []string{"/t"}, e.tr.ContainerCandidates(created+1001, 0))

	// setData refreshes mtime; child changes do not.
	r2 := e.setData("/t", nil, -1)
	require.NoError(t, r2.Err)
	require.Empty(t, e.tr.ContainerCandidates(created+1001, 0))
	e.mustCreate("/t/kid", 0) // TTL nodes may have children
	require.Empty(t, e.tr.ContainerCandidates(r2.Stat.Mtime+5000, 0), "has a child")
	require.NoError(t, e.del("/t/kid", -1).Err)
	require.Equal(t, []string{"/t"}, e.tr.ContainerCandidates(r2.Stat.Mtime+1001, 0))

	r = ttl("/seq-", 6, MaxTTL)
	require.NoError(t, r.Err)
	require.Equal(t, "/seq-0000000001", r.Path)
	require.Equal(t, 2, e.tr.TTLCount())

	e.session = 0
	r = e.apply(wire.OpDeleteContainer, &wire.DeleteContainerRequest{Path: "/t"})
	require.NoError(t, r.Err)
	require.Equal(t, 1, e.tr.TTLCount())
}

func TestTTLOwnerWithoutExtendedTypes(t *testing.T) {
	// A TTL node restored with extended types off reads as a normal
	// ephemeral of a strange session, exactly as EphemeralType.get does.
	e := newEnv(t, Config{ExtendedTypesEnabled: true})
	require.NoError(t, e.apply(wire.OpCreateTTL, &wire.CreateTTLRequest{Path: "/t", ACL: wire.OpenACLUnsafe, Flags: 5, TTL: 9}).Err)
	var enc wire.Encoder
	e.tr.Snapshot(&enc)
	tr, err := Restore(wire.NewDecoder(enc.Bytes(), 0), Config{})
	require.NoError(t, err)
	owner := int64(-0x0100000000000000 | 9)
	st, err := tr.Stat("/t")
	require.NoError(t, err)
	require.Equal(t, owner, st.EphemeralOwner)
	require.Equal(t, []string{"/t"}, tr.Ephemerals(owner))
	require.Equal(t, 0, tr.TTLCount())
}

func TestOwnerKind(t *testing.T) {
	cases := []struct {
		owner int64
		ext   bool
		want  kind
	}{
		{0, false, kindPersistent},
		{0, true, kindPersistent},
		{42, true, kindEphemeral},
		{-42, false, kindEphemeral},
		{math.MinInt64, false, kindContainer},
		{math.MinInt64, true, kindContainer},
		{-0x0100000000000000 | 5, true, kindTTL},
		{-0x0100000000000000 | 5, false, kindEphemeral},
		{-0x0100000000000000 | 1<<40, true, kindEphemeral}, // unknown feature id
	}
	for _, c := range cases {
		require.Equal(t, c.want, ownerKind(c.owner, c.ext), "%#x ext=%v", uint64(c.owner), c.ext)
	}
}

func TestEventsCarryTheNodeACL(t *testing.T) {
	e := newEnv(t, Config{})
	secret := []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "digest", ID: "u:h"}}}
	r := e.tr.Apply(e.txn(wire.OpCreate, &wire.CreateRequest{Path: "/s", ACL: secret}))
	require.NoError(t, r.Err)
	require.Equal(t, secret, r.Events[0].ACL, "NodeCreated carries the new node's ACL")
	require.Equal(t, wire.OpenACLUnsafe, r.Events[1].ACL, "NodeChildrenChanged carries the parent's ACL")
	r = e.tr.Apply(e.txn(wire.OpDelete, &wire.DeleteRequest{Path: "/s", Version: -1}))
	require.NoError(t, r.Err)
	require.Equal(t, secret, r.Events[0].ACL, "NodeDeleted carries the deleted node's ACL")
	require.True(t, ACLAllows(secret, wire.PermRead, []wire.Id{{Scheme: "digest", ID: "u:h"}}))
	require.False(t, ACLAllows(secret, wire.PermRead, []wire.Id{{Scheme: "ip", ID: "127.0.0.1"}}))
}

func TestSetConfig(t *testing.T) {
	e := newEnv(t, Config{})
	e.tr.SetConfig([]byte("server.1=h:1:2:participant\nversion=0"), 0, 777)
	data, st, err := e.tr.GetData("/zookeeper/config")
	require.NoError(t, err)
	require.Equal(t, "server.1=h:1:2:participant\nversion=0", string(data))
	require.Equal(t, int32(-1), st.Version)
	require.Equal(t, int64(0), st.Mzxid)
	require.Equal(t, int64(777), st.Mtime)
}
