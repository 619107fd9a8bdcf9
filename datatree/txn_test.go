package datatree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

func TestTxnRoundTrip(t *testing.T) {
	auth := []wire.Id{{Scheme: "ip", ID: "127.0.0.1"}, digestAuth("u:p"), {Scheme: "super"}}
	txns := []*Txn{
		{Time: 1, Session: 2, Auth: auth, Op: wire.OpCreate, Body: &wire.CreateRequest{Path: "/a", Data: []byte("d"), ACL: wire.OpenACLUnsafe, Flags: 3}},
		{Time: 1, Session: 2, Op: wire.OpCreate2, Body: &wire.CreateRequest{Path: "/a", ACL: wire.CreatorAllACL}},
		{Time: 1, Op: wire.OpCreateContainer, Body: &wire.CreateRequest{Path: "/c", Data: []byte{}, ACL: wire.OpenACLUnsafe, Flags: 4}},
		{Time: -5, Session: -1, Auth: []wire.Id{}, Op: wire.OpCreateTTL, Body: &wire.CreateTTLRequest{Path: "/t", ACL: wire.OpenACLUnsafe, Flags: 5, TTL: 99}},
		{Op: wire.OpDelete, Body: &wire.DeleteRequest{Path: "/a", Version: 4}},
		{Op: wire.OpSetData, Body: &wire.SetDataRequest{Path: "/a", Data: []byte("x"), Version: -1}},
		{Op: wire.OpSetACL, Body: &wire.SetACLRequest{Path: "/a", ACL: wire.ReadACLUnsafe, Version: 2}},
		{Op: wire.OpDeleteContainer, Body: &wire.DeleteContainerRequest{Path: "/c/ü"}},
		{Session: 9, Op: wire.OpCloseSession},
		{Op: wire.OpMulti, Body: &wire.MultiRequest{Ops: []wire.MultiOp{
			{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: "/m", ACL: wire.OpenACLUnsafe}},
			{Type: wire.OpCheck, Record: &wire.CheckVersionRequest{Path: "/m", Version: 0}},
			{Type: wire.OpDelete, Record: &wire.DeleteRequest{Path: "/m", Version: -1}},
		}}},
	}
	for _, in := range txns {
		var e wire.Encoder
		in.Zxid = 77 // not encoded
		in.Encode(&e)
		var out Txn
		d := wire.NewDecoder(e.Bytes(), 0)
		out.Decode(d)
		require.NoError(t, d.Err(), in.Op.String())
		require.Zero(t, out.Zxid)
		out.Zxid = in.Zxid
		require.Equal(t, in, &out, in.Op.String())
		require.Zero(t, d.Remaining())
	}
}

func TestTxnDecodeErrors(t *testing.T) {
	var e wire.Encoder
	(&Txn{Op: wire.Op(4242)}).Encode(&e)
	var out Txn
	d := wire.NewDecoder(e.Bytes(), 0)
	out.Decode(d)
	require.ErrorIs(t, d.Err(), ErrUnknownOp)

	e.Reset()
	(&Txn{Op: wire.OpCreate, Body: &wire.CreateRequest{Path: "/a", ACL: wire.OpenACLUnsafe}}).Encode(&e)
	b := e.Bytes()
	for n := 0; n < len(b); n++ {
		d := wire.NewDecoder(b[:n], 0)
		out.Decode(d)
		require.Error(t, d.Err(), "prefix %d", n)
	}
}

func TestTxnApplyAfterRoundTrip(t *testing.T) {
	a, b := New(Config{}), New(Config{})
	w := newWorkload(3)
	for i := 0; i < 500; i++ {
		txn := w.next()
		var e wire.Encoder
		txn.Encode(&e)
		var dec Txn
		d := wire.NewDecoder(e.Bytes(), 0)
		dec.Decode(d)
		require.NoError(t, d.Err())
		dec.Zxid = txn.Zxid
		require.Equal(t, a.Apply(txn), b.Apply(&dec))
	}
	require.Equal(t, dumpTree(t, a), dumpTree(t, b))
}
