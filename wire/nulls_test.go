package wire

import "testing"

func TestDecoder_NullStringsAreCounted(t *testing.T) {
	b := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 'a', 0xff, 0xff, 0xff, 0xff}
	d := NewDecoder(b, 0)
	if !d.PeekNull() {
		t.Fatal("PeekNull before a null string = false")
	}
	if s := d.String(); s != "" || d.Nulls() != 1 {
		t.Fatalf("null string = %q, Nulls %d; want \"\", 1", s, d.Nulls())
	}
	if d.PeekNull() || d.String() != "a" || d.Nulls() != 1 {
		t.Fatal("a real string is not a null one")
	}
	if d.Buffer() != nil || d.Nulls() != 1 {
		t.Fatal("a null buffer is nil and not counted as a null string")
	}
	if d.PeekNull() {
		t.Fatal("PeekNull at the end of the frame = true")
	}
}

func TestMultiRequest_NullPathOp(t *testing.T) {
	ops := []MultiOp{
		{Type: OpGetData, Record: &GetDataRequest{Path: "/a"}},
		{Type: OpGetData, Record: &GetDataRequest{Path: "/b"}},
	}
	b := Marshal(&MultiRequest{Ops: ops})
	var m MultiRequest
	if err := Unmarshal(b, &m, 0); err != nil {
		t.Fatal(err)
	}
	if _, null := m.NullPathOp(); null {
		t.Fatal("no op has a null path")
	}
	// The second op's path "/b" (length 2) becomes null.
	i := len(b) - 9 - 1 - 6 // terminator, watch byte, then the path
	copy(b[i:], []byte{0xff, 0xff, 0xff, 0xff})
	b = append(b[:i+4], b[i+6:]...)
	if err := Unmarshal(b, &m, 0); err != nil {
		t.Fatal(err)
	}
	if at, null := m.NullPathOp(); !null || at != 1 || len(m.Ops) != 2 {
		t.Fatalf("NullPathOp = %d, %v with %d ops; want 1, true, 2", at, null, len(m.Ops))
	}
}

func TestSetWatches_NullPath(t *testing.T) {
	null := []byte{0xff, 0xff, 0xff, 0xff}
	var e Encoder
	e.Long(5)
	e.Int(1)
	e.buf = append(e.buf, null...) // one null data watch path
	e.Strings([]string{})
	e.Strings([]string{})
	rest := len(e.buf)
	var w SetWatches
	if err := Unmarshal(e.buf, &w, 0); err != nil || !w.NullPath() {
		t.Fatalf("SetWatches with a null path: err %v, NullPath %v", err, w.NullPath())
	}
	// setWatches2: a null persistent path is not reported.
	e.buf = e.buf[:rest]
	e.Int(1)
	e.buf = append(e.buf, null...)
	e.Strings([]string{})
	var w2 SetWatches2
	if err := Unmarshal(e.buf, &w2, 0); err != nil || !w2.NullPath() {
		t.Fatalf("SetWatches2 with a null data path: err %v, NullPath %v", err, w2.NullPath())
	}
	e.Reset()
	e.Long(5)
	for i := 0; i < 3; i++ {
		e.Strings([]string{"/x"})
	}
	e.Int(1)
	e.buf = append(e.buf, null...)
	e.Strings([]string{})
	if err := Unmarshal(e.buf, &w2, 0); err != nil || w2.NullPath() {
		t.Fatalf("SetWatches2 with a null persistent path: err %v, NullPath %v", err, w2.NullPath())
	}
}

func TestPathRequest_NullPathEchoedNull(t *testing.T) {
	var r PathRequest
	if err := Unmarshal([]byte{0xff, 0xff, 0xff, 0xff}, &r, 0); err != nil || !r.PathNull() || r.Path != "" {
		t.Fatalf("null path: %+v, err %v", r, err)
	}
	resp := SyncResponse{Path: r.Path, Null: r.PathNull()}
	if b := Marshal(&resp); string(b) != "\xff\xff\xff\xff" {
		t.Fatalf("echoed null path encodes as %x", b)
	}
	if b := Marshal(&SyncResponse{}); string(b) != "\x00\x00\x00\x00" {
		t.Fatalf("empty path encodes as %x", b)
	}
}
