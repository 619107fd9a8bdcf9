package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// A rawSession is a session opened with ZooKeeper's bare handshake (a
// ConnectRequest frame, a ConnectResponse frame) on the repository's wire
// package, for -op sessions -sessionclient raw. go-zookeeper's Connect
// allocates and clears a 1.5 MiB buffer for every connection before its
// options can shrink it (conn.go's bufferSize in v1.0.4), so opening 10,000
// sessions costs zkbench about 750 µs of CPU each, four times what the three
// servers of an ensemble spend on them: with both sharing two cores, the
// time to open says more about the client than about the server. The raw
// handshake costs a few microseconds, so the time is the server's.
//
// A raw session holds its connection open, is kept alive by rawKeeper's
// pings, and is ended with a closeSession request. It reads nothing but
// the handshake and the close's reply; ping replies (20 bytes each) wait
// in the socket's buffer until then.
type rawSession struct {
	conn net.Conn
	id   int64
	mu   sync.Mutex // one writer at a time: the keeper's pings, close
}

// rawCloseXid is the xid of the closeSession request (pings use -2).
const rawCloseXid = 1

// dialRaw opens a session on addr with the given timeout.
func dialRaw(ctx context.Context, addr string, timeout time.Duration) (*rawSession, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(timeout))
	s, err := connsHandshake(c, timeout)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	c.SetDeadline(time.Time{})
	return s, nil
}

// ping sends a ping; the reply is left unread.
func (s *rawSession) ping() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := s.conn.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: wire.XidPing, Type: wire.OpPing}))
	return err
}

// close sends closeSession, reads frames until its reply (skipping the
// unread ping replies) and closes the connection.
func (s *rawSession) close(timeout time.Duration) error {
	defer s.conn.Close()
	s.mu.Lock()
	s.conn.SetDeadline(time.Now().Add(timeout))
	_, err := s.conn.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: rawCloseXid, Type: wire.OpCloseSession}))
	s.mu.Unlock()
	if err != nil {
		return err
	}
	var buf []byte
	for {
		frame, err := wire.ReadFrame(s.conn, 0, buf)
		if err != nil {
			return fmt.Errorf("session %#x: no reply to closeSession: %w", s.id, err)
		}
		buf = frame
		var hdr wire.ReplyHeader
		dec := wire.NewDecoder(frame, 0)
		hdr.Decode(dec)
		if dec.Err() == nil && hdr.Xid == rawCloseXid {
			if hdr.Err != wire.CodeOK {
				return fmt.Errorf("session %#x: closeSession: error %d", s.id, hdr.Err)
			}
			return nil
		}
	}
}

// rawKeeper pings every session a third of the session timeout apart, as
// clients do, until stopped; the first failure is kept.
type rawKeeper struct {
	stop chan struct{}
	done chan struct{}
	err  error
}

func keepRaw(sessions []*rawSession, timeout time.Duration) *rawKeeper {
	k := &rawKeeper{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(k.done)
		t := time.NewTicker(timeout / 3)
		defer t.Stop()
		for {
			select {
			case <-k.stop:
				return
			case <-t.C:
			}
			for _, s := range sessions {
				if err := s.ping(); err != nil && k.err == nil {
					k.err = fmt.Errorf("ping session %#x: %w", s.id, err)
				}
			}
		}
	}()
	return k
}

// finish stops the pings and returns the first failure.
func (k *rawKeeper) finish() error {
	close(k.stop)
	<-k.done
	return k.err
}

// openRaw opens o.n raw sessions, session i on addrs[i mod len(addrs)],
// o.inflight at a time.
func openRaw(ctx context.Context, o *options, addrs []string) ([]*rawSession, error) {
	out := make([]*rawSession, o.n)
	err := parallel(o.n, o.inflight, func(i int) error {
		s, err := dialRaw(ctx, addrs[i%len(addrs)], o.sessionTimeout)
		if err != nil {
			return fmt.Errorf("session %d: %w", i+1, err)
		}
		out[i] = s
		return nil
	})
	if err != nil {
		for _, s := range out {
			if s != nil {
				s.conn.Close()
			}
		}
		return nil, err
	}
	return out, nil
}

// closeRaw closes the sessions, o.inflight at a time.
func closeRaw(o *options, sessions []*rawSession) error {
	errs := make([]error, len(sessions))
	parallel(len(sessions), o.inflight, func(i int) error {
		errs[i] = sessions[i].close(o.sessionTimeout)
		return nil
	})
	return errors.Join(errs...)
}
