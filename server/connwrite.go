package server

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// A connection's replies are written without ever blocking the goroutine
// that produced them. A write that the socket cannot take at once leaves
// its remainder in the connection's backlog, and a sender goroutine, which
// exists only while there is a backlog, writes it out as the client reads.
//
// Before, the writer blocked in the socket write; the reader then stopped
// at maxOutstanding queued requests and no longer read the client's pings,
// so a client that pipelined reads and read its replies slowly lost its
// session although it kept pinging (issue 12, defect 4). ZooKeeper keeps
// such a session: its replies queue in memory, unbounded. Here the memory
// is bounded: a connection whose backlog would pass ClientOutputLimit, or
// whose growth would take all connections past TotalClientOutputLimit, is
// closed with a warning. Its session lives on; the client reconnects.

// errOutputLimit ends a connection whose client does not read its replies.
var errOutputLimit = errors.New("server: client is not reading its replies")

// backlog holds the bytes the socket has not yet taken, as a list of
// chunks in order. Only the holder of output.mu calls send; the sender
// goroutine, while it runs, is the only one that writes to the socket.
type backlog struct {
	c       *conn
	try     func([]byte) (int, error) // non-blocking write; nil: always queue
	mu      sync.Mutex
	chunks  net.Buffers // waiting for the sender
	held    int         // bytes in chunks and in the sender's hands
	sending bool        // a sender goroutine runs
	drained chan struct{}
	err     error
}

// send writes p, or what the socket does not take at once into the
// backlog. p is not kept.
func (b *backlog) send(p []byte) error {
	b.mu.Lock()
	if b.err != nil || b.sending {
		err := b.queueLocked(p)
		b.mu.Unlock()
		return err
	}
	b.mu.Unlock()
	n := 0
	if b.try != nil {
		var err error
		if n, err = b.try(p); err != nil {
			return err
		}
	}
	if n == len(p) {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.queueLocked(p[n:]); err != nil {
		return err
	}
	b.sending = true
	b.drained = make(chan struct{})
	b.c.srv.wg.Add(1) // the caller's loop is counted: the group is not at zero
	go b.sender()
	return nil
}

// queueLocked copies p into the backlog unless that passes a limit, in
// which case the connection is cut.
func (b *backlog) queueLocked(p []byte) error {
	if b.err != nil {
		return b.err
	}
	s := b.c.srv
	if limit := s.cfg.connOutputLimit(); b.held+len(p) > limit {
		b.cutLocked(len(p), "ClientOutputLimit (zkraft.clientOutputLimit)", int64(limit))
		return b.err
	}
	if !reserve(&s.outputHeld, int64(len(p)), s.cfg.totalOutputLimit()) {
		b.cutLocked(len(p), "TotalClientOutputLimit (zkraft.totalClientOutputLimit)", s.cfg.totalOutputLimit())
		return b.err
	}
	b.chunks = append(b.chunks, append([]byte(nil), p...))
	b.held += len(p)
	return nil
}

// reserve adds n to *held unless that takes it past limit.
func reserve(held *atomic.Int64, n, limit int64) bool {
	for {
		cur := held.Load()
		if cur+n > limit {
			return false
		}
		if held.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// cutLocked closes the connection for passing limit, and says so.
func (b *backlog) cutLocked(adding int, limit string, value int64) {
	b.err = errOutputLimit
	c := b.c
	c.srv.log.Warn("closing connection: the client does not read its replies and its unsent replies passed a limit",
		"remote", c.nc.RemoteAddr().String(), "session", sessionHex(c.sessionID()),
		"unsent_bytes", b.held+adding, "limit", limit, "limit_bytes", value,
		"all_connections_unsent_bytes", c.srv.outputHeld.Load(),
		"hint", "raise the limit in zoo.cfg if clients legitimately read this slowly; the session survives and the client may reconnect")
	// Not c.close() here: send may run inside the reader's raw read of
	// this socket (sockReader flushes before it waits), and closing a
	// socket waits for the I/O in progress on it to return.
	c.srv.wg.Add(1) // the caller is counted: the group is not at zero
	go func() {
		defer c.srv.wg.Done()
		c.close()
	}()
}

// sender writes the backlog until it is empty or the socket fails.
func (b *backlog) sender() {
	defer b.c.srv.wg.Done()
	for {
		b.mu.Lock()
		if len(b.chunks) == 0 || b.err != nil {
			b.releaseLocked()
			b.sending = false
			close(b.drained)
			b.mu.Unlock()
			return
		}
		bufs := b.chunks
		b.chunks = nil
		b.mu.Unlock()
		n := 0
		for _, p := range bufs {
			n += len(p)
		}
		_, err := bufs.WriteTo(b.c.nc)
		b.mu.Lock()
		b.held -= n
		b.c.srv.outputHeld.Add(-int64(n))
		if err != nil && b.err == nil {
			b.err = err
		}
		b.mu.Unlock()
		if err != nil {
			b.c.close()
		}
	}
}

// releaseLocked drops what is left after a failure from the accounting.
func (b *backlog) releaseLocked() {
	b.c.srv.outputHeld.Add(-int64(b.held))
	b.held, b.chunks = 0, nil
}

// drain waits until the backlog is written, for at most d (a client that
// does not read cannot keep a closing connection open).
func (b *backlog) drain(d time.Duration) {
	b.mu.Lock()
	sending, drained := b.sending, b.drained
	b.mu.Unlock()
	if !sending {
		return
	}
	b.c.nc.SetWriteDeadline(time.Now().Add(d))
	<-drained
}

// unsent returns the bytes waiting in the backlog.
func (b *backlog) unsent() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}
