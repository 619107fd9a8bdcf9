package recipes_test

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// freezer is a TCP proxy on 127.0.0.1 in front of one server that a test
// can freeze: while frozen it passes nothing on in either direction, not
// even a closed connection, so the client behind it hears nothing from the
// server, as if its whole process were paused (a long GC, swapping, a
// stopped VM). Bytes read meanwhile are held and delivered on Thaw.
type freezer struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond
	frozen bool
	closed bool
	conns  []net.Conn
	wg     sync.WaitGroup
}

// startFreezer starts a freezer in front of target, closed when the test
// ends (after the clients that the test connected later).
func startFreezer(t testing.TB, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, target: target}
	f.cond = sync.NewCond(&f.mu)
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(f.close)
	return f
}

// Addr is the address clients connect to.
func (f *freezer) Addr() string { return f.ln.Addr().String() }

// Freeze stops all traffic until Thaw.
func (f *freezer) Freeze() { f.set(true) }

// Thaw lets the held traffic, and what follows, through.
func (f *freezer) Thaw() { f.set(false) }

func (f *freezer) set(frozen bool) {
	f.mu.Lock()
	f.frozen = frozen
	f.mu.Unlock()
	f.cond.Broadcast()
}

// gate waits while the freezer is frozen (and not closing).
func (f *freezer) gate() {
	f.mu.Lock()
	for f.frozen && !f.closed {
		f.cond.Wait()
	}
	f.mu.Unlock()
}

func (f *freezer) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", f.target)
		if err != nil {
			c.Close()
			continue
		}
		if !f.track(c, s) {
			return
		}
		f.wg.Add(2)
		go f.pipe(c, s)
		go f.pipe(s, c)
	}
}

// track remembers a proxied pair for close; false if closing already.
func (f *freezer) track(c, s net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		c.Close()
		s.Close()
		return false
	}
	f.conns = append(f.conns, c, s)
	return true
}

// pipe copies src to dst through the gate; src's end (EOF or error) is
// passed on as a close of both, through the gate too.
func (f *freezer) pipe(src, dst net.Conn) {
	defer f.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		f.gate()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			dst.Close()
			src.Close()
			return
		}
	}
}

func (f *freezer) close() {
	f.mu.Lock()
	f.closed = true
	conns := f.conns
	f.mu.Unlock()
	f.cond.Broadcast()
	f.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	f.wg.Wait()
}

// connectVia connects a client to addrs with the given session timeout
// and waits for its session; it is closed when the test ends.
func connectVia(t testing.TB, timeout time.Duration, addrs ...string) *zk.Conn {
	t.Helper()
	c, events, err := zk.Connect(addrs, timeout, zk.WithLogger(quietLog{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	deadline := time.After(10 * time.Second)
	for c.State() != zk.StateHasSession {
		select {
		case <-events:
		case <-deadline:
			t.Fatalf("no session after 10s (state %v)", c.State())
		}
	}
	return c
}

type quietLog struct{}

func (quietLog) Printf(string, ...interface{}) {}
