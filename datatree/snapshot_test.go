package datatree

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// workload produces a deterministic mix of transactions over a small
// namespace so that creates, deletes and errors all happen.
type workload struct {
	rng  *rand.Rand
	zxid int64
}

func newWorkload(seed uint64) *workload { return &workload{rng: rand.New(rand.NewPCG(seed, 7))} }

var workloadACLs = [][]wire.ACL{
	wire.OpenACLUnsafe,
	wire.ReadACLUnsafe,
	{digestACL(wire.PermAll, "u:p")},
	{{Perms: wire.PermAll, ID: wire.Id{Scheme: "ip", ID: "10.0.0.0/8"}}, {Perms: wire.PermRead, ID: wire.AnyoneID}},
	wire.CreatorAllACL,
}

func (w *workload) path() string {
	p := ""
	for d := w.rng.IntN(3) + 1; d > 0; d-- {
		p += fmt.Sprintf("/n%d", w.rng.IntN(4))
	}
	return p
}

func (w *workload) op() (wire.Op, wire.Record) {
	p := w.path()
	var data []byte
	if w.rng.IntN(4) > 0 {
		data = []byte(fmt.Sprintf("v%d", w.rng.IntN(100)))
	}
	acl := workloadACLs[w.rng.IntN(len(workloadACLs))]
	switch w.rng.IntN(10) {
	case 0, 1, 2:
		return wire.OpCreate, &wire.CreateRequest{Path: p, Data: data, ACL: acl, Flags: int32(w.rng.IntN(4))}
	case 3:
		return wire.OpCreateContainer, &wire.CreateRequest{Path: p, Data: data, ACL: acl, Flags: 4}
	case 4:
		return wire.OpCreateTTL, &wire.CreateTTLRequest{Path: p, Data: data, ACL: acl, Flags: 5 + int32(w.rng.IntN(2)), TTL: 1 + int64(w.rng.IntN(50))}
	case 5:
		return wire.OpDelete, &wire.DeleteRequest{Path: p, Version: -1}
	case 6:
		return wire.OpSetData, &wire.SetDataRequest{Path: p, Data: data, Version: int32(w.rng.IntN(3)) - 1}
	case 7:
		return wire.OpSetACL, &wire.SetACLRequest{Path: p, ACL: acl, Version: -1}
	case 8:
		o1, r1 := wire.OpCreate, &wire.CreateRequest{Path: p, Data: data, ACL: acl, Flags: int32(w.rng.IntN(4))}
		return wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{
			{Type: o1, Record: r1},
			{Type: wire.OpCheck, Record: &wire.CheckVersionRequest{Path: w.path(), Version: int32(w.rng.IntN(2)) - 1}},
			{Type: wire.OpDelete, Record: &wire.DeleteRequest{Path: w.path(), Version: -1}},
		}}
	}
	return wire.OpCloseSession, nil
}

// next returns the next txn; sessions 1..3, some with auth.
func (w *workload) next() *Txn {
	w.zxid++
	op, body := w.op()
	s := int64(w.rng.IntN(3) + 1)
	var auth []wire.Id
	if s != 3 {
		auth = []wire.Id{{Scheme: "ip", ID: "10.0.0.5"}, digestAuth("u:p")}
	}
	return &Txn{Zxid: w.zxid, Time: 1000 + w.zxid*7, Session: s, Auth: auth, Op: op, Body: body}
}

func TestSnapshotRestore(t *testing.T) {
	cfg := Config{ExtendedTypesEnabled: true}
	tr := New(cfg)
	w := newWorkload(1)
	counts := map[bool]int{}
	for i := 0; i < 3000; i++ {
		r := tr.Apply(w.next())
		counts[r.Err == nil]++
	}
	require.Greater(t, counts[true], 500)
	require.Greater(t, counts[false], 500)
	require.Greater(t, tr.NodeCount(), 20)

	var enc wire.Encoder
	tr.Snapshot(&enc)
	restored, err := Restore(wire.NewDecoder(enc.Bytes(), 0), cfg)
	require.NoError(t, err)
	require.Equal(t, dumpTree(t, tr), dumpTree(t, restored))
	require.Equal(t, tr.acls.live(), restored.acls.live())

	// Both trees must keep evolving identically.
	for i := 0; i < 3000; i++ {
		txn := w.next()
		require.Equal(t, tr.Apply(txn), restored.Apply(txn), "txn %d", i)
	}
	require.Equal(t, dumpTree(t, tr), dumpTree(t, restored))
	for _, now := range []int64{0, 30000, 1 << 40} {
		require.Equal(t, tr.ContainerCandidates(now, 10), restored.ContainerCandidates(now, 10))
	}
}

func TestSnapshotFresh(t *testing.T) {
	tr := New(Config{})
	var enc wire.Encoder
	tr.Snapshot(&enc)
	restored, err := Restore(wire.NewDecoder(enc.Bytes(), 0), Config{})
	require.NoError(t, err)
	require.Equal(t, dumpTree(t, tr), dumpTree(t, restored))
	require.Equal(t, 5, restored.NodeCount())
	require.Equal(t, int64(44), restored.ApproximateDataSize())
	st, err := restored.Stat("/zookeeper/config")
	require.NoError(t, err)
	require.Equal(t, int32(-1), st.Aversion)
}

func TestRestoreRejectsCorruption(t *testing.T) {
	e := fixture(t, Config{})
	var enc wire.Encoder
	e.tr.Snapshot(&enc)
	b := enc.Bytes()
	for n := 0; n < len(b); n++ {
		_, err := Restore(wire.NewDecoder(b[:n], 0), Config{})
		require.ErrorIs(t, err, ErrBadSnapshot, "prefix %d", n)
	}
	bad := append([]byte(nil), b...)
	bad[3] ^= 1
	_, err := Restore(wire.NewDecoder(bad, 0), Config{})
	require.ErrorIs(t, err, ErrBadSnapshot)

	// An ACL reference that was never defined.
	var e2 wire.Encoder
	e2.Int(snapMagic)
	e2.Int(snapVersion)
	e2.String("")
	e2.Buffer(nil)
	e2.Int(3)
	_, err = Restore(wire.NewDecoder(e2.Bytes(), 0), Config{})
	require.ErrorIs(t, err, ErrBadSnapshot)
}

func TestRestoreRejectsDuplicateChild(t *testing.T) {
	var e wire.Encoder
	e.Int(snapMagic)
	e.Int(snapVersion)
	node := func(name string, ref int32, children int32) {
		e.String(name)
		e.Buffer(nil)
		e.Int(ref)
		if ref == 0 && name == "" {
			wire.EncodeACLs(&e, wire.OpenACLUnsafe)
		}
		for i := 0; i < 6; i++ {
			e.Long(0)
		}
		e.Int(0)
		e.Int(0)
		e.Int(0)
		e.Int(children)
	}
	node("", 0, 2)
	node("a", 0, 0)
	node("a", 0, 0)
	_, err := Restore(wire.NewDecoder(e.Bytes(), 0), Config{})
	require.ErrorIs(t, err, ErrBadSnapshot)
}

func TestWalkOrder(t *testing.T) {
	e := newEnv(t, Config{})
	for _, p := range []string{"/b", "/a", "/a/z", "/a/c", "/ab"} {
		e.mustCreate(p, 0)
	}
	var paths []string
	e.tr.Walk(func(p string, _ wire.Stat) { paths = append(paths, p) })
	require.Equal(t, []string{"/", "/a", "/a/c", "/a/z", "/ab", "/b", "/zookeeper", "/zookeeper/config", "/zookeeper/quota"}, paths)
}
