package datatree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

func mop(op wire.Op, rec wire.Record) wire.MultiOp { return wire.MultiOp{Type: op, Record: rec} }

func (e *env) multi(ops ...wire.MultiOp) Result {
	return e.apply(wire.OpMulti, &wire.MultiRequest{Ops: ops})
}

func TestMultiSuccess(t *testing.T) {
	e := newEnv(t, Config{ExtendedTypesEnabled: true})
	txn := e.txn(wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{
		mop(wire.OpCreate, createReq("/m", 0)),
		mop(wire.OpCreate, createReq("/m/s-", 2)),
		mop(wire.OpCreate2, createReq("/m/s-", 2)),
		mop(wire.OpCreateContainer, createReq("/m/c", 4)),
		mop(wire.OpCreateTTL, &wire.CreateTTLRequest{Path: "/m/t", ACL: wire.OpenACLUnsafe, Flags: 5, TTL: 50}),
		mop(wire.OpSetData, &wire.SetDataRequest{Path: "/m", Data: []byte("v1"), Version: 0}),
		mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/m", Version: 1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/m/s-0000000000", Version: 0}),
		mop(wire.OpCreate, createReq("/m/s-0000000000", 0)), // recreate in the same multi
	}})
	r := e.tr.Apply(txn)
	require.NoError(t, r.Err)
	require.Len(t, r.Multi, 9)
	st := func(p string) wire.Stat { return e.stat(p) }
	require.Equal(t, wire.MultiResult{Type: wire.OpCreate, Path: "/m"}, r.Multi[0])
	require.Equal(t, wire.MultiResult{Type: wire.OpCreate, Path: "/m/s-0000000000"}, r.Multi[1])
	// ZooKeeper rebuilds create sub-ops from their flags (Op.Create), so a
	// create2 header with plain flags answers like create: path only.
	require.Equal(t, wire.MultiResult{Type: wire.OpCreate, Path: "/m/s-0000000001"}, r.Multi[2])
	require.Equal(t, wire.MultiResult{Type: wire.OpCreate2, Path: "/m/c", Stat: st("/m/c")}, r.Multi[3])
	require.Equal(t, wire.MultiResult{Type: wire.OpCreate2, Path: "/m/t", Stat: st("/m/t")}, r.Multi[4])
	require.Equal(t, wire.OpSetData, r.Multi[5].Type)
	require.Equal(t, int32(1), r.Multi[5].Stat.Version)
	require.Equal(t, int32(4), r.Multi[5].Stat.NumChildren, "stat as of that op")
	require.Equal(t, wire.MultiResult{Type: wire.OpCheck}, r.Multi[6])
	require.Equal(t, wire.MultiResult{Type: wire.OpDelete}, r.Multi[7])
	require.Equal(t, wire.MultiResult{Type: wire.OpCreate, Path: "/m/s-0000000000"}, r.Multi[8])

	// One zxid and one time for every change.
	m := st("/m")
	require.Equal(t, txn.Zxid, m.Czxid)
	require.Equal(t, txn.Zxid, m.Mzxid)
	require.Equal(t, txn.Zxid, m.Pzxid)
	require.Equal(t, txn.Time, m.Mtime)
	require.Equal(t, int32(5), e.tr.lookup("/m").cversion())
	require.Equal(t, int32(5*2-4), m.Cversion)
	require.Equal(t, txn.Zxid, st("/m/t").Czxid)

	require.Equal(t, []Event{
		{Type: wire.EventNodeCreated, Path: "/m"}, {Type: wire.EventNodeChildrenChanged, Path: "/"},
		{Type: wire.EventNodeCreated, Path: "/m/s-0000000000"}, {Type: wire.EventNodeChildrenChanged, Path: "/m"},
		{Type: wire.EventNodeCreated, Path: "/m/s-0000000001"}, {Type: wire.EventNodeChildrenChanged, Path: "/m"},
		{Type: wire.EventNodeCreated, Path: "/m/c"}, {Type: wire.EventNodeChildrenChanged, Path: "/m"},
		{Type: wire.EventNodeCreated, Path: "/m/t"}, {Type: wire.EventNodeChildrenChanged, Path: "/m"},
		{Type: wire.EventNodeDataChanged, Path: "/m"},
		{Type: wire.EventNodeDeleted, Path: "/m/s-0000000000"}, {Type: wire.EventNodeChildrenChanged, Path: "/m"},
		{Type: wire.EventNodeCreated, Path: "/m/s-0000000000"}, {Type: wire.EventNodeChildrenChanged, Path: "/m"},
	}, withoutACL(r.Events))
}

func TestMultiFailureRollsBack(t *testing.T) {
	e := fixture(t, Config{})
	e.mustCreate("/q", 0)
	e.mustCreate("/q/x-", 2) // stored cversion 1
	e.auth = []wire.Id{digestAuth("u:p")}
	before := dumpTree(t, e.tr)
	ephBefore := e.tr.Ephemerals(e.session)

	custom := []wire.ACL{digestACL(wire.PermAll, "u:p")}
	r := e.multi(
		mop(wire.OpCreate, createReq("/q/x-", 3)), // ephemeral sequential
		mop(wire.OpCreate, &wire.CreateRequest{Path: "/q/new", ACL: custom}),
		mop(wire.OpSetData, &wire.SetDataRequest{Path: "/q", Data: []byte("zz"), Version: -1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/a/b", Version: -1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/ctr", Version: -1}),
		mop(wire.OpCreate, &wire.CreateRequest{Path: "/ctr", ACL: wire.OpenACLUnsafe}),
		mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/q", Version: 0}), // now version 1
		mop(wire.OpCreate, createReq("/never", 0)),
	)
	require.NoError(t, r.Err, "a failed multi has header error 0")
	require.Empty(t, r.Events)
	want := make([]wire.MultiResult, 8)
	for i := range want {
		want[i] = wire.MultiResult{Type: wire.OpError}
	}
	want[6].Err = wire.CodeBadVersion
	want[7].Err = wire.CodeRuntimeInconsistency
	require.Equal(t, want, r.Multi)
	require.Equal(t, before, dumpTree(t, e.tr), "rollback must restore the tree exactly")
	require.Equal(t, ephBefore, e.tr.Ephemerals(e.session))
	// The sequence counter was rolled back too.
	require.Equal(t, "/q/x-0000000001", e.mustCreate("/q/x-", 2))
}

func TestMultiFailureCodes(t *testing.T) {
	cases := []struct {
		name string
		op   wire.MultiOp
		want wire.Code
	}{
		{"check missing", mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/zz", Version: -1}), wire.CodeNoNode},
		{"check bad path", mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/a/", Version: -1}), wire.CodeBadArguments},
		{"check no READ", mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/secret", Version: -1}), wire.CodeNoAuth},
		{"check version", mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/a", Version: 3}), wire.CodeBadVersion},
		{"create exists", mop(wire.OpCreate, createReq("/a", 0)), wire.CodeNodeExists},
		{"create under ephemeral", mop(wire.OpCreate, createReq("/eph/x", 0)), wire.CodeNoChildrenForEphemerals},
		{"ttl disabled", mop(wire.OpCreateTTL, &wire.CreateTTLRequest{Path: "/t", ACL: wire.OpenACLUnsafe, Flags: 5, TTL: 5}), wire.CodeUnimplemented},
		{"delete not empty", mop(wire.OpDelete, &wire.DeleteRequest{Path: "/a", Version: -1}), wire.CodeNotEmpty},
		{"setData missing", mop(wire.OpSetData, &wire.SetDataRequest{Path: "/zz", Version: -1}), wire.CodeNoNode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := fixture(t, Config{})
			e.createACL("/secret", []wire.ACL{{Perms: wire.PermWrite, ID: wire.AnyoneID}})
			before := dumpTree(t, e.tr)
			r := e.multi(mop(wire.OpCreate, createReq("/first", 0)), c.op)
			require.NoError(t, r.Err)
			require.Equal(t, []wire.MultiResult{{Type: wire.OpError}, {Type: wire.OpError, Err: c.want}}, r.Multi)
			require.Equal(t, before, dumpTree(t, e.tr))
		})
	}
}

func TestMultiCheckSeesEarlierOps(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.multi(
		mop(wire.OpCreate, createReq("/p", 0)),
		mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/p", Version: 0}),
		mop(wire.OpCreate, createReq("/p/c", 0)),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/p/c", Version: -1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/p", Version: 0}),
	)
	require.NoError(t, r.Err)
	require.Equal(t, wire.OpDelete, r.Multi[4].Type)
	require.False(t, e.tr.Exists("/p"))
	require.Equal(t, int32(1), e.tr.root.cversion())
}

func TestMultiMarshallingError(t *testing.T) {
	e := fixture(t, Config{})
	before := dumpTree(t, e.tr)
	for _, ops := range [][]wire.MultiOp{
		{mop(wire.OpCreate, createReq("/x", 0)), mop(wire.OpSetACL, &wire.SetACLRequest{Path: "/a", ACL: wire.OpenACLUnsafe, Version: -1})},
		{mop(wire.OpCreate, createReq("/x", 0)), mop(wire.OpGetData, &wire.PathWatchRequest{Path: "/a"})},
		{mop(wire.OpCreate, createReq("/x", 0)), mop(wire.OpDeleteContainer, &wire.DeleteContainerRequest{Path: "/ctr"})},
		{mop(wire.OpCreate, &wire.DeleteRequest{Path: "/x"})},
		{mop(wire.OpCreate, nil)},
	} {
		r := e.multi(ops...)
		require.Equal(t, wire.CodeMarshallingError, r.Err)
		require.Nil(t, r.Multi)
		require.Equal(t, before, dumpTree(t, e.tr))
	}
}

func TestMultiEmpty(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.multi()
	require.NoError(t, r.Err)
	require.Empty(t, r.Multi)
	require.Empty(t, r.Events)
}

func TestMultiRollbackDeleteKeepsACL(t *testing.T) {
	// A delete releases the node's last ACL reference; the rollback must
	// get the very same ACL back even though later ops intern new lists.
	e := newEnv(t, Config{})
	e.auth = []wire.Id{digestAuth("u:p")}
	only := []wire.ACL{digestACL(wire.PermAll, "u:p")}
	e.createACL("/solo", only)
	before := dumpTree(t, e.tr)
	r := e.multi(
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/solo", Version: -1}),
		mop(wire.OpCreate, &wire.CreateRequest{Path: "/n1", ACL: []wire.ACL{digestACL(wire.PermRead, "x:y")}}),
		mop(wire.OpCreate, &wire.CreateRequest{Path: "/n2", ACL: []wire.ACL{digestACL(wire.PermRead, "z:w")}}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/missing", Version: -1}),
	)
	require.Equal(t, wire.CodeNoNode, r.Multi[3].Err)
	require.Equal(t, before, dumpTree(t, e.tr))
	acl, _, err := e.tr.GetACL("/solo")
	require.NoError(t, err)
	require.Equal(t, only, acl)
	e.createACL("/again", []wire.ACL{digestACL(wire.PermRead, "x:y")})
	acl, _, err = e.tr.GetACL("/solo")
	require.NoError(t, err)
	require.Equal(t, only, acl)
}

// TestMultiUnanswered: a multi nobody waits for applies the same changes
// and events without its per-op results; a failed one still reports its
// error results, so a failure is never taken for success.
func TestMultiUnanswered(t *testing.T) {
	answered, unanswered := newEnv(t, Config{}), newEnv(t, Config{})
	ops := []wire.MultiOp{
		mop(wire.OpCreate, createReq("/u", 0)),
		mop(wire.OpCreate, createReq("/u/s-", 2)),
		mop(wire.OpSetData, &wire.SetDataRequest{Path: "/u", Data: []byte("v"), Version: -1}),
	}
	want := answered.tr.Apply(answered.txn(wire.OpMulti, &wire.MultiRequest{Ops: ops}))
	txn := unanswered.txn(wire.OpMulti, &wire.MultiRequest{Ops: ops})
	txn.Unanswered = true
	got := unanswered.tr.Apply(txn)
	require.NoError(t, got.Err)
	require.Nil(t, got.Multi)
	require.Equal(t, want.Events, got.Events)
	require.Equal(t, dumpTree(t, answered.tr), dumpTree(t, unanswered.tr))

	txn = unanswered.txn(wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{
		mop(wire.OpCreate, createReq("/u2", 0)),
		mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/u", Version: 7}),
	}})
	txn.Unanswered = true
	failed := unanswered.tr.Apply(txn)
	require.Len(t, failed.Multi, 2)
	require.Equal(t, wire.CodeBadVersion, failed.Multi[1].Err)
}
