package integration

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// rawTimeout bounds every wait of the raw client for a frame it expects.
const rawTimeout = 5 * time.Second

// errServerClosed reports that the server closed the connection (EOF or
// reset) while the raw client was reading.
var errServerClosed = errors.New("rawclient: server closed the connection")

// errNoFrame reports that no frame arrived before the read deadline.
var errNoFrame = errors.New("rawclient: no frame before the deadline")

// rawClient speaks the ZooKeeper client protocol byte by byte, for tests
// that need what go-zookeeper/zk cannot send (create2, getChildren, addWatch,
// multiRead, whoAmI, hand-made SetWatches, malformed frames) or need to see
// the exact order of notifications and replies on a connection.
//
// It is not safe for concurrent use. Every wait has a read deadline.
type rawClient struct {
	addr   string
	conn   net.Conn
	xid    int32
	buf    []byte
	closed bool // the server closed the connection

	// Session is the ConnectResponse of the handshake.
	Session wire.ConnectResponse
}

// rawFrame is one frame the server sent after the handshake.
type rawFrame struct {
	Hdr  wire.ReplyHeader
	Body []byte // the bytes after the reply header (a copy)
}

// IsEvent reports whether the frame is a watch notification (xid -1).
func (f rawFrame) IsEvent() bool { return f.Hdr.Xid == wire.XidNotification }

// Event decodes the frame as a notification.
func (f rawFrame) Event() (wire.WatcherEvent, error) {
	var ev wire.WatcherEvent
	err := wire.Unmarshal(f.Body, &ev, 0)
	return ev, err
}

// rawEvent is a decoded notification with the zxid of its reply header.
type rawEvent struct {
	Zxid int64
	wire.WatcherEvent
}

// rawReply is the answer to one request: the notifications that arrived
// before it, in order, and the reply itself.
type rawReply struct {
	Events []rawEvent
	Hdr    wire.ReplyHeader
	Body   []byte
}

// dialRaw opens a TCP connection without doing the handshake.
func dialRaw(addr string) (*rawClient, error) {
	c, err := net.DialTimeout("tcp", addr, rawTimeout)
	if err != nil {
		return nil, err
	}
	return &rawClient{addr: addr, conn: c}, nil
}

// connectRaw dials addr and opens a new session with the given timeout (ms).
func connectRaw(addr string, timeoutMs int32) (*rawClient, error) {
	c, err := dialRaw(addr)
	if err != nil {
		return nil, err
	}
	_, err = c.Handshake(wire.ConnectRequest{TimeOut: timeoutMs, Passwd: make([]byte, 16)})
	if err != nil {
		c.Close()
		return nil, err
	}
	if c.Session.TimeOut <= 0 || c.Session.SessionID == 0 {
		c.Close()
		return nil, fmt.Errorf("rawclient: session refused: %+v", c.Session)
	}
	return c, nil
}

// Close closes the socket (without closeSession).
func (c *rawClient) Close() error { return c.conn.Close() }

// Closed reports whether a read has seen the server close the connection.
func (c *rawClient) Closed() bool { return c.closed }

// Handshake sends req as the first frame and reads the ConnectResponse.
func (c *rawClient) Handshake(req wire.ConnectRequest) (wire.ConnectResponse, error) {
	if err := c.WriteRaw(wire.AppendFrame(nil, &req)); err != nil {
		return wire.ConnectResponse{}, err
	}
	b, err := c.readPayload(rawTimeout)
	if err != nil {
		return wire.ConnectResponse{}, err
	}
	var resp wire.ConnectResponse
	if err := wire.Unmarshal(b, &resp, 0); err != nil {
		return resp, fmt.Errorf("rawclient: bad ConnectResponse %x: %w", b, err)
	}
	c.Session = resp
	return resp, nil
}

// NextXid returns the next positive xid.
func (c *rawClient) NextXid() int32 {
	c.xid++
	return c.xid
}

// Send writes a request with the next xid and returns that xid. req may be
// nil for requests without a body.
func (c *rawClient) Send(op wire.Op, req wire.Record) (int32, error) {
	xid := c.NextXid()
	return xid, c.SendXid(xid, op, req)
}

// SendXid writes a request with the given xid.
func (c *rawClient) SendXid(xid int32, op wire.Op, req wire.Record) error {
	return c.WriteRaw(wire.AppendFrame(nil, &wire.RequestHeader{Xid: xid, Type: op}, req))
}

// WriteRaw writes bytes as they are.
func (c *rawClient) WriteRaw(b []byte) error {
	if err := c.conn.SetWriteDeadline(time.Now().Add(rawTimeout)); err != nil {
		return err
	}
	_, err := c.conn.Write(b)
	if isClosedErr(err) {
		c.closed = true
		return errServerClosed
	}
	return err
}

func isClosedErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed)
}

// readPayload reads one frame payload, waiting at most timeout.
func (c *rawClient) readPayload(timeout time.Duration) ([]byte, error) {
	if err := c.conn.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	b, err := wire.ReadFrame(c.conn, 64<<20, c.buf)
	switch {
	case err == nil:
		c.buf = b[:0]
		return b, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, errNoFrame
	case isClosedErr(err):
		c.closed = true
		return nil, errServerClosed
	}
	return nil, err
}

// ReadFrame reads the next frame after the handshake.
func (c *rawClient) ReadFrame(timeout time.Duration) (rawFrame, error) {
	b, err := c.readPayload(timeout)
	if err != nil {
		return rawFrame{}, err
	}
	var f rawFrame
	d := wire.NewDecoder(b, 0)
	f.Hdr.Decode(d)
	if d.Err() != nil {
		return f, fmt.Errorf("rawclient: short reply header %x", b)
	}
	f.Body = append([]byte(nil), b[d.Offset():]...)
	return f, nil
}

// ReadReply reads frames until the reply with xid, collecting the
// notifications that come first. A reply with another xid is an error.
func (c *rawClient) ReadReply(xid int32) (rawReply, error) {
	var r rawReply
	for {
		f, err := c.ReadFrame(rawTimeout)
		if err != nil {
			return r, err
		}
		if f.IsEvent() {
			ev, err := f.Event()
			if err != nil {
				return r, fmt.Errorf("rawclient: bad notification %x: %w", f.Body, err)
			}
			r.Events = append(r.Events, rawEvent{Zxid: f.Hdr.Zxid, WatcherEvent: ev})
			continue
		}
		r.Hdr, r.Body = f.Hdr, f.Body
		if f.Hdr.Xid != xid {
			return r, fmt.Errorf("rawclient: reply xid %d, want %d", f.Hdr.Xid, xid)
		}
		return r, nil
	}
}

// Call sends a request and reads its reply. When the reply has no error and
// resp is not nil, the body is decoded into resp.
func (c *rawClient) Call(op wire.Op, req, resp wire.Record) (rawReply, error) {
	xid, err := c.Send(op, req)
	if err != nil {
		return rawReply{}, err
	}
	return c.finish(xid, resp)
}

// CallXid is Call with a chosen xid (e.g. -4 for auth, -8 for setWatches).
func (c *rawClient) CallXid(xid int32, op wire.Op, req, resp wire.Record) (rawReply, error) {
	if err := c.SendXid(xid, op, req); err != nil {
		return rawReply{}, err
	}
	return c.finish(xid, resp)
}

func (c *rawClient) finish(xid int32, resp wire.Record) (rawReply, error) {
	r, err := c.ReadReply(xid)
	if err != nil {
		return r, err
	}
	if r.Hdr.Err == wire.CodeOK && resp != nil {
		if err := wire.Unmarshal(r.Body, resp, 0); err != nil {
			return r, fmt.Errorf("rawclient: decode %T from %x: %w", resp, r.Body, err)
		}
	}
	return r, nil
}

// Ping sends a ping (xid -2) and returns the notifications that arrived
// before its reply. Because a server sends a connection's notifications in
// order with its replies, this drains every event queued before the ping.
func (c *rawClient) Ping() ([]rawEvent, error) {
	r, err := c.CallXid(wire.XidPing, wire.OpPing, nil, nil)
	return r.Events, err
}

// CloseSession sends closeSession and reads its reply.
func (c *rawClient) CloseSession() (rawReply, error) {
	return c.Call(wire.OpCloseSession, nil, nil)
}

// WaitClosed reads until the server closes the connection or timeout
// passes, returning the frames that arrived meanwhile and whether the
// connection was closed.
func (c *rawClient) WaitClosed(timeout time.Duration) (frames []rawFrame, closed bool, err error) {
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return frames, false, nil
		}
		f, err := c.ReadFrame(left)
		switch {
		case errors.Is(err, errServerClosed):
			return frames, true, nil
		case errors.Is(err, errNoFrame):
			return frames, false, nil
		case err != nil:
			return frames, false, err
		}
		frames = append(frames, f)
	}
}
