package transport

import (
	"bytes"
	"errors"

	"github.com/hashicorp/raft"
)

// A response body starts with the error the server's consumer responded
// with, as a byte string (empty for none), followed by the response's
// fields. As with NetworkTransport, a response that came with an error is
// still encoded (its zero value when the consumer gave none), and the
// caller gets the error.

// errUnexpectedResponse is sent when a consumer responds to an RPC with
// neither an error nor a response of the RPC's type.
var errUnexpectedResponse = errors.New("unexpected response type")

func appendAppendEntriesResponse(b []byte, r *raft.AppendEntriesResponse) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, r.Term)
	b = appendU64(b, r.LastLog)
	b = appendBool(b, r.Success)
	return appendBool(b, r.NoRetryBackoff)
}

func decodeAppendEntriesResponse(d *decoder, r *raft.AppendEntriesResponse) {
	d.header(&r.RPCHeader)
	r.Term = d.u64()
	r.LastLog = d.u64()
	r.Success = d.bool()
	r.NoRetryBackoff = d.bool()
}

func appendRequestVoteResponse(b []byte, r *raft.RequestVoteResponse) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, r.Term)
	b = appendBytes(b, r.Peers)
	return appendBool(b, r.Granted)
}

func decodeRequestVoteResponse(d *decoder, r *raft.RequestVoteResponse) {
	d.header(&r.RPCHeader)
	r.Term = d.u64()
	r.Peers = d.bytes()
	r.Granted = d.bool()
}

func appendRequestPreVoteResponse(b []byte, r *raft.RequestPreVoteResponse) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, r.Term)
	return appendBool(b, r.Granted)
}

func decodeRequestPreVoteResponse(d *decoder, r *raft.RequestPreVoteResponse) {
	d.header(&r.RPCHeader)
	r.Term = d.u64()
	r.Granted = d.bool()
}

func appendInstallSnapshotResponse(b []byte, r *raft.InstallSnapshotResponse) []byte {
	b = appendHeader(b, &r.RPCHeader)
	b = appendU64(b, r.Term)
	return appendBool(b, r.Success)
}

func decodeInstallSnapshotResponse(d *decoder, r *raft.InstallSnapshotResponse) {
	d.header(&r.RPCHeader)
	r.Term = d.u64()
	r.Success = d.bool()
}

func appendTimeoutNowResponse(b []byte, r *raft.TimeoutNowResponse) []byte {
	return appendHeader(b, &r.RPCHeader)
}

func decodeTimeoutNowResponse(d *decoder, r *raft.TimeoutNowResponse) {
	d.header(&r.RPCHeader)
}

// appendResponse appends the frame answering a request of type typ with
// what its consumer responded. A response of another type (or none) is
// sent as the zero response of typ, with errUnexpectedResponse if the
// consumer gave no error: a zero response must not pass for an answer.
func appendResponse(b []byte, typ byte, rr raft.RPCResponse, max int) ([]byte, error) {
	b, start := beginFrame(b, typ|responseBit)
	var (
		ae *raft.AppendEntriesResponse
		rv *raft.RequestVoteResponse
		pv *raft.RequestPreVoteResponse
		is *raft.InstallSnapshotResponse
		tn *raft.TimeoutNowResponse
		ok bool
	)
	switch typ {
	case typeAppendEntries:
		ae, ok = rr.Response.(*raft.AppendEntriesResponse)
		ok = ok && ae != nil
	case typeRequestVote:
		rv, ok = rr.Response.(*raft.RequestVoteResponse)
		ok = ok && rv != nil
	case typeRequestPreVote:
		pv, ok = rr.Response.(*raft.RequestPreVoteResponse)
		ok = ok && pv != nil
	case typeInstallSnapshot:
		is, ok = rr.Response.(*raft.InstallSnapshotResponse)
		ok = ok && is != nil
	case typeTimeoutNow:
		tn, ok = rr.Response.(*raft.TimeoutNowResponse)
		ok = ok && tn != nil
	default:
		panic("transport: not a request type")
	}
	switch {
	case rr.Error != nil:
		b = appendString(b, rr.Error.Error())
	case !ok:
		b = appendString(b, errUnexpectedResponse.Error())
	default:
		b = appendString(b, "")
	}
	switch typ {
	case typeAppendEntries:
		if ae == nil {
			ae = new(raft.AppendEntriesResponse)
		}
		b = appendAppendEntriesResponse(b, ae)
	case typeRequestVote:
		if rv == nil {
			rv = new(raft.RequestVoteResponse)
		}
		b = appendRequestVoteResponse(b, rv)
	case typeRequestPreVote:
		if pv == nil {
			pv = new(raft.RequestPreVoteResponse)
		}
		b = appendRequestPreVoteResponse(b, pv)
	case typeInstallSnapshot:
		if is == nil {
			is = new(raft.InstallSnapshotResponse)
		}
		b = appendInstallSnapshotResponse(b, is)
	case typeTimeoutNow:
		if tn == nil {
			tn = new(raft.TimeoutNowResponse)
		}
		b = appendTimeoutNowResponse(b, tn)
	}
	return b, endFrame(b, start, max)
}

// decodeResponse decodes the body of a response frame of type got into
// resp, the response to a request of type want. remote is the error the
// server's consumer responded with; err is a decoding error, after which
// the connection is unusable. Byte strings in resp are copied out of body
// (the header's through hc), so body can be reused.
func decodeResponse(want, got byte, body []byte, resp any, hc *headerCache) (remote, err error) {
	if got != want|responseBit {
		return nil, errType(got)
	}
	d := decoder{b: body}
	msg := d.bytes()
	var h *raft.RPCHeader
	switch r := resp.(type) {
	case *raft.AppendEntriesResponse:
		decodeAppendEntriesResponse(&d, r)
		h = &r.RPCHeader
	case *raft.RequestVoteResponse:
		decodeRequestVoteResponse(&d, r)
		h = &r.RPCHeader
		r.Peers = bytes.Clone(r.Peers)
	case *raft.RequestPreVoteResponse:
		decodeRequestPreVoteResponse(&d, r)
		h = &r.RPCHeader
	case *raft.InstallSnapshotResponse:
		decodeInstallSnapshotResponse(&d, r)
		h = &r.RPCHeader
	case *raft.TimeoutNowResponse:
		decodeTimeoutNowResponse(&d, r)
		h = &r.RPCHeader
	default:
		panic("transport: not a response")
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	hc.detach(h)
	if len(msg) > 0 {
		return errors.New(string(msg)), nil
	}
	return nil, nil
}

// headerCache holds the ID and Addr of the last response header a
// connection decoded. A peer sends the same ones every time, so a
// response's header shares them instead of allocating copies; nothing
// modifies a header's bytes once decoded.
type headerCache struct {
	id, addr []byte
}

// detach replaces h's byte strings, sub-slices of a buffer about to be
// reused, with the cached copies, or new ones.
func (c *headerCache) detach(h *raft.RPCHeader) {
	h.ID = intern(&c.id, h.ID)
	h.Addr = intern(&c.addr, h.Addr)
}

func intern(cached *[]byte, p []byte) []byte {
	if p == nil {
		return nil
	}
	if *cached == nil || !bytes.Equal(*cached, p) {
		*cached = bytes.Clone(p)
	}
	return *cached
}
