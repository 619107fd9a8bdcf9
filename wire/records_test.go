package wire

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sampleStat is a Stat with every field distinct and non-zero.
var sampleStat = Stat{
	Czxid: 0x100000001, Mzxid: 0x100000002, Ctime: 1700000000123, Mtime: 1700000000456,
	Version: 3, Cversion: -7, Aversion: 1, EphemeralOwner: 0x7fff0000aaaa, DataLength: 11,
	NumChildren: 2, Pzxid: 0x100000003,
}

var sampleACL = []ACL{
	{Perms: PermAll, ID: AnyoneID},
	{Perms: PermRead | PermAdmin, ID: Id{Scheme: "digest", ID: "bob:hash="}},
}

// rtCase is one round-trip case: a record with values and a factory for an
// empty record of the same type.
type rtCase struct {
	name string
	rec  Record
	new  func() Record
	// optionalTail is the number of trailing bytes whose absence still
	// decodes (the optional readOnly byte); noShort skips prefix tests.
	optionalTail int
	noShort      bool
}

func rt[T any, P interface {
	*T
	Record
}](name string, v P) rtCase {
	return rtCase{name: name, rec: v, new: func() Record { return P(new(T)) }}
}

func roundTripCases() []rtCase {
	passwd := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	cs := []rtCase{
		rt("ConnectRequest/noRO", &ConnectRequest{LastZxidSeen: 0x200000005, TimeOut: 30000, SessionID: 0x1234, Passwd: passwd}),
		rt("ConnectRequest/nilPasswd", &ConnectRequest{TimeOut: 4000}),
		rt("ConnectResponse/noRO", &ConnectResponse{TimeOut: 6000, SessionID: -5, Passwd: passwd}),
		rt("ConnectResponse/emptyPasswd", &ConnectResponse{Passwd: []byte{}}),
		rt("CreateRequest", &CreateRequest{Path: "/a/b-", Data: []byte("hello"), ACL: sampleACL, Flags: FlagEphemeralSequential}),
		rt("CreateRequest/nil", &CreateRequest{Path: "/x"}),
		rt("CreateRequest/empty", &CreateRequest{Path: "/x", Data: []byte{}, ACL: []ACL{}}),
		rt("CreateTTLRequest", &CreateTTLRequest{Path: "/ttl", Data: []byte{0, 1}, ACL: OpenACLUnsafe, Flags: FlagPersistentWithTTL, TTL: 60000}),
		rt("CreateResponse", &CreateResponse{Path: "/a/b-0000000001"}),
		rt("Create2Response", &Create2Response{Path: "/a", Stat: sampleStat}),
		rt("DeleteRequest", &DeleteRequest{Path: "/a", Version: -1}),
		rt("PathWatchRequest", &PathWatchRequest{Path: "/w", Watch: true}),
		rt("GetDataRequest", &GetDataRequest{Path: "/w"}),
		rt("PathRequest", &PathRequest{Path: "/p"}),
		rt("PathResponse", &PathResponse{Path: "/p"}),
		rt("StatResponse", &StatResponse{Stat: sampleStat}),
		rt("GetDataResponse", &GetDataResponse{Data: []byte("data"), Stat: sampleStat}),
		rt("GetDataResponse/nil", &GetDataResponse{Stat: sampleStat}),
		rt("GetDataResponse/empty", &GetDataResponse{Data: []byte{}}),
		rt("SetDataRequest", &SetDataRequest{Path: "/s", Data: []byte("v2"), Version: 4}),
		rt("GetACLResponse", &GetACLResponse{ACL: sampleACL, Stat: sampleStat}),
		rt("GetACLResponse/nil", &GetACLResponse{}),
		rt("SetACLRequest", &SetACLRequest{Path: "/s", ACL: sampleACL, Version: 2}),
		rt("GetChildrenResponse", &GetChildrenResponse{Children: []string{"a", "", "ccc"}}),
		rt("GetChildrenResponse/nil", &GetChildrenResponse{}),
		rt("GetChildrenResponse/empty", &GetChildrenResponse{Children: []string{}}),
		rt("GetChildren2Response", &GetChildren2Response{Children: []string{"x"}, Stat: sampleStat}),
		rt("CheckVersionRequest", &CheckVersionRequest{Path: "/c", Version: 9}),
		rt("ReconfigRequest", &ReconfigRequest{JoiningServers: "server.4=h:1:2;3", LeavingServers: "1,2", NewMembers: "", CurConfigID: -1}),
		rt("WatchesRequest", &WatchesRequest{Path: "/w", Type: WatcherAny}),
		rt("AuthPacket", &AuthPacket{Scheme: "digest", Auth: []byte("u:p")}),
		rt("AuthPacket/nil", &AuthPacket{Type: 1, Scheme: "x"}),
		rt("SetWatches", &SetWatches{RelativeZxid: 77, DataWatches: []string{"/a", "/b"}, ExistWatches: []string{}, ChildWatches: nil}),
		rt("SetWatches2", &SetWatches2{RelativeZxid: 78, DataWatches: []string{"/a"}, ExistWatches: []string{"/e"}, ChildWatches: []string{"/c"},
			PersistentWatches: []string{"/p"}, PersistentRecursiveWatches: []string{"/r", "/r2"}}),
		rt("SetWatches2/nil", &SetWatches2{}),
		rt("SASLRequest", &SASLRequest{Token: []byte{0xde, 0xad}}),
		rt("SASLResponse", &SASLResponse{Token: []byte{}}),
		rt("SASLResponse/nil", &SASLResponse{}),
		rt("GetEphemeralsRequest", &GetEphemeralsRequest{PrefixPath: "/app"}),
		rt("GetEphemeralsResponse", &GetEphemeralsResponse{Ephemerals: []string{"/app/e1", "/app/e2"}}),
		rt("GetAllChildrenNumberResponse", &GetAllChildrenNumberResponse{TotalNumber: 12345}),
		rt("AddWatchRequest", &AddWatchRequest{Path: "/aw", Mode: AddWatchPersistentRecursive}),
		rt("ErrorResponse", &ErrorResponse{Err: CodeNoNode}),
		rt("ClientInfo", &ClientInfo{AuthScheme: "ip", User: "127.0.0.1"}),
		rt("WhoAmIResponse", &WhoAmIResponse{ClientInfo: []ClientInfo{{AuthScheme: "ip", User: "10.0.0.1"}, {AuthScheme: "digest", User: "bob"}}}),
		rt("WhoAmIResponse/nil", &WhoAmIResponse{}),
		rt("WhoAmIResponse/empty", &WhoAmIResponse{ClientInfo: []ClientInfo{}}),
		rt("Stat", &sampleStat),
		rt("Id", &Id{Scheme: "world", ID: "anyone"}),
		rt("ACL", &ACL{Perms: PermCreate, ID: Id{Scheme: "ip", ID: "10.0.0.0/8"}}),
		rt("RequestHeader", &RequestHeader{Xid: 17, Type: OpGetChildren2}),
		rt("ReplyHeader", &ReplyHeader{Xid: -1, Zxid: 0x300000001, Err: CodeNoAuth}),
		rt("WatcherEvent", &WatcherEvent{Type: EventNodeDataChanged, State: StateSyncConnected, Path: "/w"}),
		rt("MultiHeader", &MultiHeader{Type: OpSetData, Err: -1}),
		rt("MultiRequest", sampleMultiRequest()),
		rt("MultiRequest/read", &MultiRequest{Ops: []MultiOp{
			{Type: OpGetData, Record: &GetDataRequest{Path: "/a"}},
			{Type: OpGetChildren, Record: &GetChildrenRequest{Path: "/b", Watch: true}},
		}}),
		rt("MultiRequest/empty", &MultiRequest{}),
		rt("MultiResponse", sampleMultiResponse()),
		rt("MultiResponse/failed", &MultiResponse{Results: []MultiResult{
			{Type: OpError, Err: CodeOK}, {Type: OpError, Err: CodeNoNode}, {Type: OpError, Err: CodeRuntimeInconsistency},
		}}),
		rt("MultiResponse/empty", &MultiResponse{}),
	}
	ro := rt("ConnectRequest/RO", &ConnectRequest{LastZxidSeen: 9, TimeOut: 10000, SessionID: 0x55, Passwd: passwd, ReadOnly: true, HasReadOnly: true})
	ro.optionalTail = 1
	roFalse := rt("ConnectRequest/ROfalse", &ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16), HasReadOnly: true})
	roFalse.optionalTail = 1
	resp := rt("ConnectResponse/RO", &ConnectResponse{TimeOut: 10000, SessionID: 0x55, Passwd: passwd, ReadOnly: true, HasReadOnly: true})
	resp.optionalTail = 1
	dc := rt("DeleteContainerRequest", &DeleteContainerRequest{Path: "/container"})
	dc.noShort = true
	return append(cs, ro, roFalse, resp, dc)
}

func sampleMultiRequest() *MultiRequest {
	return &MultiRequest{Ops: []MultiOp{
		{Type: OpCreate, Record: &CreateRequest{Path: "/m", Data: []byte("d"), ACL: OpenACLUnsafe, Flags: FlagPersistent}},
		{Type: OpCreate2, Record: &CreateRequest{Path: "/m/c", ACL: OpenACLUnsafe}},
		{Type: OpCreateContainer, Record: &CreateRequest{Path: "/ctr", Data: []byte{}, ACL: OpenACLUnsafe, Flags: FlagContainer}},
		{Type: OpCreateTTL, Record: &CreateTTLRequest{Path: "/t", ACL: OpenACLUnsafe, Flags: FlagPersistentWithTTL, TTL: 1000}},
		{Type: OpSetData, Record: &SetDataRequest{Path: "/m", Data: []byte("e"), Version: 0}},
		{Type: OpCheck, Record: &CheckVersionRequest{Path: "/m", Version: 1}},
		{Type: OpDelete, Record: &DeleteRequest{Path: "/m/c", Version: -1}},
	}}
}

func sampleMultiResponse() *MultiResponse {
	return &MultiResponse{Results: []MultiResult{
		{Type: OpCreate, Path: "/m"},
		{Type: OpCreate2, Path: "/m/c0000000001", Stat: sampleStat},
		{Type: OpSetData, Stat: sampleStat},
		{Type: OpCheck},
		{Type: OpDelete},
		{Type: OpGetData, Data: []byte("x"), Stat: sampleStat},
		{Type: OpGetData, Stat: sampleStat},
		{Type: OpGetChildren, Children: []string{"a", "b"}},
		{Type: OpGetChildren},
		{Type: OpError, Err: CodeNoNode},
	}}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range roundTripCases() {
		t.Run(c.name, func(t *testing.T) {
			b := Marshal(c.rec)
			got := c.new()
			if err := Unmarshal(b, got, 0); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(c.rec, got) {
				t.Fatalf("round trip mismatch:\n want %#v\n got  %#v", c.rec, got)
			}
			// Decoding must consume exactly what was encoded.
			d := NewDecoder(b, 0)
			c.new().Decode(d)
			if d.Remaining() != 0 {
				t.Fatalf("%d bytes left over", d.Remaining())
			}
		})
	}
}

func TestShortBuffers(t *testing.T) {
	for _, c := range roundTripCases() {
		if c.noShort {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			b := Marshal(c.rec)
			for i := 0; i < len(b)-c.optionalTail; i++ {
				if err := Unmarshal(b[:i:i], c.new(), 0); err == nil {
					t.Fatalf("prefix of %d/%d bytes decoded without error", i, len(b))
				}
			}
		})
	}
}

func TestConnectRequestReadOnlyByte(t *testing.T) {
	with := Marshal(&ConnectRequest{TimeOut: 1, Passwd: make([]byte, 16), ReadOnly: true, HasReadOnly: true})
	without := Marshal(&ConnectRequest{TimeOut: 1, Passwd: make([]byte, 16), ReadOnly: true})
	if len(with) != 45 || len(without) != 44 {
		t.Fatalf("lengths %d/%d, want 45/44", len(with), len(without))
	}
	var r ConnectRequest
	if err := Unmarshal(without, &r, 0); err != nil || r.HasReadOnly || r.ReadOnly {
		t.Fatalf("without byte: %+v %v", r, err)
	}
	// Any non-zero byte reads as true; trailing garbage after it is ignored.
	in := append(append([]byte{}, without...), 7, 9, 9)
	if err := Unmarshal(in, &r, 0); err != nil || !r.HasReadOnly || !r.ReadOnly {
		t.Fatalf("with byte: %+v %v", r, err)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGoldenBytes(t *testing.T) {
	cases := []struct {
		name string
		rec  Record
		hex  string
		size int
	}{
		{"ConnectRequest", &ConnectRequest{ProtocolVersion: 0, LastZxidSeen: 0x0102030405060708, TimeOut: 30000,
			SessionID: 0x1122334455667788, Passwd: []byte{0xaa, 0xbb}, ReadOnly: true, HasReadOnly: true},
			"00000000 0102030405060708 00007530 1122334455667788 00000002 aabb 01", 31},
		{"ConnectRequest/goZK", &ConnectRequest{TimeOut: 0x10, Passwd: nil},
			"00000000 0000000000000000 00000010 0000000000000000 ffffffff", 28},
		{"ReplyHeader", &ReplyHeader{Xid: 5, Zxid: 0x100000002, Err: CodeNoNode},
			"00000005 0000000100000002 ffffff9b", 16},
		{"Stat", &Stat{Czxid: 1, Mzxid: 2, Ctime: 3, Mtime: 4, Version: 5, Cversion: 6, Aversion: 7,
			EphemeralOwner: 8, DataLength: 9, NumChildren: 10, Pzxid: 11},
			"0000000000000001 0000000000000002 0000000000000003 0000000000000004 00000005 00000006 00000007 " +
				"0000000000000008 00000009 0000000a 000000000000000b", 68},
		{"CreateRequest", &CreateRequest{Path: "/a", Data: []byte("x"), ACL: OpenACLUnsafe, Flags: 1},
			"00000002 2f61 00000001 78 00000001 0000001f 00000005 776f726c64 00000006 616e796f6e65 00000001", 0},
		{"GetChildrenResponse/nil", &GetChildrenResponse{}, "ffffffff", 4},
		{"DeleteContainerRequest", &DeleteContainerRequest{Path: "/c"}, "2f63", 2},
	}
	for _, c := range cases {
		got := Marshal(c.rec)
		want := mustHex(t, c.hex)
		if c.size != 0 && len(want) != c.size {
			t.Fatalf("%s: bad test, golden is %d bytes", c.name, len(want))
		}
		if hex.EncodeToString(got) != hex.EncodeToString(want) {
			t.Errorf("%s:\n got  %x\n want %x", c.name, got, want)
		}
	}
}

// allOps is every opcode of ZooKeeper 3.8 with whether a client may send it
// as a top-level request and whether that request has a body.
var allOps = []struct {
	op       Op
	valid    bool
	hasBody  bool
	name     string
	writeReq bool
}{
	{OpNotification, false, false, "notification", false},
	{OpCreate, true, true, "create", true},
	{OpDelete, true, true, "delete", true},
	{OpExists, true, true, "exists", false},
	{OpGetData, true, true, "getData", false},
	{OpSetData, true, true, "setData", true},
	{OpGetACL, true, true, "getACL", false},
	{OpSetACL, true, true, "setACL", true},
	{OpGetChildren, true, true, "getChildren", false},
	{OpSync, true, true, "sync", false},
	{OpPing, true, false, "ping", false},
	{OpGetChildren2, true, true, "getChildren2", false},
	{OpCheck, false, false, "check", true},
	{OpMulti, true, true, "multi", true},
	{OpCreate2, true, true, "create2", true},
	{OpReconfig, true, true, "reconfig", true},
	{OpCheckWatches, true, true, "checkWatches", false},
	{OpRemoveWatches, true, true, "removeWatches", false},
	{OpCreateContainer, true, true, "createContainer", true},
	{OpDeleteContainer, true, true, "deleteContainer", true},
	{OpCreateTTL, true, true, "createTTL", true},
	{OpMultiRead, true, true, "multiRead", false},
	{OpAuth, true, true, "auth", false},
	{OpSetWatches, true, true, "setWatches", false},
	{OpSASL, true, true, "sasl", false},
	{OpGetEphemerals, true, true, "getEphemerals", false},
	{OpGetAllChildrenNumber, true, true, "getAllChildrenNumber", false},
	{OpSetWatches2, true, true, "setWatches2", false},
	{OpAddWatch, true, true, "addWatch", false},
	{OpWhoAmI, true, false, "whoAmI", false},
	{OpCreateSession, false, false, "createSession", true},
	{OpCloseSession, true, false, "closeSession", true},
	{OpError, false, false, "error", false},
}

func TestRequestForOpCoversEveryOpcode(t *testing.T) {
	for _, c := range allOps {
		rec, ok := RequestForOp(c.op)
		if ok != c.valid {
			t.Errorf("%v: ok=%v, want %v", c.op, ok, c.valid)
		}
		if (rec != nil) != c.hasBody {
			t.Errorf("%v: record %T, want body=%v", c.op, rec, c.hasBody)
		}
		if rec != nil {
			// A fresh record must survive a round trip of its zero value.
			b := Marshal(rec)
			again, _ := RequestForOp(c.op)
			if err := Unmarshal(b, again, 0); err != nil {
				t.Errorf("%v: zero record does not round trip: %v", c.op, err)
			}
		}
		if got := c.op.String(); got != c.name {
			t.Errorf("String(%d) = %q, want %q", int32(c.op), got, c.name)
		}
		if IsWrite(c.op) != c.writeReq {
			t.Errorf("IsWrite(%v) = %v", c.op, !c.writeReq)
		}
	}
	for _, op := range []Op{10, 23, 99, 108, -2, -12, 1 << 20} {
		if rec, ok := RequestForOp(op); ok || rec != nil {
			t.Errorf("RequestForOp(%d) = %T, %v; want nil, false", int32(op), rec, ok)
		}
		if want := fmt.Sprintf("op(%d)", int32(op)); op.String() != want {
			t.Errorf("String(%d) = %q", int32(op), op.String())
		}
	}
}

func TestRequestForOpTypes(t *testing.T) {
	want := map[Op]Record{
		OpCreate: &CreateRequest{}, OpCreate2: &CreateRequest{}, OpCreateContainer: &CreateRequest{},
		OpCreateTTL: &CreateTTLRequest{}, OpDelete: &DeleteRequest{}, OpExists: &ExistsRequest{},
		OpGetData: &GetDataRequest{}, OpSetData: &SetDataRequest{}, OpGetACL: &GetACLRequest{},
		OpSetACL: &SetACLRequest{}, OpGetChildren: &GetChildrenRequest{}, OpSync: &SyncRequest{},
		OpGetChildren2: &GetChildren2Request{}, OpMulti: &MultiRequest{}, OpReconfig: &ReconfigRequest{},
		OpCheckWatches: &CheckWatchesRequest{}, OpRemoveWatches: &RemoveWatchesRequest{},
		OpDeleteContainer: &DeleteContainerRequest{}, OpMultiRead: &MultiRequest{}, OpAuth: &AuthPacket{},
		OpSetWatches: &SetWatches{}, OpSASL: &SASLRequest{}, OpGetEphemerals: &GetEphemeralsRequest{},
		OpGetAllChildrenNumber: &GetAllChildrenNumberRequest{}, OpSetWatches2: &SetWatches2{},
		OpAddWatch: &AddWatchRequest{},
	}
	for op, w := range want {
		got, _ := RequestForOp(op)
		if reflect.TypeOf(got) != reflect.TypeOf(w) {
			t.Errorf("%v: got %T, want %T", op, got, w)
		}
	}
}

func TestCodeOf(t *testing.T) {
	cases := []struct {
		err  error
		want Code
	}{
		{nil, CodeOK},
		{CodeNoNode, CodeNoNode},
		{fmt.Errorf("wrapped: %w", CodeBadVersion), CodeBadVersion},
		{ErrShortBuffer, CodeMarshallingError},
		{ErrBadLength, CodeMarshallingError},
		{ErrUnknownMultiOp, CodeMarshallingError},
		{fmt.Errorf("multi: %w", ErrUnknownMultiOp), CodeMarshallingError},
		{errors.New("boom"), CodeSystemError},
	}
	for _, c := range cases {
		if got := CodeOf(c.err); got != c.want {
			t.Errorf("CodeOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestDecoderStickyError(t *testing.T) {
	d := NewDecoder([]byte{0, 0, 0, 5, 'a'}, 0)
	if s := d.String(); s != "" || !errors.Is(d.Err(), ErrBadLength) {
		t.Fatalf("String = %q, err %v", s, d.Err())
	}
	if v := d.Int(); v != 0 || !errors.Is(d.Err(), ErrBadLength) {
		t.Fatalf("after error: %d %v", v, d.Err())
	}
	d = NewDecoder([]byte{0, 0, 0, 3, 'a', 'b', 'c'}, 2)
	if _ = d.String(); !errors.Is(d.Err(), ErrBadLength) {
		t.Fatalf("max not enforced: %v", d.Err())
	}
}

// TestDecodedACLSharesCommonStrings: world:anyone decodes with one
// allocation (the slice), its scheme and id being shared strings, and a
// scheme outside the common ones still decodes as sent.
func TestDecodedACLSharesCommonStrings(t *testing.T) {
	var e Encoder
	EncodeACLs(&e, []ACL{{Perms: PermAll, ID: AnyoneID}})
	b := e.Bytes()
	var got []ACL
	allocs := testing.AllocsPerRun(100, func() { got = DecodeACLs(NewDecoder(b, 0)) })
	if allocs > 2 { // the decoder and the slice
		t.Errorf("world:anyone decoded with %v allocations", allocs)
	}
	if len(got) != 1 || got[0].ID != AnyoneID || got[0].Perms != PermAll {
		t.Fatalf("decoded %+v", got)
	}
	e = Encoder{}
	other := []ACL{{Perms: PermRead, ID: Id{Scheme: "worlds", ID: "any"}}}
	EncodeACLs(&e, other)
	if got := DecodeACLs(NewDecoder(e.Bytes(), 0)); len(got) != 1 || got[0] != other[0] {
		t.Fatalf("decoded %+v, want %+v", got, other)
	}
}
