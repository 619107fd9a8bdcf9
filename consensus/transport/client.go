package transport

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// clientConn is a connection this transport dialled: it carries one RPC
// at a time and goes back to the pool between them, or belongs to one
// pipeline, or carries one InstallSnapshot.
type clientConn struct {
	c      net.Conn
	target raft.ServerAddress
	br     *bufio.Reader
	// fresh: the preamble is still to be sent, ahead of the first frame.
	fresh bool
	wbuf  []byte // reused for requests
	rbuf  []byte // reused for response bodies
	hdr   [frameHeader]byte
	hc    headerCache
}

// getConn returns an idle connection to target, or dials one.
func (t *Transport) getConn(target raft.ServerAddress) (*clientConn, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, raft.ErrTransportShutdown
	}
	if cs := t.pool[target]; len(cs) > 0 {
		c := cs[len(cs)-1]
		cs[len(cs)-1] = nil
		t.pool[target] = cs[:len(cs)-1]
		t.mu.Unlock()
		return c, nil
	}
	t.mu.Unlock()
	return t.dial(target)
}

// dial opens a new connection to target. Pipelines and InstallSnapshot
// use one of their own rather than an idle one, which may have gone
// stale (a peer that restarted) and would fail the whole pipeline or
// snapshot.
func (t *Transport) dial(target raft.ServerAddress) (*clientConn, error) {
	if t.isShutdown() {
		return nil, raft.ErrTransportShutdown
	}
	nc, err := t.stream.Dial(target, t.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	c := &clientConn{c: nc, target: target, fresh: true, br: bufio.NewReaderSize(nc, 4<<10)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		nc.Close()
		return nil, raft.ErrTransportShutdown
	}
	t.conns[c] = struct{}{}
	return c, nil
}

// putConn returns a connection that is between RPCs to the pool, or
// closes it if the pool is full.
func (t *Transport) putConn(c *clientConn) {
	if cap(c.wbuf) > retainLimit {
		c.wbuf = nil
	}
	if cap(c.rbuf) > retainLimit {
		c.rbuf = nil
	}
	t.mu.Lock()
	if !t.closed && len(t.pool[c.target]) < t.cfg.MaxPool {
		t.pool[c.target] = append(t.pool[c.target], c)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	t.release(c)
}

// release closes a connection that is not in the pool.
func (t *Transport) release(c *clientConn) {
	c.c.Close()
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
}

// startFrame returns c's write buffer, emptied, with the preamble if the
// connection has sent nothing yet.
func (c *clientConn) startFrame() []byte {
	b := c.wbuf[:0]
	if c.fresh {
		b = append(b, preamble[:]...)
	}
	return b
}

// send writes b, c's frames, and keeps it as the write buffer.
func (c *clientConn) send(b []byte) error {
	c.wbuf = b
	if _, err := c.c.Write(b); err != nil {
		return err
	}
	c.fresh = false
	return nil
}

// recv reads the response to a request of type typ into resp.
func (c *clientConn) recv(typ byte, resp any, max int) (remote, err error) {
	got, n, err := readHeader(c.br, &c.hdr, max)
	if err != nil {
		return nil, err
	}
	c.rbuf, err = readBody(c.br, n, c.rbuf, true)
	if err != nil {
		return nil, err
	}
	return decodeResponse(typ, got, c.rbuf, resp, &c.hc)
}

// call sends one request on a pooled connection and waits for its
// response. A connection that failed is closed; one that carried a
// response, even an error, goes back to the pool.
func (t *Transport) call(target raft.ServerAddress, typ byte, req, resp any) error {
	c, err := t.getConn(target)
	if err != nil {
		return err
	}
	b, err := appendRequest(c.startFrame(), req, t.cfg.MaxFrame)
	if err != nil {
		c.wbuf = b[:0]
		t.putConn(c)
		return err
	}
	c.c.SetDeadline(time.Now().Add(t.cfg.Timeout))
	if err := c.send(b); err != nil {
		t.release(c)
		return err
	}
	remote, err := c.recv(typ, resp, t.cfg.MaxFrame)
	if err != nil {
		t.release(c)
		return err
	}
	t.putConn(c)
	return remote
}

// AppendEntries sends an AppendEntries and waits for its response.
func (t *Transport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	return t.call(target, typeAppendEntries, args, resp)
}

// RequestVote sends a RequestVote and waits for its response.
func (t *Transport) RequestVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	return t.call(target, typeRequestVote, args, resp)
}

// RequestPreVote sends a RequestPreVote and waits for its response.
func (t *Transport) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return t.call(target, typeRequestPreVote, args, resp)
}

// TimeoutNow sends a TimeoutNow and waits for its response.
func (t *Transport) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	return t.call(target, typeTimeoutNow, args, resp)
}

// InstallSnapshot sends the request followed by exactly args.Size bytes
// read from data, and waits for the response. The connection is closed
// afterwards, as the server closes it; it is a new one, not an idle one. The deadline is Timeout scaled by
// the snapshot's size (Timeout per 256 KiB).
func (t *Transport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	if args.Size < 0 {
		return fmt.Errorf("transport: negative snapshot size %d", args.Size)
	}
	c, err := t.dial(target)
	if err != nil {
		return err
	}
	defer t.release(c)
	b, err := appendRequest(c.startFrame(), args, t.cfg.MaxFrame)
	if err != nil {
		return err
	}
	c.c.SetDeadline(time.Now().Add(snapshotTimeout(t.cfg.Timeout, args.Size)))
	w := bufio.NewWriterSize(c.c, 64<<10)
	w.Write(b)
	n, err := io.CopyN(w, data, args.Size)
	if err != nil {
		return fmt.Errorf("transport: snapshot: sent %d of %d bytes: %w", n, args.Size, err)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	remote, err := c.recv(typeInstallSnapshot, resp, t.cfg.MaxFrame)
	if err != nil {
		return err
	}
	return remote
}

// snapshotTimeout is timeout scaled for a snapshot of size bytes.
func snapshotTimeout(timeout time.Duration, size int64) time.Duration {
	n := size / timeoutScale
	if n <= 1 {
		return timeout
	}
	if n > int64(math.MaxInt64/timeout) {
		return math.MaxInt64
	}
	return timeout * time.Duration(n)
}
