package server

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sessionConnCount follows connections as they get a session and close:
// a socket without a session is not counted, and the figure always equals
// the length of the sorted listing (sessionConns).
func TestSessionConnCountFollowsConnections(t *testing.T) {
	s := startTestServer(t, nil)
	requireCount := func(n int) {
		t.Helper()
		require.Eventually(t, func() bool { return s.sessionConnCount() == n }, 10*time.Second, time.Millisecond,
			"want %d connections with a session, have %d", n, s.sessionConnCount())
		require.Len(t, s.sessionConns(), n)
		require.Equal(t, n, s.ServerStats().Connections)
	}
	var ncs []net.Conn
	for range 5 {
		nc := rawDial(t, s)
		handshake(t, nc)
		ncs = append(ncs, nc)
	}
	rawDial(t, s) // no ConnectRequest: open, but without a session
	waitConns(t, s, 6)
	requireCount(5)

	ncs[0].Close()
	ncs[3].Close()
	requireCount(3)
	nc := rawDial(t, s)
	handshake(t, nc)
	requireCount(4)
	for _, nc := range append(ncs, nc) {
		nc.Close()
	}
	requireCount(0)
}

// addrConn is a net.Conn that only has a remote address: enough for the
// registry's listing and count, which never read or write.
type addrConn struct {
	net.Conn
	remote net.Addr
}

func (a addrConn) RemoteAddr() net.Addr { return a.remote }

// fillRegistry registers n fake connections in a bare Server, the first
// sessions of them with a session.
func fillRegistry(n, sessions int) *Server {
	s := &Server{conns: make(map[*conn]struct{}, n)}
	for i := range n {
		addr := &net.TCPAddr{IP: net.IPv4(10, byte(i>>16), byte(i>>8), byte(i)), Port: 1024 + i%50000}
		c := &conn{srv: s, nc: addrConn{remote: addr}}
		if i < sessions {
			c.session.Store(int64(i + 1))
		}
		s.conns[c] = struct{}{}
	}
	return s
}

func TestSessionConnCountMatchesListing(t *testing.T) {
	for _, tc := range []struct{ n, sessions int }{{0, 0}, {1, 0}, {1, 1}, {7, 4}, {1000, 999}} {
		s := fillRegistry(tc.n, tc.sessions)
		require.Equal(t, tc.sessions, s.sessionConnCount(), "%+v", tc)
		require.Len(t, s.sessionConns(), tc.sessions, "%+v", tc)
	}
}

// BenchmarkSessionConnCount compares the count with len of the sorted
// listing it replaced on the monitoring paths, at 20,000 registered
// connections, all with a session (the 19,800-client measurement's case).
func BenchmarkSessionConnCount(b *testing.B) {
	const n, want = 20000, 20000
	s := fillRegistry(n, want)
	b.Run(fmt.Sprintf("count/%d", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if s.sessionConnCount() != want {
				b.Fatal("wrong count")
			}
		}
	})
	b.Run(fmt.Sprintf("len-sorted-list/%d", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if len(s.sessionConns()) != want {
				b.Fatal("wrong count")
			}
		}
	})
}
