package wire

import "testing"

func BenchmarkEncodeGetDataResponse(b *testing.B) {
	r := &GetDataResponse{Data: make([]byte, 256), Stat: sampleStat}
	hdr := &ReplyHeader{Xid: 1, Zxid: 2}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendReply(buf[:0], hdr, r)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDecodeCreateRequest(b *testing.B) {
	in := Marshal(&CreateRequest{Path: "/app/locks/lock-", Data: make([]byte, 64), ACL: OpenACLUnsafe, Flags: FlagEphemeralSequential})
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var r CreateRequest
		if err := Unmarshal(in, &r, 0); err != nil {
			b.Fatal(err)
		}
	}
}
