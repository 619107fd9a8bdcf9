package wire

import (
	"bytes"
	"slices"
	"testing"
)

func TestSlabRunsDoNotOverlap(t *testing.T) {
	var s slab[int]
	var runs [][]int
	for _, n := range []int{1, 3, 8, 5, 100, 20, 129} {
		r := s.take(n)
		if len(r) != n || cap(r) != n {
			t.Fatalf("take(%d): len %d cap %d", n, len(r), cap(r))
		}
		for i := range r {
			r[i] = len(runs) + 1
		}
		runs = append(runs, r)
	}
	// Appending to a run copies it instead of writing into the next one.
	runs[1] = append(runs[1], -1)
	for k, r := range runs {
		for i, v := range r[:len(r)-boolInt(k == 1)] {
			if v != k+1 {
				t.Fatalf("run %d element %d is %d: runs overlap", k, i, v)
			}
		}
	}
	if r := s.take(0); r == nil || len(r) != 0 {
		t.Fatalf("take(0) = %#v, want an empty non-nil run", r)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestSlabChunksGrowFromTheFirstRequest(t *testing.T) {
	var s slab[ACL]
	s.take(1)
	if s.chunk != 1 {
		t.Fatalf("first chunk holds %d, want exactly the 1 asked for", s.chunk)
	}
	var sizes []int
	for range 300 {
		before := s.chunk
		s.take(1)
		if s.chunk != before || len(sizes) == 0 {
			sizes = append(sizes, s.chunk)
		}
	}
	// 300 runs of one fill 8+16+32+64+128 and go on in chunks of 128.
	want := []int{8, 16, 32, 64, 128}
	if !slices.Equal(sizes, want) {
		t.Fatalf("chunk sizes %v, want %v", sizes, want)
	}
}

func TestMultiOfManyCreatesDecodesEveryOp(t *testing.T) {
	in := &MultiRequest{}
	for i := range 300 { // past the stack array and several slab chunks
		in.Ops = append(in.Ops, MultiOp{Type: OpCreate, Record: &CreateRequest{
			Path: "/n" + string(rune('a'+i%26)), Data: []byte{byte(i)}, ACL: OpenACLUnsafe, Flags: int32(i % 2)}})
	}
	in.Ops = append(in.Ops, MultiOp{Type: OpDelete, Record: &DeleteRequest{Path: "/x", Version: 3}})
	out := &MultiRequest{}
	if err := Unmarshal(Marshal(in), out, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Marshal(in), Marshal(out)) || len(out.Ops) != len(in.Ops) {
		t.Fatalf("decoded %d ops that encode differently", len(out.Ops))
	}
	// Every record is its own: changing one changes no other.
	out.Ops[0].Record.(*CreateRequest).ACL[0].Perms = 0
	out.Ops[0].Record.(*CreateRequest).Flags = 7
	for _, op := range out.Ops[1:300] {
		r := op.Record.(*CreateRequest)
		if r.ACL[0].Perms != PermAll || r.Flags == 7 {
			t.Fatalf("op %+v changed with op 0", r)
		}
	}
}

func TestEmptyACLVectorIsNotNull(t *testing.T) {
	out := &CreateRequest{}
	if err := Unmarshal(Marshal(&CreateRequest{Path: "/a", ACL: []ACL{}}), out, 0); err != nil {
		t.Fatal(err)
	}
	if out.ACL == nil {
		t.Fatal("an empty ACL vector decoded as null")
	}
}

func TestAliasBuffers(t *testing.T) {
	frame := Marshal(&SetDataRequest{Path: "/a", Data: []byte("payload"), Version: -1})
	for _, alias := range []bool{false, true} {
		d := NewDecoder(frame, 0)
		if alias {
			d.AliasBuffers()
		}
		var r SetDataRequest
		r.Decode(d)
		if d.Err() != nil || string(r.Data) != "payload" {
			t.Fatalf("alias %v: %q, %v", alias, r.Data, d.Err())
		}
		shares := &r.Data[0] == &frame[len(frame)-len("payload")-4]
		if shares != alias {
			t.Fatalf("alias %v: data shares the frame: %v", alias, shares)
		}
		if cap(r.Data) != len(r.Data) {
			t.Fatalf("alias %v: data's capacity runs past it (%d > %d)", alias, cap(r.Data), len(r.Data))
		}
	}
	// A stream decoder refills its buffer, so it copies whatever it is told.
	d := NewReaderDecoder(bytes.NewReader(frame), int64(len(frame)), 0)
	d.AliasBuffers()
	var r SetDataRequest
	r.Decode(d)
	if string(r.Data) != "payload" {
		t.Fatalf("stream: %q, %v", r.Data, d.Err())
	}
}
