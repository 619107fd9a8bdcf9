package transport

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

func hdr(id string) raft.RPCHeader {
	return raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(id), Addr: []byte("127.0.0.1:" + id)}
}

// sampleRequests has every request type with every field set, and a few
// edge cases (nil against empty, zero times, no entries).
func sampleRequests() []any {
	now := time.Now().Round(0) // no monotonic reading: it isn't sent
	return []any{
		&raft.AppendEntriesRequest{
			RPCHeader: hdr("1"), Term: 7, Leader: []byte("leader"),
			PrevLogEntry: 100, PrevLogTerm: 6, LeaderCommitIndex: 99,
			Entries: []*raft.Log{
				{Index: 101, Term: 7, Type: raft.LogCommand, Data: []byte("hello"), Extensions: []byte("ext"), AppendedAt: now},
				{Index: 102, Term: 7, Type: raft.LogNoop},
				{Index: 103, Term: 7, Type: raft.LogConfiguration, Data: []byte{}, Extensions: []byte{}, AppendedAt: time.Unix(-5, 999999999)},
				{Index: ^uint64(0), Term: ^uint64(0), Type: raft.LogType(255), Data: bytes.Repeat([]byte{0xff}, 300), AppendedAt: time.Unix(1<<40, 1).UTC()},
			},
		},
		&raft.AppendEntriesRequest{RPCHeader: hdr("2"), Term: 1, Entries: []*raft.Log{}},
		&raft.AppendEntriesRequest{},
		&raft.RequestVoteRequest{RPCHeader: hdr("3"), Term: 9, Candidate: []byte("cand"), LastLogIndex: 55, LastLogTerm: 8, LeadershipTransfer: true},
		&raft.RequestVoteRequest{},
		&raft.RequestPreVoteRequest{RPCHeader: hdr("4"), Term: 10, LastLogIndex: 56, LastLogTerm: 9},
		&raft.InstallSnapshotRequest{
			RPCHeader: hdr("5"), SnapshotVersion: raft.SnapshotVersionMax, Term: 11, Leader: []byte("L"),
			LastLogIndex: 1000, LastLogTerm: 10, Peers: []byte("peers"), Configuration: []byte("conf"),
			ConfigurationIndex: 900, Size: 5 << 20,
		},
		&raft.InstallSnapshotRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: -3, ID: []byte{}}, SnapshotVersion: -1},
		&raft.TimeoutNowRequest{RPCHeader: hdr("6")},
		&raft.TimeoutNowRequest{},
	}
}

func sampleResponses() []any {
	return []any{
		&raft.AppendEntriesResponse{RPCHeader: hdr("1"), Term: 7, LastLog: 103, Success: true, NoRetryBackoff: true},
		&raft.AppendEntriesResponse{},
		&raft.RequestVoteResponse{RPCHeader: hdr("3"), Term: 9, Peers: []byte("old peers"), Granted: true},
		&raft.RequestVoteResponse{Peers: []byte{}},
		&raft.RequestPreVoteResponse{RPCHeader: hdr("4"), Term: 10, Granted: true},
		&raft.InstallSnapshotResponse{RPCHeader: hdr("5"), Term: 11, Success: true},
		&raft.TimeoutNowResponse{RPCHeader: hdr("6")},
		&raft.TimeoutNowResponse{},
	}
}

// frameOf splits an encoded frame into its type and body.
func frameOf(t *testing.T, b []byte) (byte, []byte) {
	t.Helper()
	var h [frameHeader]byte
	typ, n, err := readHeader(bytes.NewReader(b), &h, DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(b)-frameHeader {
		t.Fatalf("frame length %d, have %d bytes", n, len(b)-frameHeader)
	}
	return typ, b[frameHeader:]
}

func TestRequestRoundTrip(t *testing.T) {
	for _, req := range sampleRequests() {
		b, err := appendRequest(nil, req, DefaultMaxFrame)
		if err != nil {
			t.Fatal(err)
		}
		typ, body := frameOf(t, b)
		got, err := decodeRequest(typ, body)
		if err != nil {
			t.Fatalf("%T: %v", req, err)
		}
		if !reflect.DeepEqual(got, normalised(req)) {
			t.Errorf("%T round trip:\n sent %s\n got  %s", req, show(req), show(got))
		}
		// Truncated anywhere, it fails cleanly.
		for i := range body {
			if _, err := decodeRequest(typ, body[:i]); err == nil {
				t.Fatalf("%T truncated to %d of %d bytes decoded", req, i, len(body))
			}
		}
		if _, err := decodeRequest(typ, append(body[:len(body):len(body)], 0)); !errors.Is(err, errTrailing) {
			t.Fatalf("%T with a trailing byte: %v", req, err)
		}
	}
}

// normalised returns req with its entries' AppendedAt as decoding makes
// them: the same instant, in the local time zone (or the zero time).
func normalised(req any) any {
	ae, ok := req.(*raft.AppendEntriesRequest)
	if !ok || ae.Entries == nil {
		return req
	}
	c := *ae
	c.Entries = make([]*raft.Log, len(ae.Entries))
	for i, e := range ae.Entries {
		n := *e
		if !n.AppendedAt.IsZero() {
			n.AppendedAt = time.Unix(e.AppendedAt.Unix(), int64(e.AppendedAt.Nanosecond()))
		}
		c.Entries[i] = &n
	}
	return &c
}

// show prints a message with its entries.
func show(m any) string {
	ae, ok := m.(*raft.AppendEntriesRequest)
	if !ok {
		return fmt.Sprintf("%+v", m)
	}
	s := fmt.Sprintf("%+v", *ae)
	for _, e := range ae.Entries {
		s += fmt.Sprintf("\n   %+v", *e)
	}
	return s
}

func TestAppendedAtKeepsTheInstant(t *testing.T) {
	now := time.Now() // with a monotonic reading, which isn't sent
	req := &raft.AppendEntriesRequest{Entries: []*raft.Log{{AppendedAt: now}}}
	b, _ := appendRequest(nil, req, DefaultMaxFrame)
	typ, body := frameOf(t, b)
	got, err := decodeRequest(typ, body)
	if err != nil {
		t.Fatal(err)
	}
	if at := got.(*raft.AppendEntriesRequest).Entries[0].AppendedAt; !at.Equal(now) {
		t.Fatalf("AppendedAt %v, sent %v", at, now)
	}
}

func TestResponseRoundTrip(t *testing.T) {
	types := map[reflect.Type]byte{
		reflect.TypeOf(&raft.AppendEntriesResponse{}):   typeAppendEntries,
		reflect.TypeOf(&raft.RequestVoteResponse{}):     typeRequestVote,
		reflect.TypeOf(&raft.RequestPreVoteResponse{}):  typeRequestPreVote,
		reflect.TypeOf(&raft.InstallSnapshotResponse{}): typeInstallSnapshot,
		reflect.TypeOf(&raft.TimeoutNowResponse{}):      typeTimeoutNow,
	}
	for _, resp := range sampleResponses() {
		want := types[reflect.TypeOf(resp)]
		for _, remote := range []error{nil, errors.New("no can do")} {
			b, err := appendResponse(nil, want, raft.RPCResponse{Response: resp, Error: remote}, DefaultMaxFrame)
			if err != nil {
				t.Fatal(err)
			}
			typ, body := frameOf(t, b)
			got := reflect.New(reflect.TypeOf(resp).Elem()).Interface()
			var hc headerCache
			gotRemote, err := decodeResponse(want, typ, body, got, &hc)
			if err != nil {
				t.Fatalf("%T: %v", resp, err)
			}
			if !reflect.DeepEqual(got, resp) {
				t.Errorf("%T round trip:\n sent %+v\n got  %+v", resp, resp, got)
			}
			if (remote == nil) != (gotRemote == nil) || remote != nil && remote.Error() != gotRemote.Error() {
				t.Errorf("%T: error %v came back as %v", resp, remote, gotRemote)
			}
			// The decoded response doesn't alias the body.
			for i := range body {
				body[i] = 0xee
			}
			if !reflect.DeepEqual(got, resp) {
				t.Errorf("%T: decoded response aliases the frame body", resp)
			}
		}
	}
}

func TestResponseOfTheWrongType(t *testing.T) {
	for _, rr := range []raft.RPCResponse{
		{},
		{Response: &raft.RequestVoteResponse{Granted: true}},
		{Response: (*raft.AppendEntriesResponse)(nil)},
		{Error: errors.New("shutting down")},
	} {
		b, err := appendResponse(nil, typeAppendEntries, rr, DefaultMaxFrame)
		if err != nil {
			t.Fatal(err)
		}
		typ, body := frameOf(t, b)
		var resp raft.AppendEntriesResponse
		remote, err := decodeResponse(typeAppendEntries, typ, body, &resp, new(headerCache))
		if err != nil {
			t.Fatal(err)
		}
		if remote == nil || (rr.Error != nil && remote.Error() != rr.Error.Error()) {
			t.Errorf("response %+v: remote error %v", rr, remote)
		}
		if !reflect.DeepEqual(resp, raft.AppendEntriesResponse{}) {
			t.Errorf("response %+v decoded as %+v", rr, resp)
		}
	}
	// A response frame for another request is refused.
	b, _ := appendResponse(nil, typeRequestVote, raft.RPCResponse{Response: &raft.RequestVoteResponse{}}, DefaultMaxFrame)
	typ, body := frameOf(t, b)
	if _, err := decodeResponse(typeAppendEntries, typ, body, new(raft.AppendEntriesResponse), new(headerCache)); err == nil {
		t.Fatal("a RequestVote response was taken for an AppendEntries one")
	}
}

func TestHeaderCacheSharesRepeatedHeaders(t *testing.T) {
	var hc headerCache
	b, _ := appendResponse(nil, typeAppendEntries, raft.RPCResponse{Response: &raft.AppendEntriesResponse{RPCHeader: hdr("1")}}, DefaultMaxFrame)
	typ, body := frameOf(t, b)
	var r1, r2 raft.AppendEntriesResponse
	decodeResponse(typeAppendEntries, typ, body, &r1, &hc)
	decodeResponse(typeAppendEntries, typ, body, &r2, &hc)
	if &r1.ID[0] != &r2.ID[0] || &r1.Addr[0] != &r2.Addr[0] {
		t.Fatal("repeated header bytes were copied again")
	}
	b, _ = appendResponse(nil, typeAppendEntries, raft.RPCResponse{Response: &raft.AppendEntriesResponse{RPCHeader: hdr("2")}}, DefaultMaxFrame)
	typ, body = frameOf(t, b)
	var r3 raft.AppendEntriesResponse
	decodeResponse(typeAppendEntries, typ, body, &r3, &hc)
	if string(r3.ID) != "2" || string(r1.ID) != "1" {
		t.Fatalf("headers mixed up: %q %q", r1.ID, r3.ID)
	}
}

func TestFrameLimits(t *testing.T) {
	var h [frameHeader]byte
	for _, c := range []struct {
		in   []byte
		want error
	}{
		{[]byte{0xff, 0xff, 0xff, 0xff, 1}, ErrFrameTooLarge},
		{[]byte{0, 0, 0, 0, 1}, errEmptyFrame},
		{[]byte{0, 0, 0}, errors.New("unexpected EOF")},
	} {
		_, _, err := readHeader(bytes.NewReader(c.in), &h, 1<<20)
		if err == nil || (!errors.Is(err, c.want) && err.Error() != c.want.Error()) {
			t.Errorf("header %x: %v, want %v", c.in, err, c.want)
		}
	}
	big := &raft.AppendEntriesRequest{Entries: []*raft.Log{{Data: make([]byte, 2000)}}}
	if _, err := appendRequest(nil, big, 1000); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("oversized request: %v", err)
	}
}
