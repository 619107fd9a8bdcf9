//go:build linux

package integration

import (
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// The hostile-client suite (zkraft issue 12): clients that hold resources
// without making progress must not stop the server serving everyone else,
// and what they make it hold must stay bounded. Every test runs on the
// fake clock with a short sessionless timeout, so none waits real seconds.

// hostileSessionless is the handshake bound these tests configure.
const hostileSessionless = 2 * time.Second

func startHostile(t *testing.T, edit func(c *server.Config)) *Server {
	t.Helper()
	return StartServer(t, WithFakeClock(), WithConfig(func(c *server.Config) {
		c.SessionlessCnxnTimeout = hostileSessionless
		if edit != nil {
			edit(c)
		}
	}))
}

// dialSmallWindow connects to addr with a 16 KiB receive buffer, set
// before the connection is made so the window the client advertises
// matches it (shrinking it later makes the kernel drop data already sent,
// and the server's retransmissions back off for seconds). The kernel then
// holds little of what the server sends a client that does not read.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: rawTimeout, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	nc, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	return nc
}

// dialFrom opens a TCP connection from a given loopback address (Linux
// routes all of 127.0.0.0/8 to lo), as a client behind another IP would.
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: rawTimeout}
	nc, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	return nc
}

// otherClient connects a go-zookeeper client from 127.0.0.2, so per-IP
// limits filled by 127.0.0.1 do not apply to it.
func otherClient(t *testing.T, s *Server) *zk.Conn {
	t.Helper()
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: timeout}
		return d.Dial(network, address)
	}
	c, _ := s.Connect(t, zk.WithDialer(dialer))
	return c
}

// requireServes checks a client can still write and read.
func requireServes(t *testing.T, c *zk.Conn, path string) {
	t.Helper()
	_, err := c.Create(path, []byte("ok"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, "the server stopped serving a well-behaved client")
	data, _, err := c.Get(path)
	require.NoError(t, err)
	require.Equal(t, "ok", string(data))
}

// requireServerCloses asserts the server closes nc (EOF or reset after
// whatever it had sent), within a real-time deadline, and returns the
// bytes read from it. It reads: a connection the server would cut only
// for not reading must already be closed (see waitOpen).
func requireServerCloses(t *testing.T, nc net.Conn) int64 {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64<<10)
	var read int64
	for {
		n, err := nc.Read(buf)
		read += int64(n)
		if err == nil {
			continue
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("the server kept a hostile connection open: %v", err)
		}
		return read
	}
}

// liveHeap returns the bytes of live heap after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// waitOpen waits until the server has n client connections open.
func waitOpen(t *testing.T, s *Server, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return s.OpenConnections() == n }, 10*time.Second, time.Millisecond,
		"want %d open connections, have %d", n, s.OpenConnections())
}

// Slowloris: maxClientCnxns connections from one address that send
// nothing, or a ConnectRequest a few bytes at a time, lock that address
// out only until sessionlessCnxnTimeout; other addresses are served all
// along.
func TestHostile_Slowloris(t *testing.T) {
	s := startHostile(t, nil)
	other := otherClient(t, s)
	connect := wire.AppendFrame(nil, &wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)})
	var hostile []net.Conn
	for i := 0; i < server.DefaultMaxClientCnxns; i++ {
		nc := dialFrom(t, "127.0.0.1", s.Addr())
		nc.Write(connect[:i%len(connect)]) // 0 .. len-1 bytes: never complete
		hostile = append(hostile, nc)
	}
	waitOpen(t, s, server.DefaultMaxClientCnxns+1)
	for i, nc := range hostile[:10] {
		// Still trickling (byte i of the request, after the i sent):
		// progress does not extend the bound.
		nc.Write(connect[i : i+1])
	}
	requireServes(t, other, "/during")
	// The address is full: one more from it is refused at once.
	requireServerCloses(t, dialFrom(t, "127.0.0.1", s.Addr()))

	s.Clock.Advance(hostileSessionless)
	for _, nc := range hostile {
		requireServerCloses(t, nc)
	}
	waitOpen(t, s, 1)
	again, _ := s.Connect(t) // from 127.0.0.1 again
	requireServes(t, again, "/after")
	requireServes(t, other, "/other")
}

// A flood of connections from many addresses, each sending nothing: the
// descriptors come back after sessionlessCnxnTimeout, and while they are
// held each costs the server little memory (measured).
func TestHostile_ConnectionFlood(t *testing.T) {
	s := startHostile(t, nil)
	other := otherClient(t, s)
	const addrs, perAddr = 10, 30
	before := liveHeap()
	var flood []net.Conn
	for a := 0; a < addrs; a++ {
		for i := 0; i < perAddr; i++ {
			flood = append(flood, dialFrom(t, fmt.Sprintf("127.0.1.%d", a+1), s.Addr()))
		}
	}
	waitOpen(t, s, addrs*perAddr+1)
	perConn := (liveHeap() - before) / int64(len(flood))
	t.Logf("%d silent connections: %d bytes of live heap each", len(flood), perConn)
	require.Less(t, perConn, int64(32<<10), "a silent connection costs too much memory")
	requireServes(t, other, "/during")

	s.Clock.Advance(hostileSessionless)
	for _, nc := range flood {
		requireServerCloses(t, nc)
	}
	waitOpen(t, s, 1)
	requireServes(t, other, "/after")
}

// Frames that claim jute.maxbuffer and then stall, before and after the
// handshake, cost what arrived, not what was claimed; a claim above
// jute.maxbuffer is refused at once.
func TestHostile_HugeFrames(t *testing.T) {
	s := startHostile(t, func(c *server.Config) { c.MaxClientCnxns = 0 })
	other := otherClient(t, s)
	claim := binary.BigEndian.AppendUint32(nil, wire.DefaultMaxBuffer)
	partial := append(claim, make([]byte, 100)...)

	tooLarge := dialFrom(t, "127.0.0.1", s.Addr())
	tooLarge.Write(binary.BigEndian.AppendUint32(nil, wire.DefaultMaxBuffer+1))
	requireServerCloses(t, tooLarge)

	const handshaking, sessions = 100, 50
	before := liveHeap()
	var stalled []net.Conn
	for i := 0; i < handshaking; i++ {
		nc := dialFrom(t, "127.0.0.1", s.Addr())
		nc.Write(partial)
		stalled = append(stalled, nc)
	}
	for i := 0; i < sessions; i++ {
		rc, err := connectRaw(s.Addr(), 4000)
		require.NoError(t, err)
		t.Cleanup(func() { rc.Close() })
		require.NoError(t, rc.WriteRaw(partial))
		stalled = append(stalled, rc.conn)
	}
	waitOpen(t, s, handshaking+sessions+1)
	// Let the server read what was sent before measuring.
	perConn := (liveHeap() - before) / int64(len(stalled))
	t.Logf("%d connections each claiming a %d-byte frame: %d bytes of live heap each",
		len(stalled), wire.DefaultMaxBuffer, perConn)
	require.Less(t, perConn, int64(160<<10), "a stalled frame costs its claimed size")
	requireServes(t, other, "/during")

	// The handshakes end at sessionlessCnxnTimeout, the sessions at their
	// expiry (4 s, rounded up to the next 2 s tick).
	s.Clock.Advance(hostileSessionless)
	for _, nc := range stalled[:handshaking] {
		requireServerCloses(t, nc)
	}
	s.Clock.Advance(6 * time.Second)
	for _, nc := range stalled[handshaking:] {
		requireServerCloses(t, nc)
	}
	waitOpen(t, s, 1)
	requireServes(t, other, "/after")
}

// Clients that pipeline reads and never read a reply are cut at
// ClientOutputLimit; all of them together never make the server hold more
// than TotalClientOutputLimit of unsent replies; everyone else is served.
func TestHostile_NeverReadingClients(t *testing.T) {
	const connLimit, totalLimit = 1 << 20, 4 << 20
	s := startHostile(t, func(c *server.Config) {
		c.MaxBuffer = 64 << 10 // lets ClientOutputLimit go down to 256 KiB
		c.ClientOutputLimit = connLimit
		c.TotalClientOutputLimit = totalLimit
	})
	other := otherClient(t, s)
	_, err := other.Create("/big", make([]byte, 16<<10), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	const clients, reads = 20, 400 // 6.4 MiB of replies each
	var burst []byte
	for xid := int32(1); xid <= reads; xid++ {
		burst = append(burst, wire.AppendFrame(nil, &wire.RequestHeader{Xid: xid, Type: wire.OpGetData},
			&wire.GetDataRequest{Path: "/big"})...)
	}
	var peak int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			if n := s.UnsentReplyBytes(); n > peak {
				peak = n
			}
		}
	}()
	var hogs []net.Conn
	for i := 0; i < clients; i++ {
		nc := dialSmallWindow(t, s.Addr())
		rc := &rawClient{addr: s.Addr(), conn: nc}
		_, err := rc.Handshake(wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)})
		require.NoError(t, err)
		go nc.Write(burst) // blocks once the server stops reading: never read
		hogs = append(hogs, nc)
	}
	requireServes(t, other, "/during")
	// No hog reads before the server has closed them all: reading one
	// drains its replies, and a connection that reads is rightly never
	// cut (the test's own reads once made it a slow reader that the
	// server served to the last reply, and the test timed out on it).
	waitOpen(t, s, 1)
	for _, nc := range hogs {
		n := requireServerCloses(t, nc)
		require.Less(t, n, int64(reads*(16<<10)), "a hog got all its replies: it was served, not cut")
	}
	close(stop)
	sampler.Wait()
	t.Logf("%d clients never reading 6.4 MiB of replies each: peak unsent %d bytes (limits %d per connection, %d in all)",
		clients, peak, connLimit, totalLimit)
	require.LessOrEqual(t, peak, int64(totalLimit))
	require.Eventually(t, func() bool { return s.UnsentReplyBytes() == 0 }, 10*time.Second, time.Millisecond)
	waitOpen(t, s, 1)
	requireServes(t, other, "/after")
}
