package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/zkraft/zkraft/auth/sasl"
	"github.com/zkraft/zkraft/wire"
)

// connBufferSize is the size of the pooled read and output buffers.
// Typical requests and replies are a few hundred bytes and larger frames
// pass through. A connection borrows its buffers only while it has input
// or output (sockReader, output), so idle sessions hold none; with a
// buffer of its own each, 10,000 idle sessions held 40 MB at 4 KiB and
// 1.3 GB at 64 KiB.
const connBufferSize = 4 << 10

// maxKeptFrame is the largest request buffer a connection keeps for reuse.
const maxKeptFrame = 64 << 10

// maxOutstanding bounds the requests a connection may have queued for its
// writer; the reader stops reading when it is reached (ZooKeeper's
// back-pressure). The queue is a slice that grows with the requests in
// flight (connqueue.go); as a channel of this capacity it was 1 KiB of
// every idle session's heap.
const maxOutstanding = 128

// conn is one client connection: readLoop decodes and dispatches requests in
// order, writeLoop completes them in the same order and writes replies; a
// writer runs only while there is something to write (connqueue.go).
type conn struct {
	srv *Server
	nc  net.Conn
	ip  string

	session  atomic.Int64
	closing  atomic.Bool  // the client sent closeSession
	readOnly atomic.Bool  // admitted in read-only mode: writes get NOTREADONLY
	local    atomic.Bool  // its session is local to this server (localsession.go)
	timeout  atomic.Int32 // negotiated ms
	authMu   sync.Mutex
	auth     []wire.Id
	// saslExchange is the connection's SASL exchange once the client
	// started one; only the reader touches it (handleSASL).
	saslExchange sasl.Server
	saslFailures int           // failed SASL steps, to warn once (handleSASL)
	q            writeQueue    // requests for the writer (connqueue.go)
	br           requestReader // set after the handshake
	pk           parkState     // connpark.go
	out          output
	events       eventQueue
	done         chan struct{}
	closeOnce    sync.Once

	established int64 // unix ms
	cstats      connStats

	handshakeTimer interface{ Stop() bool } // armHandshakeTimer
}

func newConn(s *Server, nc net.Conn, ip string) *conn {
	c := &conn{
		srv:         s,
		nc:          nc,
		ip:          ip,
		auth:        []wire.Id{{Scheme: "ip", ID: ip}},
		done:        make(chan struct{}),
		established: s.clock.Now().UnixMilli(),
	}
	c.events.c = c
	c.pk.fd = -1
	return c
}

func (c *conn) sessionID() int64 { return c.session.Load() }

// authIDs returns the connection's identities. The slice is shared and
// never modified after it is published (addAuth replaces it), so callers
// may keep it but must not change it.
func (c *conn) authIDs() []wire.Id {
	c.authMu.Lock()
	defer c.authMu.Unlock()
	return c.auth
}

// hasScheme reports whether the connection holds an id of scheme.
func (c *conn) hasScheme(scheme string) bool {
	for _, id := range c.authIDs() {
		if id.Scheme == scheme {
			return true
		}
	}
	return false
}

func (c *conn) addAuth(id wire.Id) {
	c.authMu.Lock()
	defer c.authMu.Unlock()
	for _, have := range c.auth {
		if have == id {
			return
		}
	}
	c.auth = append(c.auth[:len(c.auth):len(c.auth)], id)
}

// close shuts the socket; the reader and writer notice and exit (a parked
// connection is resumed to do so). Safe to call repeatedly.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.nc.Close()
	})
	c.resume()
}

// readLoop runs the handshake, then reads and dispatches requests until the
// client goes away, sends something that ends the connection, or the server
// closes it. A request that ends the connection (closeSession, an unknown
// opcode) still gets its reply: the writer closes the socket after it.
//
// The writer, which always outlives the reader, removes the connection from
// the server's tables when it exits: a closing session's watches must still
// be in place when its closeSession is applied, so that the client hears of
// its own ephemerals' deletion before the reply, as with ZooKeeper.
func (c *conn) readLoop() {
	if !c.startSession() {
		c.finishQueue() // no writer ever starts
		c.close()
		c.srv.forget(c)
		c.srv.wg.Done()
		return
	}
	c.serveRequests()
}

// startSession runs the handshake and reports whether requests follow.
func (c *conn) startSession() (ok bool) {
	defer c.recoverPanic("reader")
	br := newRequestReader(c.nc, c.flushInline)
	if !c.boundedHandshake(br) {
		return false
	}
	c.br = br
	c.out.nc = c.nc
	c.out.back = backlog{c: c, try: nonBlockingWriter(c.nc)}
	return true
}

// serveRequests reads requests until the connection ends or parks
// (connpark.go); after a park, the goroutine resume starts runs it again.
// The reader is counted in the server's wait group until it ends, parked
// or not.
func (c *conn) serveRequests() {
	parked := false
	defer func() {
		if !parked {
			c.endQueue()
			c.srv.wg.Done()
		}
	}()
	defer c.recoverPanic("reader")
	switch c.readRequests() {
	case readParked:
		parked = true
	case readFailed:
		c.close()
	}
}

// readRequests reads, dispatches and queues requests until the connection
// fails, a final request is queued or the reader parks.
func (c *conn) readRequests() readOutcome {
	br := c.br
	max := c.srv.cfg.MaxBuffer
	var buf []byte
	for {
		if c.idleThenPark() {
			return readParked
		}
		frame, err := wire.ReadFrame(br, max, buf)
		if err != nil {
			c.logReadError(err)
			return readFailed
		}
		buf = frame[:0]
		if cap(buf) > maxKeptFrame {
			buf = nil // one huge request must not stay with the connection
		}
		c.cstats.received()
		c.srv.stats.received()
		c.srv.m.bytesReceived.Add(int64(len(frame)) + 4)
		p := c.dispatch(frame)
		if p == nil {
			continue
		}
		if c.answerInline(p, br) {
			continue
		}
		c.out.queued.Add(1)
		if !c.put(p) {
			return readFailed
		}
		if p.final {
			return readFinal
		}
	}
}

// answerInline serves a plain read in the reader itself when no earlier
// request is still waiting for its reply, which saves handing it to the
// writer goroutine. Replies stay in request order: the writer has written
// everything queued before (queued is 0), and the reader queues nothing
// while it answers. The reply is flushed unless another whole request is
// already buffered, or the reader writes replies out itself before it
// waits for input, so a burst of reads is answered with one write.
func (c *conn) answerInline(p *pending, br requestReader) bool {
	if p.read == nil || p.read.prepare != nil || p.final || p.dropReply || c.out.queued.Load() != 0 {
		return false
	}
	// The lock is held from the read on: events drained by the writer
	// after this read ran must not be written before its reply (see runRead).
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	c.writeReply(c.complete(p))
	if br.flushAfterInline() {
		c.out.flush()
	}
	return true
}

// flushInline writes out what answerInline left buffered (sockReader
// calls it before waiting for input).
func (c *conn) flushInline() {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	if c.out.nc != nil {
		c.out.flush()
	}
}

// outstanding is the number of the connection's requests that are queued
// or in progress and not yet answered (ZooKeeper's outstanding requests).
func (c *conn) outstanding() int { return int(c.out.queued.Load()) }

// recoverPanic turns a panic in one connection's goroutine into a logged
// error and a closed connection; the server keeps serving everyone else.
func (c *conn) recoverPanic(loop string) {
	if v := recover(); v != nil {
		c.logPanic(loop, v)
		c.close()
	}
}

func (c *conn) logPanic(loop string, v any) {
	c.srv.log.Error("connection panicked; closing it", "loop", loop,
		"remote", c.nc.RemoteAddr().String(), "panic", v, "stack", string(debug.Stack()))
}

func (c *conn) logReadError(err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return
	}
	c.srv.log.Debug("closing connection", "remote", c.nc.RemoteAddr().String(), "err", err)
}

// armHandshakeTimer bounds the handshake by sessionlessCnxnTimeout, on
// the server's clock: a client that connects and sends nothing, or part of
// a ConnectRequest, is closed then, as ZooKeeper closes sessionless
// connections, and stops counting against maxClientCnxns. serve arms it
// before the connection is counted, so the timer exists for every
// connection a test can see.
func (c *conn) armHandshakeTimer() {
	limit := c.srv.cfg.sessionlessTimeout()
	c.handshakeTimer = c.srv.clock.AfterFunc(limit, func() {
		// A session is stored before its ConnectResponse is written, so a
		// client that has its response is never cut here.
		if c.sessionID() == 0 {
			c.srv.log.Info("closing connection that has no session after sessionlessCnxnTimeout",
				"remote", c.nc.RemoteAddr().String(), "timeout", limit,
				"raise_with", "zookeeper.nio.sessionlessCnxnTimeout (ms)")
			c.srv.m.sessionlessExpired.Inc()
			c.close()
		}
	})
}

// boundedHandshake runs the handshake and disarms its timer.
func (c *conn) boundedHandshake(br requestReader) bool {
	ok := c.handshake(br)
	c.handshakeTimer.Stop()
	c.handshakeTimer = nil // a long-lived session does not keep it
	return ok && !c.isClosed()
}

// isClosed reports whether close has been called.
func (c *conn) isClosed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// handshake reads the first frame. It answers a four-letter word or a
// ConnectRequest and reports whether the connection continues.
func (c *conn) handshake(br requestReader) bool {
	var first [4]byte
	if _, err := io.ReadFull(br, first[:]); err != nil {
		return false
	}
	if cmd, ok := wire.FourLetterWord(first[:]); ok {
		c.srv.fourLetter(c.nc, cmd)
		return false
	}
	// ReadFrame allocates as the payload arrives, not the length claimed.
	payload, err := wire.ReadFrame(io.MultiReader(bytes.NewReader(first[:]), br), c.srv.cfg.MaxBuffer, nil)
	if err != nil {
		return false
	}
	var req wire.ConnectRequest
	if err := wire.Unmarshal(payload, &req, c.srv.cfg.MaxBuffer); err != nil {
		return false
	}
	c.srv.stats.received()
	c.srv.m.bytesReceived.Add(int64(len(payload)) + 4)
	return c.srv.connect(c, &req)
}

// writeFrame writes one frame straight to the socket (handshake only).
func (c *conn) writeFrame(rec wire.Record) error {
	_, err := c.nc.Write(wire.AppendFrame(nil, rec))
	return err
}

// output is the connection's outgoing bytes. The writer goroutine and,
// for inline reads, the reader append to it under mu. Its buffer comes
// from a pool and goes back after each flush, so an idle connection holds
// none.
type output struct {
	mu     sync.Mutex
	nc     net.Conn
	buf    *[]byte
	back   backlog // what the socket has not taken yet (connwrite.go)
	failed bool    // a write failed: the connection is going away
	// queued counts requests handed to the writer whose reply is not yet
	// written; the reader may answer inline only when it is 0.
	queued atomic.Int32
}

// outBuffers holds output buffers between flushes.
var outBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, connBufferSize)
	return &b
}}

// maxPooledOutput keeps a buffer grown by a huge reply out of the pool.
const maxPooledOutput = 256 << 10

// flushAt is how much output may pile up before it is written even though
// more replies follow.
const flushAt = 64 << 10

// appendReply appends one reply frame and returns its size without the
// length prefix (what ZooKeeper counts as a response's bytes).
func (o *output) appendReply(hdr *wire.ReplyHeader, body wire.Record) int64 {
	if o.buf == nil {
		o.buf = outBuffers.Get().(*[]byte)
	}
	before := len(*o.buf)
	*o.buf = wire.AppendReply(*o.buf, hdr, body)
	n := int64(len(*o.buf) - before - 4)
	if len(*o.buf) >= flushAt {
		o.write()
	}
	return n
}

// write sends what is buffered and keeps the buffer. It never waits for
// the client: what the socket does not take goes to the backlog.
func (o *output) write() {
	if len(*o.buf) > 0 && !o.failed {
		if err := o.back.send(*o.buf); err != nil {
			o.failed = true
		}
	}
	*o.buf = (*o.buf)[:0]
}

// flush sends what is buffered and returns the buffer to the pool.
func (o *output) flush() {
	if o.buf == nil {
		return
	}
	o.write()
	if cap(*o.buf) <= maxPooledOutput {
		outBuffers.Put(o.buf)
	}
	o.buf = nil
}

// writeLoop completes queued requests in order and writes their replies,
// preceded by any watch events queued so far, and flushes when the queue
// is empty. It exits when it has nothing left to write (the next request
// or event starts another, connqueue.go) or when the connection ends; the
// writer that ends it removes the connection from the server's tables.
func (c *conn) writeLoop() {
	defer c.srv.wg.Done()
	c.endWriter(c.writeUntilIdle(false))
}

// writePooled is the writer's role taken by a fan-out worker (fanout.go):
// it writes the queued events and hands the connection to a writer
// goroutine once it has a request to complete or is ending.
func (c *conn) writePooled() {
	res := c.writeUntilIdle(true)
	if res == writerHandOver {
		go c.writeLoop() // takes over the role and its wait-group count
		return
	}
	defer c.srv.wg.Done()
	c.endWriter(res)
}

// writerResult is how a writer's run ended.
type writerResult int

const (
	writerIdle     writerResult = iota // nothing left: the role is given up
	writerEnded                        // the connection ends
	writerHandOver                     // pooled: a goroutine must go on
)

// endWriter closes the connection after the final writer.
func (c *conn) endWriter(res writerResult) {
	if res != writerEnded {
		return
	}
	c.finishQueue()
	c.close()
	c.srv.forget(c)
}

// writeUntilIdle writes until the queue is empty (writerIdle) or the
// connection ends (writerEnded). A pooled writer never waits: it returns
// writerHandOver instead of completing a request or ending the
// connection, once it has flushed what it buffered.
func (c *conn) writeUntilIdle(pooled bool) (res writerResult) {
	defer func() {
		if v := recover(); v != nil {
			c.logPanic("writer", v)
			res = writerEnded
		}
	}()
	flushed := false // output flushed since the last step: an empty queue ends this writer
	for !c.isClosed() {
		st, p := c.next(flushed, !pooled)
		if pooled && (st == stepRequest || st == stepEnd) {
			c.flush() // the events go out now, not after the request completes
			return writerHandOver
		}
		switch st {
		case stepRequest:
			if !c.writeCompleted(p) {
				return writerEnded
			}
		case stepEvents:
			c.out.mu.Lock()
			c.writeEvents()
			c.out.mu.Unlock()
		case stepEnd: // the reader finished after a final request
			c.out.mu.Lock()
			c.out.flush()
			c.out.mu.Unlock()
			c.out.back.drain(c.srv.cfg.sessionlessTimeout())
			return writerEnded
		case stepIdle:
			if flushed {
				return writerIdle // next has marked the writer as gone
			}
			if !c.flush() {
				return writerEnded
			}
		}
		flushed = st == stepIdle
	}
	return writerEnded
}

// writeCompleted waits for p's reply and writes it; false ends the writer.
func (c *conn) writeCompleted(p *pending) bool {
	r := c.complete(p)
	c.writeOut(p, r)
	if r.closeAfter {
		// The last reply goes out before the close, but a client that
		// does not read has, as one without a session, at most
		// sessionlessCnxnTimeout to take it.
		c.out.back.drain(c.srv.cfg.sessionlessTimeout())
		return false
	}
	return true
}

// writeOut writes p's reply r, flushing if the connection closes after it.
func (c *conn) writeOut(p *pending, r *reply) {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	if p.read == nil { // a read drained its own events (runRead)
		c.writeEvents()
	}
	c.writeReply(r)
	c.out.queued.Add(-1)
	if r.closeAfter {
		c.out.flush()
	}
}

// flush writes out the buffered output; false when a write failed.
func (c *conn) flush() bool {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	c.out.flush()
	return !c.out.failed
}

// writeReply writes r's events and r; the caller holds out.mu.
func (c *conn) writeReply(r *reply) {
	if r.skip {
		return
	}
	for _, ev := range r.preEvents {
		c.appendEvent(ev)
	}
	n := c.out.appendReply(&r.hdr, r.body)
	c.cstats.sent(r.hdr.Zxid, r.latency)
	c.srv.stats.sent(r.latency)
	m := c.srv.m
	m.responseBytes.Add(n)
	m.responseSize.Add(n)
}

// writeEvents writes the queued watch events; the caller holds out.mu.
func (c *conn) writeEvents() {
	for _, ev := range c.events.drain() {
		c.appendEvent(ev)
	}
}

func (c *conn) appendEvent(ev event) {
	hdr := wire.ReplyHeader{Xid: wire.XidNotification, Zxid: notificationZxid}
	body := wire.WatcherEvent{Type: ev.typ, State: wire.StateSyncConnected, Path: ev.path}
	c.srv.m.watchBytes.Add(c.out.appendReply(&hdr, &body))
	c.srv.stats.sent(0)
}

// event is a watch notification waiting to be written.
type event struct {
	typ  wire.EventType
	path string
}

// eventQueue is an unbounded queue: the apply hook must never block on a
// slow client, so events pile up here until the writer drains them.
type eventQueue struct {
	mu sync.Mutex
	q  []event
	c  *conn // whose writer push wakes
}

func (q *eventQueue) push(ev event) {
	q.mu.Lock()
	q.q = append(q.q, ev)
	q.mu.Unlock()
	q.c.wakeWriter()
}

func (q *eventQueue) drain() []event {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.q
	q.q = nil
	return out
}

func (q *eventQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.q)
}
