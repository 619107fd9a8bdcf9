package transport

import (
	"encoding/binary"
	"errors"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// The body encoding: integers are fixed-width big-endian (uint64 for
// Raft's counters and its int fields, which are stored as int64); a bool
// is one byte, 0 or 1; a byte string is a uint32 of its length plus one,
// 0 standing for nil, then its bytes; a time is its Unix seconds (int64)
// and nanoseconds (uint32). Fixed widths keep every log entry at least
// minEntry bytes long, which bounds what a count of entries can make the
// decoder allocate.

var (
	errShort    = errors.New("transport: frame body truncated")
	errTrailing = errors.New("transport: bytes after the message")
	errBool     = errors.New("transport: bool neither 0 nor 1")
	errCount    = errors.New("transport: more entries than the frame holds")
	errNano     = errors.New("transport: nanoseconds out of range")
)

// minEntry is the encoded size of a log entry with no data: index, term,
// type, time (8+4), and the two byte-string lengths.
const minEntry = 8 + 8 + 1 + 12 + 4 + 4

// zeroUnix is the Unix time of the zero time.Time, which decodes back to
// time.Time{} rather than to a time with a location.
var zeroUnix = time.Time{}.Unix()

func appendU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendBytes(b, p []byte) []byte {
	if p == nil {
		return append(b, 0, 0, 0, 0)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(p))+1)
	return append(b, p...)
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s))+1)
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	b = appendU64(b, uint64(t.Unix()))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func appendHeader(b []byte, h *raft.RPCHeader) []byte {
	b = appendU64(b, uint64(h.ProtocolVersion))
	b = appendBytes(b, h.ID)
	return appendBytes(b, h.Addr)
}

// decoder reads a body. Its first error is sticky: later reads return
// zero values. Byte strings are sub-slices of the body (see detach).
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail(errShort)
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) u64() uint64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint64(p)
}

func (d *decoder) u32() uint32 {
	p := d.take(4)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint32(p)
}

func (d *decoder) u8() byte {
	p := d.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

func (d *decoder) bool() bool {
	switch d.u8() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail(errBool)
	return false
}

// bytes reads a byte string; its length is checked against the bytes
// left before anything is taken.
func (d *decoder) bytes() []byte {
	n := d.u32()
	if n == 0 {
		return nil
	}
	return d.take(int(n - 1))
}

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) time() time.Time {
	sec, nsec := int64(d.u64()), d.u32()
	if nsec >= 1e9 {
		d.fail(errNano)
		return time.Time{}
	}
	if sec == zeroUnix && nsec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec))
}

func (d *decoder) header(h *raft.RPCHeader) {
	h.ProtocolVersion = raft.ProtocolVersion(int64(d.u64()))
	h.ID = d.bytes()
	h.Addr = d.bytes()
}

// done reports the first error, or errTrailing if bytes are left over.
func (d *decoder) done() error {
	if d.err == nil && len(d.b) > 0 {
		d.err = errTrailing
	}
	return d.err
}

// Requests.

func appendAppendEntriesRequest(b []byte, r *raft.AppendEntriesRequest) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, r.Term)
	b = appendBytes(b, r.Leader)
	b = appendU64(b, r.PrevLogEntry)
	b = appendU64(b, r.PrevLogTerm)
	b = appendU64(b, r.LeaderCommitIndex)
	if r.Entries == nil {
		return append(b, 0, 0, 0, 0)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(r.Entries))+1)
	var zero raft.Log
	for _, e := range r.Entries {
		if e == nil {
			e = &zero
		}
		b = appendU64(b, e.Index)
		b = appendU64(b, e.Term)
		b = append(b, byte(e.Type))
		b = appendTime(b, e.AppendedAt)
		b = appendBytes(b, e.Data)
		b = appendBytes(b, e.Extensions)
	}
	return b
}

func decodeAppendEntriesRequest(d *decoder, r *raft.AppendEntriesRequest) {
	d.header(&r.RPCHeader)
	r.Term = d.u64()
	r.Leader = d.bytes()
	r.PrevLogEntry = d.u64()
	r.PrevLogTerm = d.u64()
	r.LeaderCommitIndex = d.u64()
	count := d.u32()
	if count == 0 || d.err != nil {
		return
	}
	n := int(count - 1)
	if n > len(d.b)/minEntry {
		d.fail(errCount)
		return
	}
	logs := make([]raft.Log, n)
	r.Entries = make([]*raft.Log, n)
	for i := range logs {
		e := &logs[i]
		e.Index = d.u64()
		e.Term = d.u64()
		e.Type = raft.LogType(d.u8())
		e.AppendedAt = d.time()
		e.Data = d.bytes()
		e.Extensions = d.bytes()
		r.Entries[i] = e
	}
}

func appendRequestVoteRequest(b []byte, r *raft.RequestVoteRequest) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, r.Term)
	b = appendBytes(b, r.Candidate)
	b = appendU64(b, r.LastLogIndex)
	b = appendU64(b, r.LastLogTerm)
	return appendBool(b, r.LeadershipTransfer)
}

func decodeRequestVoteRequest(d *decoder, r *raft.RequestVoteRequest) {
	d.header(&r.RPCHeader)
	r.Term = d.u64()
	r.Candidate = d.bytes()
	r.LastLogIndex = d.u64()
	r.LastLogTerm = d.u64()
	r.LeadershipTransfer = d.bool()
}

func appendRequestPreVoteRequest(b []byte, r *raft.RequestPreVoteRequest) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, r.Term)
	b = appendU64(b, r.LastLogIndex)
	return appendU64(b, r.LastLogTerm)
}

func decodeRequestPreVoteRequest(d *decoder, r *raft.RequestPreVoteRequest) {
	d.header(&r.RPCHeader)
	r.Term = d.u64()
	r.LastLogIndex = d.u64()
	r.LastLogTerm = d.u64()
}

func appendInstallSnapshotRequest(b []byte, r *raft.InstallSnapshotRequest) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, uint64(r.SnapshotVersion))
	b = appendU64(b, r.Term)
	b = appendBytes(b, r.Leader)
	b = appendU64(b, r.LastLogIndex)
	b = appendU64(b, r.LastLogTerm)
	b = appendBytes(b, r.Peers)
	b = appendBytes(b, r.Configuration)
	b = appendU64(b, r.ConfigurationIndex)
	return appendU64(b, uint64(r.Size))
}

func decodeInstallSnapshotRequest(d *decoder, r *raft.InstallSnapshotRequest) {
	d.header(&r.RPCHeader)
	r.SnapshotVersion = raft.SnapshotVersion(int64(d.u64()))
	r.Term = d.u64()
	r.Leader = d.bytes()
	r.LastLogIndex = d.u64()
	r.LastLogTerm = d.u64()
	r.Peers = d.bytes()
	r.Configuration = d.bytes()
	r.ConfigurationIndex = d.u64()
	r.Size = int64(d.u64())
}

func appendTimeoutNowRequest(b []byte, r *raft.TimeoutNowRequest) []byte {
	return appendHeader(b, &r.RPCHeader)
}

func decodeTimeoutNowRequest(d *decoder, r *raft.TimeoutNowRequest) {
	d.header(&r.RPCHeader)
}

// appendRequest appends the frame of request req (one of the five
// request types, by pointer) to b.
func appendRequest(b []byte, req any, max int) ([]byte, error) {
	var start int
	switch r := req.(type) {
	case *raft.AppendEntriesRequest:
		b, start = beginFrame(b, typeAppendEntries)
		b = appendAppendEntriesRequest(b, r)
	case *raft.RequestVoteRequest:
		b, start = beginFrame(b, typeRequestVote)
		b = appendRequestVoteRequest(b, r)
	case *raft.RequestPreVoteRequest:
		b, start = beginFrame(b, typeRequestPreVote)
		b = appendRequestPreVoteRequest(b, r)
	case *raft.InstallSnapshotRequest:
		b, start = beginFrame(b, typeInstallSnapshot)
		b = appendInstallSnapshotRequest(b, r)
	case *raft.TimeoutNowRequest:
		b, start = beginFrame(b, typeTimeoutNow)
		b = appendTimeoutNowRequest(b, r)
	default:
		panic("transport: not a request")
	}
	return b, endFrame(b, start, max)
}

// decodeRequest decodes the body of a request frame of type typ. The
// request's byte strings and entries' data are sub-slices of body, which
// the caller must not reuse.
func decodeRequest(typ byte, body []byte) (any, error) {
	d := decoder{b: body}
	var req any
	switch typ {
	case typeAppendEntries:
		r := new(raft.AppendEntriesRequest)
		decodeAppendEntriesRequest(&d, r)
		req = r
	case typeRequestVote:
		r := new(raft.RequestVoteRequest)
		decodeRequestVoteRequest(&d, r)
		req = r
	case typeRequestPreVote:
		r := new(raft.RequestPreVoteRequest)
		decodeRequestPreVoteRequest(&d, r)
		req = r
	case typeInstallSnapshot:
		r := new(raft.InstallSnapshotRequest)
		decodeInstallSnapshotRequest(&d, r)
		if d.err == nil && r.Size < 0 {
			d.fail(errors.New("transport: negative snapshot size"))
		}
		req = r
	case typeTimeoutNow:
		r := new(raft.TimeoutNowRequest)
		decodeTimeoutNowRequest(&d, r)
		req = r
	default:
		return nil, errType(typ)
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	return req, nil
}

type errType byte

func (t errType) Error() string { return "transport: unexpected frame type " + strconv.Itoa(int(t)) }
