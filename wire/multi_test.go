package wire

import (
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

func TestMultiRequestEncoding(t *testing.T) {
	m := &MultiRequest{Ops: []MultiOp{
		{Type: OpDelete, Record: &DeleteRequest{Path: "/a", Version: -1}},
		{Type: OpCheck, Record: &CheckVersionRequest{Path: "/b", Version: 2}},
	}}
	want := mustHex(t, ""+
		"00000002 00 ffffffff"+" 00000002 2f61 ffffffff"+
		"0000000d 00 ffffffff"+" 00000002 2f62 00000002"+
		"ffffffff 01 ffffffff")
	if got := Marshal(m); hex.EncodeToString(got) != hex.EncodeToString(want) {
		t.Fatalf("got  %x\nwant %x", got, want)
	}
}

func TestMultiResponseEncoding(t *testing.T) {
	// Success results carry err 0 in their header; error results carry
	// their code both in the header and in the ErrorResponse body; the
	// terminator is {-1, true, -1} (MultiResponse.serialize).
	m := &MultiResponse{Results: []MultiResult{
		{Type: OpDelete, Err: CodeNoNode}, // Err ignored for success types
		{Type: OpError, Err: CodeNoNode},
		{Type: OpError, Err: CodeOK},
	}}
	want := mustHex(t, ""+
		"00000002 00 00000000"+
		"ffffffff 00 ffffff9b ffffff9b"+
		"ffffffff 00 00000000 00000000"+
		"ffffffff 01 ffffffff")
	if got := Marshal(m); hex.EncodeToString(got) != hex.EncodeToString(want) {
		t.Fatalf("got  %x\nwant %x", got, want)
	}
}

func TestMultiResponseCreateTypesReportedAsCreate2(t *testing.T) {
	for _, op := range []Op{OpCreate2, OpCreateContainer, OpCreateTTL} {
		m := &MultiResponse{Results: []MultiResult{{Type: op, Path: "/n", Stat: sampleStat}}}
		var got MultiResponse
		if err := Unmarshal(Marshal(m), &got, 0); err != nil {
			t.Fatal(err)
		}
		want := MultiResult{Type: OpCreate2, Path: "/n", Stat: sampleStat}
		if len(got.Results) != 1 || !reflect.DeepEqual(got.Results[0], want) {
			t.Fatalf("%v: got %+v", op, got.Results)
		}
	}
}

func TestMultiResponseUnknownTypeEncodesAsError(t *testing.T) {
	m := &MultiResponse{Results: []MultiResult{{Type: OpSync, Path: "/x"}}}
	var got MultiResponse
	if err := Unmarshal(Marshal(m), &got, 0); err != nil {
		t.Fatal(err)
	}
	want := []MultiResult{{Type: OpError, Err: CodeSystemError}}
	if !reflect.DeepEqual(got.Results, want) {
		t.Fatalf("got %+v", got.Results)
	}
}

func TestMultiDecodeUnknownOp(t *testing.T) {
	var e Encoder
	(&MultiHeader{Type: OpSync, Err: -1}).Encode(&e)
	(&PathRequest{Path: "/a"}).Encode(&e)
	multiTerminator.Encode(&e)
	var m MultiRequest
	err := Unmarshal(e.Bytes(), &m, 0)
	if !errors.Is(err, ErrUnknownMultiOp) || CodeOf(err) != CodeMarshallingError {
		t.Fatalf("err = %v", err)
	}

	var r MultiResponse
	err = Unmarshal(mustHex(t, "00000009 00 00000000 ffffffff 01 ffffffff"), &r, 0)
	if !errors.Is(err, ErrUnknownMultiOp) {
		t.Fatalf("response err = %v", err)
	}
}

func TestMultiDoneEndsList(t *testing.T) {
	// ZooKeeper stops at the first header with done=true whatever its type.
	b := mustHex(t, "00000002 00 ffffffff 00000002 2f61 ffffffff 00000001 01 00000000 deadbeef")
	var m MultiRequest
	if err := Unmarshal(b, &m, 0); err != nil {
		t.Fatal(err)
	}
	want := []MultiOp{{Type: OpDelete, Record: &DeleteRequest{Path: "/a", Version: -1}}}
	if !reflect.DeepEqual(m.Ops, want) {
		t.Fatalf("got %+v", m.Ops)
	}
}

func TestMultiDecodeMissingTerminator(t *testing.T) {
	b := Marshal(sampleMultiRequest())
	var m MultiRequest
	if err := Unmarshal(b[:len(b)-9], &m, 0); !errors.Is(err, ErrShortBuffer) {
		t.Fatalf("err = %v", err)
	}
}

func TestMultiKind(t *testing.T) {
	w := MultiOp{Type: OpSetData, Record: &SetDataRequest{}}
	r := MultiOp{Type: OpGetData, Record: &GetDataRequest{}}
	c := MultiOp{Type: OpGetChildren, Record: &GetChildrenRequest{}}
	cases := []struct {
		ops           []MultiOp
		isRead, mixed bool
	}{
		{nil, false, false},
		{[]MultiOp{w}, false, false},
		{[]MultiOp{w, w}, false, false},
		{[]MultiOp{r, c}, true, false},
		{[]MultiOp{r, w}, true, true},
		{[]MultiOp{w, c}, false, true},
		{[]MultiOp{w, w, c, w}, false, true},
	}
	for i, tc := range cases {
		m := MultiRequest{Ops: tc.ops}
		isRead, mixed := m.Kind()
		if isRead != tc.isRead || mixed != tc.mixed {
			t.Errorf("case %d: Kind() = %v, %v; want %v, %v", i, isRead, mixed, tc.isRead, tc.mixed)
		}
	}
}

func TestMultiDecodeResetsOps(t *testing.T) {
	m := sampleMultiRequest()
	if err := Unmarshal(Marshal(&MultiRequest{}), m, 0); err != nil {
		t.Fatal(err)
	}
	if m.Ops != nil {
		t.Fatalf("stale ops: %+v", m.Ops)
	}
}
