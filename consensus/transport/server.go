package transport

import (
	"bufio"
	"errors"
	"io"
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// acceptLoop serves every connection the stream accepts, until Close.
func (t *Transport) acceptLoop() {
	defer t.wg.Done()
	const firstDelay, maxDelay = 5 * time.Millisecond, time.Second
	var delay time.Duration
	for {
		c, err := t.stream.Accept()
		if err != nil {
			if t.isShutdown() {
				return
			}
			if errors.Is(err, net.ErrClosed) {
				t.log.Error("listener closed; no longer serving", "error", err)
				return
			}
			if delay == 0 {
				t.log.Error("failed to accept connection; retrying", "error", err)
				delay = firstDelay
			} else {
				delay = min(2*delay, maxDelay)
			}
			select {
			case <-t.shutdown:
				return
			case <-time.After(delay):
			}
			continue
		}
		delay = 0
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			c.Close()
			return
		}
		t.served[c] = struct{}{}
		t.wg.Add(1)
		t.mu.Unlock()
		go t.serve(c)
	}
}

// serving is one accepted connection. Its reader (serve's goroutine)
// decodes requests and hands them to the consumer one after the other;
// its writer sends the responses in the same order. So the next request
// is decoded while the previous is being processed, and responses that
// are ready together go out in one write.
type serving struct {
	t  *Transport
	c  net.Conn
	br *bufio.Reader
	// queue holds the requests handed over, awaiting their responses.
	queue chan pending
	// dead is closed when the reader stops; writerDone when the writer
	// does.
	dead, writerDone chan struct{}
	wbuf             []byte
}

// pending is a request awaiting its response.
type pending struct {
	typ  byte
	resp chan raft.RPCResponse
	// written, for InstallSnapshot, is closed once the response is sent.
	written chan struct{}
}

func (t *Transport) serve(c net.Conn) {
	defer t.wg.Done()
	defer func() {
		c.Close()
		t.mu.Lock()
		delete(t.served, c)
		t.mu.Unlock()
	}()
	s := &serving{
		t:          t,
		c:          c,
		br:         bufio.NewReaderSize(c, 64<<10),
		queue:      make(chan pending, t.cfg.MaxInFlight),
		dead:       make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	if !s.readPreamble() {
		return
	}
	go s.writeLoop()
	err := s.readLoop()
	close(s.dead)
	<-s.writerDone
	var pe protocolError
	switch {
	case err == nil, err == io.EOF, t.isShutdown():
	case errors.As(err, &pe):
		t.log.Warn("closing connection: protocol violation", "remote", c.RemoteAddr().String(), "error", pe.err)
	default:
		t.log.Debug("connection ended", "remote", c.RemoteAddr().String(), "error", err)
	}
}

// protocolError is a frame this transport refuses, as opposed to a
// connection that failed.
type protocolError struct{ err error }

func (e protocolError) Error() string { return e.err.Error() }
func (e protocolError) Unwrap() error { return e.err }

// readPreamble checks the dialer's preamble. The wait for its first byte
// is the stream layer's to bound; the rest must follow within Timeout.
func (s *serving) readPreamble() bool {
	var pre [len(preamble)]byte
	if _, err := io.ReadFull(s.br, pre[:1]); err != nil {
		return false
	}
	s.c.SetReadDeadline(time.Now().Add(s.t.cfg.Timeout))
	_, err := io.ReadFull(s.br, pre[1:])
	s.c.SetReadDeadline(time.Time{})
	switch {
	case err != nil:
		s.t.log.Warn("closing connection: incomplete preamble", "remote", s.c.RemoteAddr().String(), "error", err)
		return false
	case pre == preamble:
		return true
	case pre[0] <= 5:
		s.t.log.Warn("closing connection: the peer speaks hashicorp/raft's NetworkTransport, not this transport",
			"remote", s.c.RemoteAddr().String(), "first-bytes", pre[:])
	case string(pre[:4]) == string(preamble[:4]):
		s.t.log.Warn("closing connection: unsupported protocol version",
			"remote", s.c.RemoteAddr().String(), "version", pre[4], "supported", protocolVersion)
	default:
		s.t.log.Warn("closing connection: bad preamble", "remote", s.c.RemoteAddr().String(), "first-bytes", pre[:])
	}
	return false
}

// readLoop decodes requests and hands them over until the connection
// fails or an InstallSnapshot was answered (its connection is not
// reused). A nil error means it stopped on purpose.
func (s *serving) readLoop() error {
	t := s.t
	var hdr [frameHeader]byte
	for {
		typ, n, err := readHeader(s.br, &hdr, t.cfg.MaxFrame)
		if errors.Is(err, ErrFrameTooLarge) || err == errEmptyFrame {
			return protocolError{err}
		}
		if err != nil {
			return err
		}
		// Each body gets its own buffer: the request's byte strings and
		// entries' data are sub-slices of it, and Raft keeps them.
		body, err := readBody(s.br, n, nil, false)
		if err != nil {
			return err
		}
		req, err := decodeRequest(typ, body)
		if err != nil {
			return protocolError{err}
		}
		p := pending{typ: typ, resp: make(chan raft.RPCResponse, 1)}
		rpc := raft.RPC{Command: req, RespChan: p.resp}
		if typ == typeInstallSnapshot {
			size := req.(*raft.InstallSnapshotRequest).Size
			s.c.SetReadDeadline(time.Now().Add(snapshotTimeout(t.cfg.Timeout, size)))
			rpc.Reader = io.LimitReader(s.br, size)
			p.written = make(chan struct{})
			t.stats.snapshotsServed.Add(1)
		}
		select {
		case s.queue <- p:
		case <-s.writerDone:
			return nil
		case <-t.shutdown:
			return nil
		}
		if !s.handle(rpc) {
			return nil
		}
		if p.written != nil {
			select {
			case <-p.written:
			case <-s.writerDone:
			case <-t.shutdown:
			}
			return nil
		}
	}
}

// handle gives rpc to the heartbeat handler, if it is a heartbeat and
// one is set, or to the consumer; false if the transport or the
// connection closed first.
func (s *serving) handle(rpc raft.RPC) bool {
	if ae, ok := rpc.Command.(*raft.AppendEntriesRequest); ok && isHeartbeat(ae) {
		if fn := s.t.heartbeat.Load(); fn != nil {
			(*fn)(rpc)
			return true
		}
	}
	select {
	case s.t.consumeCh <- rpc:
		return true
	case <-s.writerDone:
	case <-s.t.shutdown:
	}
	return false
}

// isHeartbeat reports whether r is Raft's heartbeat, as NetworkTransport
// tells it: it names its leader and term but no entry, no previous entry
// and no commit index.
func isHeartbeat(r *raft.AppendEntriesRequest) bool {
	leader := r.RPCHeader.Addr
	if len(leader) == 0 {
		leader = r.Leader
	}
	return r.Term != 0 && leader != nil &&
		r.PrevLogEntry == 0 && r.PrevLogTerm == 0 &&
		len(r.Entries) == 0 && r.LeaderCommitIndex == 0
}

// writeLoop sends the responses in request order. A response is
// buffered and the buffer written only when the next response is not
// ready yet, so responses ready together share one write. It stops when
// the reader has stopped, the transport closes, or a write fails, and
// closes the connection so the reader stops too.
func (s *serving) writeLoop() {
	defer close(s.writerDone)
	defer s.c.Close()
	for {
		var p pending
		select {
		case p = <-s.queue:
		default:
			if !s.flush() {
				return
			}
			select {
			case p = <-s.queue:
			case <-s.dead:
				return
			case <-s.t.shutdown:
				return
			}
		}
		var rr raft.RPCResponse
		select {
		case rr = <-p.resp:
		default:
			if !s.flush() {
				return
			}
			select {
			case rr = <-p.resp:
			case <-s.dead:
				return
			case <-s.t.shutdown:
				return
			}
		}
		if r, ok := rr.Response.(*raft.AppendEntriesResponse); ok && r != nil && !r.Success {
			s.t.stats.rejectedServed.Add(1)
		}
		var err error
		s.wbuf, err = appendResponse(s.wbuf, p.typ, rr, s.t.cfg.MaxFrame)
		if err != nil {
			s.t.log.Error("closing connection: response too large", "remote", s.c.RemoteAddr().String(), "error", err)
			return
		}
		if p.written != nil {
			if !s.flush() {
				return
			}
			close(p.written)
		}
	}
}

// flush writes the buffered responses.
func (s *serving) flush() bool {
	if len(s.wbuf) == 0 {
		return true
	}
	s.c.SetWriteDeadline(time.Now().Add(s.t.cfg.Timeout))
	_, err := s.c.Write(s.wbuf)
	s.wbuf = s.wbuf[:0]
	if cap(s.wbuf) > retainLimit {
		s.wbuf = nil
	}
	if err != nil {
		s.t.log.Debug("closing connection: writing responses failed", "remote", s.c.RemoteAddr().String(), "error", err)
		return false
	}
	return true
}
