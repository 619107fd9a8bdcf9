package main

import (
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// errNotConnected is returned by sessionTap.call when no connection is up
// within the timeout.
var errNotConnected = errors.New("zkcli: not connected")

// tapMaxFrame bounds the frames the tap reads: far above ZooKeeper's
// default jute.maxbuffer, so that the tap never refuses what the server
// would send.
const tapMaxFrame = 1 << 28

// tapFirstXid is the xid of zkcli's first own request. go-zookeeper numbers
// its requests from 1 upwards and the protocol reserves -1 (notification),
// -2 (ping), -4 (auth) and -8 (setWatches); the tap counts down from here,
// so the two never meet. Servers echo any xid (ZooKeeper only leaves
// xids <= 0 out of its throttling counts).
const tapFirstXid = -1 << 20

// sessionTap lets zkcli send, on go-zookeeper's own connection and so in
// its one session, the requests go-zookeeper v1.0.4 does not offer (whoAmI,
// addWatch, removeWatches, reconfig with its reply, getEphemerals, ...).
// go-zookeeper dials through the tap, which wraps each connection: zkcli's
// frames are written between go-zookeeper's (each of which is one Write),
// and their replies, recognised by their xid, are taken out of the stream
// before go-zookeeper reads it. Notifications pass through to go-zookeeper
// and are also handed to the tap's listeners, which is how persistent
// watches, which go-zookeeper does not know, reach zkcli.
//
// go-zookeeper reconnects by itself, and the server forgets a
// connection's watches, so the tap adds its persistent watches again on
// every new connection (there is no catch-up for events missed while
// disconnected, as with ZooKeeper's own client).
type sessionTap struct {
	timeout time.Duration
	sasl    *saslLogin // nil: no SASL (sasltap.go)

	mu         sync.Mutex
	live       *tapConn
	liveCh     chan struct{} // closed when a connection becomes live
	xid        int32
	pending    map[int32]chan []byte
	sessionID  int64
	persistent map[string]int32 // path → addWatch mode
	listeners  map[int]chan tapEvent
	nextID     int
}

// tapEventKind says what a tapEvent reports.
type tapEventKind int

const (
	tapNotification tapEventKind = iota // a watch event from the server
	tapDisconnected                     // the connection was lost
	tapReconnected                      // a new connection to the same session
	tapNewSession                       // a new connection with a new session (the old one expired)
)

// tapEvent is what listeners receive.
type tapEvent struct {
	kind  tapEventKind
	event wire.WatcherEvent
}

func newSessionTap(timeout time.Duration) *sessionTap {
	return &sessionTap{
		timeout:    timeout,
		liveCh:     make(chan struct{}),
		xid:        tapFirstXid,
		pending:    map[int32]chan []byte{},
		persistent: map[string]int32{},
		listeners:  map[int]chan tapEvent{},
	}
}

// wrap returns nc wrapped by the tap; go-zookeeper's dialer calls it on
// every new connection.
func (t *sessionTap) wrap(nc net.Conn) net.Conn { return &tapConn{Conn: nc, t: t} }

// listen registers a listener; events beyond its buffer wait until it
// reads (the connection's reader blocks meanwhile). cancel unregisters it.
func (t *sessionTap) listen() (events <-chan tapEvent, cancel func()) {
	ch := make(chan tapEvent, 1024)
	t.mu.Lock()
	id := t.nextID
	t.nextID++
	t.listeners[id] = ch
	t.mu.Unlock()
	return ch, func() {
		t.mu.Lock()
		delete(t.listeners, id)
		t.mu.Unlock()
	}
}

func (t *sessionTap) broadcast(ev tapEvent) {
	t.mu.Lock()
	chans := make([]chan tapEvent, 0, len(t.listeners))
	for _, ch := range t.listeners {
		chans = append(chans, ch)
	}
	t.mu.Unlock()
	for _, ch := range chans {
		ch <- ev
	}
}

// call sends one request on the session and decodes the reply into resp
// (either may be nil for requests and replies without a body). A server
// error comes back as a keeperError on path, a lost connection as
// ConnectionLoss.
func (t *sessionTap) call(op wire.Op, req, resp wire.Record, path string) error {
	deadline := time.Now().Add(t.timeout)
	c, err := t.waitLive(deadline)
	if err != nil {
		return err
	}
	xid, ch := t.register()
	hdr := &wire.RequestHeader{Xid: xid, Type: op}
	var frame []byte
	if req == nil {
		frame = wire.AppendFrame(nil, hdr)
	} else {
		frame = wire.AppendFrame(nil, hdr, req)
	}
	if err := c.send(frame); err != nil {
		t.unregister(xid)
		return &keeperError{wire.CodeConnectionLoss, path}
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case body, ok := <-ch:
		if !ok {
			return &keeperError{wire.CodeConnectionLoss, path}
		}
		return decodeReply(body, resp, path)
	case <-timer.C:
		t.unregister(xid)
		return &keeperError{wire.CodeOperationTimeout, path}
	}
}

// decodeReply decodes a reply frame's header and, when it is not an
// error, its body into resp.
func decodeReply(body []byte, resp wire.Record, path string) error {
	d := wire.NewDecoder(body, 0)
	var h wire.ReplyHeader
	h.Decode(d)
	if err := d.Err(); err != nil {
		return err
	}
	if h.Err != wire.CodeOK {
		return &keeperError{h.Err, path}
	}
	if resp != nil {
		resp.Decode(d)
	}
	return d.Err()
}

// waitLive returns the live connection, waiting for one until deadline.
func (t *sessionTap) waitLive(deadline time.Time) (*tapConn, error) {
	for {
		t.mu.Lock()
		c, ch := t.live, t.liveCh
		t.mu.Unlock()
		if c != nil {
			return c, nil
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil, errNotConnected
		}
		select {
		case <-ch:
		case <-time.After(wait):
		}
	}
}

func (t *sessionTap) register() (int32, chan []byte) {
	ch := make(chan []byte, 1)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.xid--
	if t.xid > tapFirstXid || t.xid < -1<<30 {
		t.xid = tapFirstXid - 1
	}
	t.pending[t.xid] = ch
	return t.xid, ch
}

func (t *sessionTap) unregister(xid int32) {
	t.mu.Lock()
	delete(t.pending, xid)
	t.mu.Unlock()
}

// deliver hands a reply to the call waiting for xid, and reports whether
// there was one.
func (t *sessionTap) deliver(xid int32, body []byte) bool {
	if xid > tapFirstXid {
		return false
	}
	t.mu.Lock()
	ch, ok := t.pending[xid]
	delete(t.pending, xid)
	t.mu.Unlock()
	if ok {
		ch <- body
	}
	return ok
}

// greeted records a connection whose handshake reply the tap has read:
// it becomes the live one, and the persistent watches are added on it.
func (t *sessionTap) greeted(c *tapConn, resp *wire.ConnectResponse) {
	if resp.TimeOut == 0 || resp.SessionID == 0 {
		return // expired: go-zookeeper will start a new session
	}
	t.mu.Lock()
	kind := tapReconnected
	switch {
	case t.sessionID == 0:
		kind = tapNotification // the first connection: nothing to report
	case t.sessionID != resp.SessionID:
		kind = tapNewSession
	}
	t.sessionID = resp.SessionID
	if t.live == nil {
		close(t.liveCh)
	}
	t.live = c
	watches := make(map[string]int32, len(t.persistent))
	for p, m := range t.persistent {
		watches[p] = m
	}
	t.mu.Unlock()
	if kind != tapNotification {
		go t.rewatch(kind, watches)
	}
}

// rewatch adds the persistent watches again after a reconnection, then
// tells the listeners.
func (t *sessionTap) rewatch(kind tapEventKind, watches map[string]int32) {
	for p, m := range watches {
		t.call(wire.OpAddWatch, &wire.AddWatchRequest{Path: p, Mode: m}, nil, p)
	}
	t.broadcast(tapEvent{kind: kind})
}

// lost forgets c if it is the live connection: the calls waiting on it
// fail with ConnectionLoss and the listeners are told.
func (t *sessionTap) lost(c *tapConn) {
	t.mu.Lock()
	if t.live != c {
		t.mu.Unlock()
		return
	}
	t.live = nil
	t.liveCh = make(chan struct{})
	for xid, ch := range t.pending {
		close(ch)
		delete(t.pending, xid)
	}
	t.mu.Unlock()
	t.broadcast(tapEvent{kind: tapDisconnected})
}

// addPersistent and dropPersistent keep the list of watches to add again
// after a reconnection.
func (t *sessionTap) addPersistent(path string, mode int32) {
	t.mu.Lock()
	t.persistent[path] = mode
	t.mu.Unlock()
}

func (t *sessionTap) dropPersistent(path string) {
	t.mu.Lock()
	delete(t.persistent, path)
	t.mu.Unlock()
}

// tapConn is one connection as go-zookeeper sees it through the tap.
type tapConn struct {
	net.Conn
	t       *sessionTap
	wmu     sync.Mutex // one frame at a time
	rbuf    []byte     // bytes read for go-zookeeper, not yet handed over
	greeted bool
	lostMu  sync.Once
}

// Read hands go-zookeeper the stream without the replies meant for zkcli.
func (c *tapConn) Read(p []byte) (int, error) {
	for len(c.rbuf) == 0 {
		if err := c.fill(); err != nil {
			c.markLost()
			return 0, err
		}
	}
	n := copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}

// fill reads one frame and either keeps it for go-zookeeper or delivers
// it to the call it answers.
func (c *tapConn) fill() error {
	body, err := wire.ReadFrame(c.Conn, tapMaxFrame, nil)
	if err != nil {
		return err
	}
	if !c.greeted {
		c.greeted = true
		var resp wire.ConnectResponse
		if wire.Unmarshal(body, &resp, 0) == nil {
			if err := c.login(&resp); err != nil {
				return err
			}
			c.t.greeted(c, &resp)
		}
		c.keep(body)
		return nil
	}
	var h wire.ReplyHeader
	d := wire.NewDecoder(body, 0)
	h.Decode(d)
	if d.Err() == nil && c.t.deliver(h.Xid, body) {
		return nil
	}
	if h.Xid == wire.XidNotification {
		var ev wire.WatcherEvent
		ev.Decode(d)
		if d.Err() == nil {
			c.t.broadcast(tapEvent{kind: tapNotification, event: ev})
		}
	}
	c.keep(body)
	return nil
}

// login runs the SASL exchange, when zkcli has credentials, on a
// connection the server has granted a session (go-zookeeper starts again
// on an expired one): on every connection, reconnections included, before
// go-zookeeper gets the handshake reply. A refused login fails the tap's
// login for good; a connection lost meanwhile is only lost.
func (c *tapConn) login(resp *wire.ConnectResponse) error {
	s := c.t.sasl
	if s == nil || resp.TimeOut == 0 || resp.SessionID == 0 {
		return nil
	}
	err := s.run(c.Conn, c.t.timeout)
	if errors.Is(err, errSASLFailed) {
		s.fail(err) // refused: final, as Java's AUTH_FAILED
	}
	return err // nil, refused, or the connection lost: go-zookeeper tries again
}

// keep queues a frame, with its length prefix, for go-zookeeper.
func (c *tapConn) keep(body []byte) {
	c.rbuf = binary.BigEndian.AppendUint32(c.rbuf[:0], uint32(len(body)))
	c.rbuf = append(c.rbuf, body...)
}

// Write passes go-zookeeper's frames on, one at a time.
func (c *tapConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.Conn.Write(p)
}

// send writes one of zkcli's frames.
func (c *tapConn) send(frame []byte) error {
	_, err := c.Write(frame)
	return err
}

// Close closes the connection and tells the tap.
func (c *tapConn) Close() error {
	c.markLost()
	return c.Conn.Close()
}

func (c *tapConn) markLost() { c.lostMu.Do(func() { c.t.lost(c) }) }
