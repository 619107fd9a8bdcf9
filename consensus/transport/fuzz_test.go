package transport

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"runtime"
	"testing"

	"github.com/hashicorp/raft"
)

// fuzzMaxFrame is FuzzDecode's frame limit.
const fuzzMaxFrame = 1 << 20

// allocated is the heap allocated so far, in bytes.
func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// newResponse returns an empty response for requests of type typ.
func newResponse(typ byte) any {
	switch typ {
	case typeAppendEntries:
		return new(raft.AppendEntriesResponse)
	case typeRequestVote:
		return new(raft.RequestVoteResponse)
	case typeRequestPreVote:
		return new(raft.RequestPreVoteResponse)
	case typeInstallSnapshot:
		return new(raft.InstallSnapshotResponse)
	case typeTimeoutNow:
		return new(raft.TimeoutNowResponse)
	}
	return nil
}

// bombs are frames whose lengths and counts claim far more than they
// hold.
func bombs() [][]byte {
	var out [][]byte
	// AppendEntries with 2^31 entries and a body of a few bytes.
	b, start := beginFrame(nil, typeAppendEntries)
	b = appendHeader(b, &raft.RPCHeader{})
	b = appendU64(b, 1)
	b = appendBytes(b, nil)
	b = appendU64(b, 0)
	b = appendU64(b, 0)
	b = appendU64(b, 0)
	b = binary.BigEndian.AppendUint32(b, 1<<31+1)
	b = append(b, 1, 2, 3)
	endFrame(b, start, fuzzMaxFrame)
	out = append(out, b)
	// A header whose ID claims 4 GiB.
	b, start = beginFrame(nil, typeRequestVote)
	b = appendU64(b, 3)
	b = binary.BigEndian.AppendUint32(b, 0xffffffff)
	b = append(b, "short"...)
	endFrame(b, start, fuzzMaxFrame)
	out = append(out, b)
	// A frame of 4 GiB - 1, and one of the limit that holds 3 bytes.
	out = append(out, []byte{0xff, 0xff, 0xff, 0xff, typeAppendEntries, 0})
	b = binary.BigEndian.AppendUint32(nil, fuzzMaxFrame)
	out = append(out, append(b, typeAppendEntries, 1, 2, 3))
	// A response whose error claims 2 GiB.
	b, start = beginFrame(nil, typeAppendEntries|responseBit)
	b = binary.BigEndian.AppendUint32(b, 1<<31)
	endFrame(b, start, fuzzMaxFrame)
	out = append(out, b)
	return out
}

// FuzzDecode feeds arbitrary streams of frames to the frame reader and
// the decoders. They must not panic; they must allocate in proportion to
// the bytes that arrived, whatever the lengths and counts say; a request
// that decodes must encode back to the same bytes, and a response to an
// equal value.
func FuzzDecode(f *testing.F) {
	for _, req := range sampleRequests() {
		b, _ := appendRequest(nil, req, DefaultMaxFrame)
		f.Add(b)
	}
	for _, resp := range sampleResponses() {
		for typ := typeAppendEntries; typ <= typeRequestPreVote; typ++ {
			b, _ := appendResponse(nil, typ, raft.RPCResponse{Response: resp}, DefaultMaxFrame)
			f.Add(b)
		}
	}
	for _, b := range bombs() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		var hdr [frameHeader]byte
		for {
			typ, n, err := readHeader(r, &hdr, fuzzMaxFrame)
			if err != nil {
				return
			}
			before := allocated()
			arrived := r.Len()
			body, err := readBody(r, n, nil, false)
			if a := allocated() - before; a > uint64(3*min(n, arrived))+frameChunk+4096 {
				t.Fatalf("reading a body of %d bytes (%d arrived) allocated %d", n, arrived, a)
			}
			if err != nil {
				return
			}
			before = allocated()
			if typ&responseBit == 0 {
				req, err := decodeRequest(typ, body)
				if a := allocated() - before; a > uint64(3*len(body))+4096 {
					t.Fatalf("decoding a request of %d bytes allocated %d", len(body), a)
				}
				if err != nil {
					continue
				}
				again, err := appendRequest(nil, req, fuzzMaxFrame)
				if err != nil || !bytes.Equal(again[frameHeader:], body) || again[4] != typ {
					t.Fatalf("request %s re-encodes differently (%v):\n%x\n%x", show(req), err, body, again[frameHeader:])
				}
				continue
			}
			want := typ &^ responseBit
			resp := newResponse(want)
			if resp == nil {
				continue
			}
			remote, err := decodeResponse(want, typ, body, resp, new(headerCache))
			if a := allocated() - before; a > uint64(3*len(body))+4096 {
				t.Fatalf("decoding a response of %d bytes allocated %d", len(body), a)
			}
			if err != nil {
				continue
			}
			again, err := appendResponse(nil, want, raft.RPCResponse{Response: resp, Error: remote}, fuzzMaxFrame)
			if err != nil {
				t.Fatal(err)
			}
			resp2 := newResponse(want)
			remote2, err := decodeResponse(want, again[4], again[frameHeader:], resp2, new(headerCache))
			if err != nil || !reflect.DeepEqual(resp, resp2) || (remote == nil) != (remote2 == nil) {
				t.Fatalf("response %+v (error %v) came back as %+v (error %v, %v)", resp, remote, resp2, remote2, err)
			}
		}
	})
}

// TestDecodeBombs: claimed counts and lengths are refused before any
// allocation they would size.
func TestDecodeBombs(t *testing.T) {
	for i, b := range bombs() {
		var hdr [frameHeader]byte
		r := bytes.NewReader(b)
		before := allocated()
		typ, n, err := readHeader(r, &hdr, fuzzMaxFrame)
		if err == nil {
			var body []byte
			body, err = readBody(r, n, nil, false)
			if err == nil {
				if typ&responseBit == 0 {
					_, err = decodeRequest(typ, body)
				} else {
					_, err = decodeResponse(typ&^responseBit, typ, body, newResponse(typ&^responseBit), new(headerCache))
				}
			}
		}
		a := allocated() - before
		if err == nil {
			t.Errorf("bomb %d decoded", i)
		}
		if a > frameChunk+4096 {
			t.Errorf("bomb %d (%d bytes) allocated %d bytes", i, len(b), a)
		}
		t.Logf("bomb %d: %d bytes, %d allocated: %v", i, len(b), a, err)
	}
}
