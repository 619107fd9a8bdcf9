package migrate

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// loadSample returns the sample tree as a snapshot would give it.
func loadSample(t *testing.T) (*zkTree, *replayer) {
	t.Helper()
	b := snapshotBytes(t, sampleTree(t), map[int64]int32{sess1: 30000}, 0x100000009)
	s, err := decodeSnapshot(bytes.NewReader(b), int64(len(b)), "snap", true, nil)
	require.NoError(t, err)
	var notes []string
	return s.tree, &replayer{tree: s.tree, sessions: s.sessions, last: 0x100000009, notes: &notes}
}

func apply(t *testing.T, r *replayer, b []byte) {
	t.Helper()
	x, err := decodeTxn(b)
	require.NoError(t, err)
	require.NoError(t, r.apply(x))
}

// Replaying txns a fuzzy snapshot already holds: a create that finds its
// node sets the parent's cversion and pzxid only if the txn's cversion is
// larger; a delete of a node already gone still moves the parent's pzxid.
func TestReplayFuzzySnapshot(t *testing.T) {
	tree, r := loadSample(t)
	a := tree.nodes["/a"]
	require.Equal(t, int32(4), a.stat.cversion)

	apply(t, r, txnBytes(sess1, 0x100000005, wire.OpCreate, createBody("/a/seq0000000003", nil, false, 4)))
	require.Equal(t, int32(4), a.stat.cversion, "already there, cversion not larger: unchanged")
	require.Equal(t, int64(0x100000008), a.stat.pzxid)

	apply(t, r, txnBytes(sess1, 0x10000000a, wire.OpCreate, createBody("/a/eph", nil, true, 6)))
	require.Equal(t, int32(6), a.stat.cversion, "NODEEXISTS fix-up")
	require.Equal(t, int64(0x10000000a), a.stat.pzxid)
	require.Equal(t, sess1, tree.nodes["/a/eph"].stat.ephemeralOwner, "the node itself is kept")

	apply(t, r, txnBytes(sess1, 0x10000000b, wire.OpDelete, pathBody("/a/gone")))
	require.Equal(t, int64(0x10000000b), a.stat.pzxid, "deleteNode moves pzxid before NONODE")

	apply(t, r, txnBytes(sess1, 0x10000000c, wire.OpCreate, createBody("/a/new", []byte("n"), false, -1)))
	require.Equal(t, int32(7), a.stat.cversion, "-1: the parent's cversion plus one")
	require.Equal(t, int64(0x10000000c), r.last)

	apply(t, r, txnBytes(sess1, 0x10000000d, wire.OpSetData, func(e *wire.Encoder) {
		e.String("/a/new")
		e.Buffer([]byte("m"))
		e.Int(5)
	}))
	n := tree.nodes["/a/new"]
	require.Equal(t, "m", string(n.data))
	require.Equal(t, int32(5), n.stat.version, "the txn carries the new version")
	require.Equal(t, int64(0x10000000d), n.stat.mzxid)
}

// A multi with an error sub-txn changes nothing; otherwise its sub-txns
// apply in order under the multi's zxid.
func TestReplayMulti(t *testing.T) {
	tree, r := loadSample(t)
	sub := func(op wire.Op, body func(e *wire.Encoder)) func(e *wire.Encoder) {
		return func(e *wire.Encoder) {
			var b wire.Encoder
			body(&b)
			e.Int(int32(op))
			e.Buffer(b.Bytes())
		}
	}
	multi := func(subs ...func(e *wire.Encoder)) func(e *wire.Encoder) {
		return func(e *wire.Encoder) {
			e.Int(int32(len(subs)))
			for _, s := range subs {
				s(e)
			}
		}
	}
	failed := multi(sub(wire.OpCreate, createBody("/m1", nil, false, 6)), sub(wire.OpError, func(e *wire.Encoder) { e.Int(-110) }))
	apply(t, r, txnBytes(sess1, 0x10000000a, wire.OpMulti, failed))
	require.Nil(t, tree.nodes["/m1"])

	ok := multi(sub(wire.OpCreate, createBody("/m1", nil, false, 6)), sub(wire.OpCreate, createBody("/m1/c", nil, false, 1)),
		sub(wire.OpCheck, func(e *wire.Encoder) { e.String("/m1"); e.Int(0) }), sub(wire.OpDelete, pathBody("/ttl")))
	apply(t, r, txnBytes(sess1, 0x10000000b, wire.OpMulti, ok))
	require.NotNil(t, tree.nodes["/m1/c"])
	require.Nil(t, tree.nodes["/ttl"])
	require.Equal(t, int64(0x10000000b), tree.nodes["/m1"].stat.czxid)
	require.Equal(t, int64(0x10000000b), tree.nodes[""].stat.pzxid)
}

// closeSession deletes the paths its txn lists and the session's other
// ephemerals; a missing one is ignored.
func TestReplayCloseSession(t *testing.T) {
	tree, r := loadSample(t)
	apply(t, r, txnBytes(sess1, 0x10000000a, wire.OpCreate, createBody("/a/eph2", nil, true, 5)))
	apply(t, r, txnBytes(sess1, 0x10000000b, wire.OpCloseSession, func(e *wire.Encoder) { e.Strings([]string{"/a/eph", "/a/missing"}) }))
	require.Nil(t, tree.nodes["/a/eph"])
	require.Nil(t, tree.nodes["/a/eph2"], "not listed, but the session's")
	require.NotContains(t, r.sessions, sess1)
	require.Empty(t, tree.ephemerals[sess1])

	_, r = loadSample(t)
	apply(t, r, txnBytes(sess1, 0x10000000a, wire.OpCloseSession, nil))
	require.Nil(t, r.tree.nodes["/a/eph"], "a closeSession without a record kills the session's ephemerals")
}

// A create or delete whose path has no '/' stops the replay, as it stops
// ZooKeeper's.
func TestReplayRefusesPathWithoutSlash(t *testing.T) {
	_, r := loadSample(t)
	x, err := decodeTxn(txnBytes(sess1, 0x10000000a, wire.OpDelete, pathBody("nope")))
	require.NoError(t, err)
	require.ErrorContains(t, r.apply(x), `path "nope" has no '/'`)
}
