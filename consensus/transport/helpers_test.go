package transport

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// testStream is a raft.StreamLayer on loopback TCP. cut partitions it:
// dials fail, accepted connections are closed at once, and every
// connection it made or accepted is closed.
type testStream struct {
	net.Listener

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}

	writes atomic.Int64 // Write calls on the connections it dialled
}

// countingConn counts its writes in its stream.
type countingConn struct {
	net.Conn
	s *testStream
}

func (c countingConn) Write(p []byte) (int, error) {
	c.s.writes.Add(1)
	return c.Conn.Write(p)
}

var errCut = errors.New("test stream: partitioned")

func listenStream(t testing.TB, addr string) *testStream {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return &testStream{Listener: ln, conns: make(map[net.Conn]struct{})}
}

func (s *testStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	if s.isCut() {
		return nil, errCut
	}
	c, err := net.DialTimeout("tcp", string(addr), timeout)
	if err != nil {
		return nil, err
	}
	return s.track(countingConn{c, s})
}

func (s *testStream) Accept() (net.Conn, error) {
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc, err := s.track(c); err == nil {
			return tc, nil
		}
	}
}

// Close stops listening and closes every connection, as the stream
// layer of consensus/network.go does.
func (s *testStream) Close() error {
	err := s.Listener.Close()
	s.mu.Lock()
	open := s.conns
	s.conns = make(map[net.Conn]struct{})
	s.mu.Unlock()
	for c := range open {
		c.Close()
	}
	return err
}

func (s *testStream) isCut() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut
}

func (s *testStream) track(c net.Conn) (net.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut {
		c.Close()
		return nil, errCut
	}
	s.conns[c] = struct{}{}
	return c, nil
}

// partition cuts (true) or heals (false) the stream.
func (s *testStream) partition(cut bool) {
	s.mu.Lock()
	s.cut = cut
	var open []net.Conn
	if cut {
		for c := range s.conns {
			open = append(open, c)
		}
		clear(s.conns)
	}
	s.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
}

// logBuffer collects a logger's output, safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) contains(s string) bool { return strings.Contains(b.String(), s) }

func newLogger(name string, out *logBuffer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: name, Output: out, Level: hclog.Debug})
}

// newTransport starts a Transport on loopback; it is closed at cleanup.
func newTransport(t testing.TB, cfg Config) (*Transport, *logBuffer) {
	t.Helper()
	logs := new(logBuffer)
	if cfg.Logger == nil {
		cfg.Logger = newLogger("transport", logs)
	}
	tr := New(listenStream(t, ""), cfg)
	t.Cleanup(func() { tr.Close() })
	return tr, logs
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// within runs f and fails the test if it doesn't return within d.
func within(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// responder answers every RPC on tr's consumer with answer, until the
// test ends.
func responder(t testing.TB, tr raft.Transport, answer func(rpc raft.RPC)) {
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() {
		close(stop)
		<-done
	})
	go func() {
		defer close(done)
		for {
			select {
			case rpc := <-tr.Consumer():
				answer(rpc)
			case <-stop:
				return
			}
		}
	}()
}

// succeed answers an AppendEntries with success and LastLog set to its
// PrevLogEntry, so a test can match responses to requests.
func succeed(rpc raft.RPC) {
	req := rpc.Command.(*raft.AppendEntriesRequest)
	rpc.Respond(&raft.AppendEntriesResponse{Term: req.Term, LastLog: req.PrevLogEntry, Success: true}, nil)
}
