package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// The connections of -op conns are raw sessions on the wire package, not
// go-zookeeper clients: go-zookeeper allocates a 1.5 MiB buffer and runs
// three goroutines per connection, so 20,000 of them would cost zkbench
// gigabytes and much of the two cores the server needs. A connsConn is a
// socket, its session id and one reader goroutine (a few KiB), so one
// zkbench process holds as many as its open-files limit allows; where the
// limit is higher than the ephemeral port range, the connections are
// spread over several loopback source addresses (connsSource).
//
// Each connection sets one data watch (exists with watch) on the shared
// znode; its reader records when the notification arrives, relative to
// the start of the current fire (connsFire), and counts the replies to
// the exists requests that re-arm the watch between fires.

// connsWatchXid is the xid of every exists request of a connection; the
// reader tells its replies from pings (-2) and notifications (-1) by it.
const connsWatchXid = 1

// connsReadBuffer holds a few notifications or ping replies (about 40 and
// 16 bytes).
const connsReadBuffer = 256

// connsConn is one held connection.
type connsConn struct {
	raw *rawSession
	idx int
}

// connsFire is one firing of the watch: when it started and when each
// connection got its event.
type connsFire struct {
	start   time.Time
	arrival []atomic.Int64 // nanoseconds by connection; 0: no event yet
	got     atomic.Int64
	want    int64
	done    chan struct{} // closed when got reaches want
}

func newConnsFire(want int) *connsFire {
	return &connsFire{arrival: make([]atomic.Int64, want), want: int64(want), done: make(chan struct{})}
}

// connsArm is one round of setting the watches again.
type connsArm struct {
	got  atomic.Int64
	want int64
	done chan struct{}
}

// connsHub is what the readers report to.
type connsHub struct {
	path       string
	fire       atomic.Pointer[connsFire]
	arm        atomic.Pointer[connsArm]
	unexpected atomic.Int64 // events for another path or type, duplicates
	armErrors  atomic.Int64 // exists replies with an error
	lost       atomic.Int64 // connections that failed while held
	closing    atomic.Bool  // set before zkbench closes the connections itself
	firstMu    sync.Mutex
	firstErr   error // the first connection lost
}

func (h *connsHub) noteLost(err error) {
	if h.closing.Load() {
		return
	}
	h.lost.Add(1)
	h.firstMu.Lock()
	if h.firstErr == nil {
		h.firstErr = err
	}
	h.firstMu.Unlock()
}

// dialConns opens connection idx to addr from source address src (nil:
// the kernel picks) and sets its watch on path, waiting for the reply.
func dialConns(ctx context.Context, addr string, src net.IP, path string, timeout time.Duration) (*rawSession, error) {
	d := net.Dialer{Timeout: timeout}
	if src != nil {
		d.LocalAddr = &net.TCPAddr{IP: src}
		d.Control = bindNoPort
	}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(timeout))
	s, err := connsHandshake(c, timeout)
	if err == nil {
		err = s.watchSync(path)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return s, nil
}

// connsHandshake sends the ConnectRequest and reads the ConnectResponse
// (the raw sessions of -op conns and of -op sessions -sessionclient raw).
func connsHandshake(c net.Conn, timeout time.Duration) (*rawSession, error) {
	req := &wire.ConnectRequest{TimeOut: int32(timeout / time.Millisecond), Passwd: make([]byte, 16)}
	if _, err := c.Write(wire.AppendFrame(nil, req)); err != nil {
		return nil, err
	}
	frame, err := wire.ReadFrame(c, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("no ConnectResponse: %w", err)
	}
	var resp wire.ConnectResponse
	dec := wire.NewDecoder(frame, 0)
	resp.Decode(dec)
	if err := dec.Err(); err != nil {
		return nil, fmt.Errorf("ConnectResponse: %w", err)
	}
	if resp.SessionID == 0 || resp.TimeOut <= 0 {
		return nil, fmt.Errorf("session refused (id %#x, timeout %d ms)", resp.SessionID, resp.TimeOut)
	}
	return &rawSession{conn: c, id: resp.SessionID}, nil
}

// watchRequest is the frame of exists(path, watch).
func watchRequest(path string) []byte {
	return wire.AppendFrame(nil, &wire.RequestHeader{Xid: connsWatchXid, Type: wire.OpExists},
		&wire.ExistsRequest{Path: path, Watch: true})
}

// watchSync sets the watch before the reader runs: it sends exists and
// reads its reply (no ping is due yet, so the next frame is the reply).
func (s *rawSession) watchSync(path string) error {
	if _, err := s.conn.Write(watchRequest(path)); err != nil {
		return err
	}
	frame, err := wire.ReadFrame(s.conn, 0, nil)
	if err != nil {
		return fmt.Errorf("no reply to exists: %w", err)
	}
	var hdr wire.ReplyHeader
	dec := wire.NewDecoder(frame, 0)
	hdr.Decode(dec)
	if err := dec.Err(); err != nil {
		return fmt.Errorf("exists reply: %w", err)
	}
	if hdr.Xid != connsWatchXid || hdr.Err != wire.CodeOK {
		return fmt.Errorf("exists %s: xid %d, error %d", path, hdr.Xid, hdr.Err)
	}
	return nil
}

// rearm sends exists with watch again; the reader counts the reply.
func (s *rawSession) rearm(req []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := s.conn.Write(req)
	return err
}

// read is a connection's reader: it runs until the connection fails or
// is closed.
// Its small buffer takes a frame's length and body in one read (a bare
// ReadFrame makes two system calls a frame, which on a shared machine
// slow the very fan-out being timed).
func (c *connsConn) read(h *connsHub) {
	var buf []byte
	r := bufio.NewReaderSize(c.raw.conn, connsReadBuffer)
	for {
		frame, err := wire.ReadFrame(r, 0, buf)
		if err != nil {
			h.noteLost(fmt.Errorf("connection %d (session %#x): %w", c.idx, c.raw.id, err))
			return
		}
		buf = frame
		h.frame(c.idx, frame)
	}
}

// frame handles one frame read by connection idx.
func (h *connsHub) frame(idx int, frame []byte) {
	var hdr wire.ReplyHeader
	dec := wire.NewDecoder(frame, 0)
	hdr.Decode(dec)
	switch hdr.Xid {
	case wire.XidPing:
	case connsWatchXid:
		if hdr.Err != wire.CodeOK {
			h.armErrors.Add(1)
		}
		if a := h.arm.Load(); a != nil && a.got.Add(1) == a.want {
			close(a.done)
		}
	case wire.XidNotification:
		var ev wire.WatcherEvent
		ev.Decode(dec)
		h.event(idx, &ev)
	}
}

// event records a notification: the first NodeDataChanged for the path
// in the current fire counts, anything else is unexpected.
func (h *connsHub) event(idx int, ev *wire.WatcherEvent) {
	f := h.fire.Load()
	if f == nil || ev.Type != wire.EventNodeDataChanged || ev.Path != h.path ||
		!f.arrival[idx].CompareAndSwap(0, max(int64(time.Since(f.start)), 1)) {
		h.unexpected.Add(1)
		return
	}
	if f.got.Add(1) == f.want {
		close(f.done)
	}
}
