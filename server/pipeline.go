package server

import (
	"errors"
	"sync"
	"time"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// kind says how the pipeline runs an operation.
type kind int

const (
	// kindRead runs against local state, in order, after the connection's earlier writes.
	kindRead kind = iota
	// kindWrite is turned into a transaction and proposed through Raft.
	kindWrite
	// kindNow is handled by the reader as it arrives (auth, session control).
	kindNow
)

// handler is one row of the operation table.
type handler struct {
	kind kind
	// prep validates a write and fills in its transaction (kindWrite).
	prep func(c *conn, op wire.Op, req wire.Record, txn *datatree.Txn) error
	// respond builds the reply body of an applied write (kindWrite).
	respond func(req wire.Record, res *datatree.Result) wire.Record
	// read serves a read under the state lock (kindRead).
	read func(c *conn, req wire.Record, st *consensus.State) (wire.Record, error)
	// prepare, if set, runs before read and outside the state lock; an
	// error is the reply (kindRead: sync waits here for the leader).
	prepare func(c *conn, req wire.Record) error
	// now handles a request immediately and returns its pending reply (kindNow).
	now func(c *conn, xid int32, req wire.Record) *pending
}

// handlers is the pipeline, one row per opcode; see op_*.go.
var handlers map[wire.Op]*handler

func init() {
	handlers = make(map[wire.Op]*handler)
	for _, table := range []map[wire.Op]handler{writeOps(), readOps(), sessionOps(), watchOps()} {
		for op, h := range table {
			handlers[op] = &h
		}
	}
}

// pending is a request in flight on one connection.
type pending struct {
	xid   int32
	op    wire.Op
	start time.Time
	final bool // the connection closes once this reply is written
	// dropReply closes the connection once the request has run, without
	// its reply (Fault.Drop == DropReply).
	dropReply bool

	fut     *consensus.Future
	req     wire.Record
	respond func(req wire.Record, res *datatree.Result) wire.Record
	read    *handler      // set for reads, run by the writer (runRead)
	later   func() *reply // run by the writer in order (reconfig)
	ready   *reply
	r       reply // the reply of a read or write, allocated with the request
}

// reply is a completed response.
type reply struct {
	hdr        wire.ReplyHeader
	body       wire.Record
	preEvents  []event // events written just before this reply (setWatches)
	closeAfter bool
	skip       bool // nothing to write (e.g. the session closed)
	latency    time.Duration
}

// decoders lends dispatch its request decoder: a decoder per connection
// was 96 bytes of every idle session.
var decoders = sync.Pool{New: func() any { return new(wire.Decoder) }}

// releaseDecoder returns d to the pool without the frame it points into.
func releaseDecoder(d *wire.Decoder) {
	d.Reset(nil, 0)
	decoders.Put(d)
}

// dispatch decodes one request frame and returns what to queue, or nil.
func (c *conn) dispatch(frame []byte) *pending {
	d := decoders.Get().(*wire.Decoder)
	defer releaseDecoder(d)
	d.Reset(frame, c.srv.cfg.MaxBuffer)
	var hdr wire.RequestHeader
	hdr.Decode(d)
	if d.Err() != nil {
		// ZooKeeper cannot read a request header: it drops the connection.
		return &pending{final: true, ready: &reply{skip: true}}
	}
	if countsAsActivity(hdr.Type) {
		c.srv.touch(c)
	}
	c.cstats.request(hdr.Xid)
	if hdr.Type == wire.OpCreateSession {
		// A session is created by the handshake, never by a request.
		return c.errorReply(hdr.Xid, hdr.Type, wire.CodeMarshallingError)
	}
	if c.mustAuthenticate(hdr.Type) {
		return c.refuseUnauthenticated(hdr.Xid, hdr.Type)
	}
	f, faulty := c.srv.faults.take(c.sessionID(), hdr.Type)
	if faulty {
		if p := c.faultBefore(f, hdr.Xid, hdr.Type); p != nil {
			return p
		}
	}
	p := c.route(hdr, d)
	if faulty && f.Drop == DropReply && p != nil {
		p.final, p.dropReply = true, true
	}
	return p
}

// route hands a request to its handler.
func (c *conn) route(hdr wire.RequestHeader, d *wire.Decoder) *pending {
	h, known := handlers[hdr.Type]
	if !known || h.kind != kindRead {
		// Only reads are answered inline; anything else may wait (a write
		// for Raft to take it), so the replies answered inline so far go
		// out first (sockReader holds them otherwise).
		c.flushInline()
	}
	rec, ok := wire.RequestForOp(hdr.Type)
	if !known || !ok {
		return c.finalError(hdr.Xid, wire.CodeUnimplemented, unknownOpZxid)
	}
	var decodeErr error
	if rec != nil {
		nullPath := d.PeekNull()
		rec.Decode(d)
		if decodeErr = d.Err(); decodeErr == nil {
			decodeErr = nullFieldErr(hdr.Type, rec, nullPath)
		}
	}
	p := &pending{xid: hdr.Xid, op: hdr.Type, start: time.Now(), req: rec}
	var withBody *replyError
	switch {
	case errors.As(decodeErr, &withBody):
		if h.kind == kindWrite {
			c.auditWrite(hdr.Type, rec, nil, withBody.code)
		}
		p = c.errorReply(hdr.Xid, hdr.Type, withBody.code)
		p.ready.body = withBody.body
		return p
	case h.kind == kindWrite && c.readOnly.Load():
		return c.errorReply(hdr.Xid, hdr.Type, wire.CodeNotReadOnly)
	case h.kind == kindWrite:
		p.fut = c.srv.node.ProposeAsync(c.writeCommand(h, hdr.Type, rec, decodeErr))
		p.respond = h.respond
	case decodeErr != nil:
		return c.errorReply(hdr.Xid, hdr.Type, wire.CodeMarshallingError)
	case h.kind == kindNow:
		return h.now(c, hdr.Xid, rec)
	default:
		p.read = h
	}
	return p
}

// writeCommand turns a write request into its log entry. A write that fails
// before it becomes a transaction is still logged, as a KindError entry, so
// it consumes a zxid exactly as ZooKeeper's error txn does.
func (c *conn) writeCommand(h *handler, op wire.Op, rec wire.Record, decodeErr error) *consensus.Command {
	if decodeErr != nil {
		return &consensus.Command{Kind: consensus.KindError, Code: wire.CodeOf(decodeErr)}
	}
	tc := new(txnCommand)
	if err := h.prep(c, op, rec, &tc.txn); err != nil {
		return &consensus.Command{Kind: consensus.KindError, Code: wire.CodeOf(err)}
	}
	tc.cmd = consensus.Command{Kind: consensus.KindTxn, Txn: &tc.txn}
	return &tc.cmd
}

// txnCommand allocates a write's command and transaction together.
type txnCommand struct {
	cmd consensus.Command
	txn datatree.Txn
}

// runRead serves a read under the state read lock.
func (c *conn) runRead(h *handler, p *pending) *reply {
	r := &p.r
	r.hdr = wire.ReplyHeader{Xid: p.xid}
	if p.op == wire.OpPing {
		r.hdr.Xid = wire.XidPing // whatever xid the client used
	}
	if h.prepare != nil {
		if err := h.prepare(c, p.req); errors.Is(err, errLost) {
			return lostReply()
		} else if err != nil {
			r.hdr.Zxid, r.hdr.Err = c.srv.node.LastZxid(), wire.CodeOf(err)
			return r
		}
	}
	c.srv.node.Read(func(st *consensus.State) {
		r.hdr.Zxid = st.LastZxid
		body, err := h.read(c, p.req, st)
		var withBody *replyError
		if r.hdr.Err = wire.CodeOf(err); err == nil {
			r.body = body
			c.srv.m.readResult(p.req, body, p.start)
		} else if errors.As(err, &withBody) {
			r.body = withBody.body
		}
		// Writes queue their events while the state is write-locked, so
		// the events queued by now (with setWatches' own) belong to what
		// this read saw and go before its reply. Events queued later, which
		// may fire a watch this read just set, must go after it: a client
		// drops an event for a watch it has not yet been told it holds.
		r.preEvents = append(r.preEvents, c.events.drain()...)
	})
	return r
}

// complete turns a pending request into its reply, waiting for Raft if needed.
func (c *conn) complete(p *pending) *reply {
	var r *reply
	switch {
	case p.ready != nil:
		r = p.ready
	case p.read != nil:
		r = c.runRead(p.read, p)
	case p.later != nil:
		r = p.later()
	case p.fut != nil:
		r = c.completeWrite(p)
	}
	now := time.Now()
	r.latency = now.Sub(p.start)
	c.srv.m.observeLatency(p.fut != nil, r.latency, now)
	if p.dropReply {
		r = &reply{skip: true}
	}
	if p.final {
		r.closeAfter = true
	}
	return r
}

func (c *conn) completeWrite(p *pending) *reply {
	a, err := p.fut.Wait()
	c.auditWrite(p.op, p.req, a, err)
	if errors.Is(err, consensus.ErrDiskFull) {
		// Refused before it reached the log: the outcome is known, so
		// the client gets an error (NOTREADONLY) and keeps its connection.
		r := &p.r
		r.hdr = wire.ReplyHeader{Xid: p.xid, Zxid: c.srv.node.LastZxid(), Err: wire.CodeOf(err)}
		return r
	}
	if err != nil {
		c.srv.log.Warn("proposal failed", "op", p.op.String(), "err", err)
		return lostReply()
	}
	r := &p.r
	r.hdr = wire.ReplyHeader{Xid: p.xid, Zxid: a.Zxid, Err: wire.CodeOf(a.Result.Err)}
	c.srv.m.localWriteCommitted.ObserveSince(p.start)
	if a.Result.Err == nil && p.respond != nil {
		r.body = p.respond(p.req, &a.Result)
	}
	return r
}

// errLost is returned by a prepare step whose outcome this server cannot
// know (the leader is gone): the connection closes without a reply.
var errLost = errors.New("server: outcome unknown; closing the connection")

// lostReply closes the connection instead of answering, as ZooKeeper does
// when it loses its leader: the client sees a connection loss and, after
// reconnecting, finds out whether the request took effect. (ZooKeeper
// never sends CONNECTIONLOSS on the wire; clients raise it themselves.)
func lostReply() *reply { return &reply{skip: true, closeAfter: true} }

// errorReply queues an error reply in order; the connection stays open.
func (c *conn) errorReply(xid int32, op wire.Op, code wire.Code) *pending {
	return &pending{xid: xid, op: op, start: time.Now(), ready: &reply{hdr: wire.ReplyHeader{Xid: xid, Zxid: c.srv.node.LastZxid(), Err: code}}}
}

// Reply zxids of requests ZooKeeper answers before they reach its pipeline.
const (
	unknownOpZxid = -1 // UNIMPLEMENTED for an unknown opcode
	authReplyZxid = 0  // auth and sasl replies
)

// finalError queues an error reply with the given zxid after which the
// connection closes, as ZooKeeper does for unknown opcodes and failed auth.
func (c *conn) finalError(xid int32, code wire.Code, zxid int64) *pending {
	p := c.errorReply(xid, wire.OpError, code)
	p.ready.hdr.Zxid = zxid
	p.final = true
	return p
}

// readyReply queues a reply computed by the reader.
func readyReply(xid int32, op wire.Op, zxid int64, body wire.Record) *pending {
	return &pending{xid: xid, op: op, start: time.Now(), ready: &reply{hdr: wire.ReplyHeader{Xid: xid, Zxid: zxid}, body: body}}
}
