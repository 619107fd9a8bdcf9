package migrate

import (
	"bytes"
	"testing"

	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// The decoders must refuse any input with an error, never panic, and never
// allocate more than the input could hold: the stream decoder checks every
// claimed length against the bytes left.

func FuzzReadSnapshot(f *testing.F) {
	tree := sampleTree(&testing.T{})
	var buf bytes.Buffer
	if err := writeSnapshot(&buf, tree, session.NewTable(), 0x100000009, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:100])
	f.Add([]byte("ZKSN\x00\x00\x00\x02\xff\xff\xff\xff\xff\xff\xff\xff\x7f\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSnapshot(bytes.NewReader(b), int64(len(b)), "fuzz", true, nil)
		if err == nil && s.tree.nodes[""] == nil {
			t.Fatal("a snapshot without a root was accepted")
		}
	})
}

func FuzzReadLog(f *testing.F) {
	multi := func(e *wire.Encoder) {
		var sub wire.Encoder
		createBody("/m", nil, false, 1)(&sub)
		e.Int(1)
		e.Int(int32(wire.OpCreate))
		e.Buffer(sub.Bytes())
	}
	f.Add(logBytes(
		entry(txnBytes(sess1, 0x100000001, wire.OpCreateSession, func(e *wire.Encoder) { e.Int(30000) })),
		entry(txnBytes(sess1, 0x100000002, wire.OpCreate, createBody("/x", []byte("d"), true, 1))),
		entry(txnBytes(sess1, 0x100000003, wire.OpMulti, multi)),
		entry(txnBytes(sess1, 0x100000004, wire.OpCloseSession, func(e *wire.Encoder) { e.Strings([]string{"/x"}) }))))
	f.Add(logBytes(entry([]byte{0, 0, 0})))
	f.Fuzz(func(t *testing.T, b []byte) {
		tree := newTree(true)
		tree.nodes[""] = &znode{}
		var notes []string
		r := &replayer{tree: tree, sessions: map[int64]int32{}, notes: &notes}
		_, _ = decodeLog(bytes.NewReader(b), int64(len(b)), "fuzz", 0, func(x *txn) error { return r.apply(x) })
	})
}
