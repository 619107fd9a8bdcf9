package server

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// rawSession performs a handshake on nc and returns the session id.
func rawSession(t *testing.T, nc net.Conn, timeoutMs int32) int64 {
	t.Helper()
	_, err := nc.Write(wire.AppendFrame(nil, &wire.ConnectRequest{TimeOut: timeoutMs, Passwd: make([]byte, 16)}))
	require.NoError(t, err)
	b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
	require.NoError(t, err)
	var resp wire.ConnectResponse
	require.NoError(t, wire.Unmarshal(b, &resp, 0))
	require.NotZero(t, resp.SessionID)
	return resp.SessionID
}

// connOf returns the server's connection of a session.
func connOf(t *testing.T, s *Server, id int64) *conn {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.bySession[id]
	require.NotNil(t, c, "session %x has no connection", id)
	return c
}

// getDataFrame is a getData request frame.
func getDataFrame(xid int32, path string) []byte {
	return wire.AppendFrame(nil, &wire.RequestHeader{Xid: xid, Type: wire.OpGetData}, &wire.GetDataRequest{Path: path})
}

// A client that pipelines more reads than maxOutstanding, reads its
// replies slowly and keeps pinging keeps its session (issue 12, defect 4):
// its pings are read while its replies wait. Before, the writer blocked on
// the socket, the reader stopped at maxOutstanding, and the session
// expired with its ephemerals.
func TestSlowReaderThatPingsKeepsSession(t *testing.T) {
	s, clock := startFakeClockServer(t, func(c *Config) { c.ClientOutputLimit = 64 << 20 })
	owner := connect(t, s)
	_, err := owner.Create("/big", make([]byte, 32<<10), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	nc := dialSmallWindow(t, s)
	id := rawSession(t, nc, 4000)
	c := connOf(t, s, id)
	const reads = 600 // 19 MiB of replies: far beyond the kernel's buffers
	var burst []byte
	for xid := int32(1); xid <= reads; xid++ {
		burst = append(burst, getDataFrame(xid, "/big")...)
	}
	go nc.Write(burst) // blocks while the server does not read
	require.Eventually(t, func() bool { return c.cstats.in.Load() == reads }, 10*time.Second, time.Millisecond,
		"the server stopped reading a client whose replies wait")
	ping := wire.AppendFrame(nil, &wire.RequestHeader{Xid: wire.XidPing, Type: wire.OpPing})
	const pings = 12 // one per second of a 4 s session: 3 timeouts in all
	for i := 1; i <= pings; i++ {
		_, err := nc.Write(ping)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return c.cstats.in.Load() == int64(reads+i) }, 10*time.Second, time.Millisecond,
			"ping %d was not read while replies wait", i)
		clock.Advance(time.Second)
	}
	require.True(t, s.sessionValid(id, session.Password(id)), "the pinging session expired")

	// Now the client reads: every reply arrives, in order, then the pings'.
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	for xid := int32(1); xid <= reads+pings; xid++ {
		b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
		require.NoError(t, err, "reply %d", xid)
		var h wire.ReplyHeader
		d := wire.NewDecoder(b, 0)
		h.Decode(d)
		want := xid
		if xid > reads {
			want = wire.XidPing
		}
		require.Equal(t, want, h.Xid)
		require.Equal(t, wire.CodeOK, h.Err)
	}
	requirePing(t, nc)
}

// A client that never reads is cut once its unsent replies pass
// ClientOutputLimit, with a warning naming the limit; everyone else is
// served, and the server's backlog accounting returns to zero.
func TestNeverReadingClientIsCutAtOutputLimit(t *testing.T) {
	var logs testlog.Buffer
	s, _ := startFakeClockServer(t, func(c *Config) { c.MaxBuffer = 64 << 10; c.ClientOutputLimit = 1 << 20 }, withLogTo(&logs))
	owner := connect(t, s)
	_, err := owner.Create("/big", make([]byte, 32<<10), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	nc := dialSmallWindow(t, s)
	id := rawSession(t, nc, 10000)
	var burst []byte
	for xid := int32(1); xid <= 1000; xid++ { // 32 MiB of replies
		burst = append(burst, getDataFrame(xid, "/big")...)
	}
	go nc.Write(burst)
	require.Eventually(t, func() bool { return !s.HasSession(id) || connClosed(s, id) }, 10*time.Second, time.Millisecond,
		"a client that never reads was not cut")
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "zkraft.clientOutputLimit") }, 10*time.Second, time.Millisecond)
	require.Contains(t, logs.String(), "does not read its replies")
	require.Eventually(t, func() bool { return s.outputHeld.Load() == 0 }, 10*time.Second, time.Millisecond,
		"unsent bytes still counted after the cut")
	require.True(t, s.sessionValid(id, session.Password(id)), "the cut leaves the session alive")
	_, _, err = owner.Get("/big")
	require.NoError(t, err)
}

// connClosed reports whether the session's connection has been closed.
func connClosed(s *Server, id int64) bool {
	s.mu.Lock()
	c := s.bySession[id]
	s.mu.Unlock()
	return c == nil || c.isClosed()
}
