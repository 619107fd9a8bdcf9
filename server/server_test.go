package server

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zkraft/zkraft/wire"
)

// TestMain fails the package if any test leaves a goroutine behind: every
// server started here is closed, and Close must wait for all its work.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func startTestServer(t *testing.T, edit func(*Config), opts ...Option) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.ClientPort = 0
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg, opts...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Start(ctx))
	t.Cleanup(func() { s.Close() })
	return s
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...interface{}) {}

func connect(t *testing.T, s *Server) *zk.Conn {
	t.Helper()
	c, ev, err := zk.Connect([]string{s.Addr()}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	for c.State() != zk.StateHasSession {
		select {
		case <-ev:
		case <-time.After(10 * time.Second):
			t.Fatal("no session")
		}
	}
	return c
}

func TestCloseStopsEverything(t *testing.T) {
	s := startTestServer(t, nil)
	c := connect(t, s)
	_, err := c.Create("/x", []byte("y"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	c.Close()
}

// rawDial opens a plain TCP connection with a read deadline.
func rawDial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return nc
}

// requireClosed asserts the server closes nc without sending anything more.
func requireClosed(t *testing.T, nc net.Conn) {
	t.Helper()
	n, err := io.Copy(io.Discard, nc)
	require.NoError(t, err, "expected an orderly close, not a timeout")
	require.Zero(t, n, "expected no reply before the close")
}

func frame(b []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
	return append(out, b...)
}

// handshake performs a ConnectRequest on nc for a new session.
func handshake(t *testing.T, nc net.Conn) {
	t.Helper()
	handshakeWith(t, nc, wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)})
}

func TestBadInputClosesOnlyThatConnection(t *testing.T) {
	s := startTestServer(t, nil)
	good := connect(t, s)
	cases := map[string]func(t *testing.T, nc net.Conn){
		"negative length before connect": func(t *testing.T, nc net.Conn) {
			nc.Write([]byte{0xff, 0xff, 0xff, 0xf0})
			requireClosed(t, nc)
		},
		"oversized length before connect": func(t *testing.T, nc net.Conn) {
			nc.Write(binary.BigEndian.AppendUint32(nil, wire.DefaultMaxBuffer+1))
			requireClosed(t, nc)
		},
		"garbage connect request": func(t *testing.T, nc net.Conn) {
			nc.Write(frame([]byte{1, 2, 3}))
			requireClosed(t, nc)
		},
		"oversized frame after connect": func(t *testing.T, nc net.Conn) {
			handshake(t, nc)
			nc.Write(binary.BigEndian.AppendUint32(nil, 64<<20))
			requireClosed(t, nc)
		},
		"negative frame after connect": func(t *testing.T, nc net.Conn) {
			handshake(t, nc)
			nc.Write([]byte{0x80, 0, 0, 0})
			requireClosed(t, nc)
		},
		"unknown opcode gets UNIMPLEMENTED then close": func(t *testing.T, nc net.Conn) {
			handshake(t, nc)
			nc.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: 7, Type: 999}))
			b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
			require.NoError(t, err)
			var h wire.ReplyHeader
			require.NoError(t, wire.Unmarshal(b, &h, 0))
			require.Equal(t, int32(7), h.Xid)
			require.Equal(t, wire.CodeUnimplemented, h.Err)
			requireClosed(t, nc)
		},
		"truncated body gets MARSHALLINGERROR and stays open": func(t *testing.T, nc net.Conn) {
			handshake(t, nc)
			nc.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: 3, Type: wire.OpGetData}))
			b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
			require.NoError(t, err)
			var h wire.ReplyHeader
			require.NoError(t, wire.Unmarshal(b, &h, 0))
			require.Equal(t, wire.CodeMarshallingError, h.Err)
			nc.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: 4, Type: wire.OpGetData}, &wire.PathWatchRequest{Path: "/"}))
			b, err = wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
			require.NoError(t, err)
			require.NoError(t, wire.Unmarshal(b, &h, 0))
			require.Equal(t, int32(4), h.Xid)
			require.Equal(t, wire.CodeOK, h.Err)
		},
		"half a frame then hang up": func(t *testing.T, nc net.Conn) {
			handshake(t, nc)
			nc.Write([]byte{0, 0, 0, 100, 1, 2})
			nc.(*net.TCPConn).CloseWrite()
			requireClosed(t, nc)
		},
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) { fn(t, rawDial(t, s)) })
	}
	_, _, err := good.Get("/zookeeper")
	require.NoError(t, err, "a well-behaved client is unaffected")
}

func TestFourLetterWordsParseWithGoZookeeper(t *testing.T) {
	s := startTestServer(t, nil)
	c := connect(t, s)
	_, err := c.Create("/flw", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	require.Equal(t, []bool{true}, zk.FLWRuok([]string{s.Addr()}, 5*time.Second))
	// The ruok connection may still be counted until the server has seen
	// it close: srvr is asked again until it has.
	var stats []*zk.ServerStats
	require.Eventually(t, func() bool {
		var ok bool
		stats, ok = zk.FLWSrvr([]string{s.Addr()}, 5*time.Second)
		return ok && stats[0].Connections == 2
	}, 10*time.Second, 10*time.Millisecond, "srvr must parse and count the client and the asking 4lw connection, as ZooKeeper does: %+v", stats)
	require.Equal(t, zk.ModeStandalone, stats[0].Mode)
	require.Equal(t, int64(6), stats[0].NodeCount, "5 built-in entries as ZooKeeper counts them, plus /flw")

	cons, ok := zk.FLWCons([]string{s.Addr()}, 5*time.Second)
	require.True(t, ok, "cons must parse: %v", cons[0].Error)
	require.Len(t, cons[0].Clients, 1)
	require.Equal(t, c.SessionID(), cons[0].Clients[0].SessionID)
}

func fourLetter(t *testing.T, s *Server, cmd string) string {
	t.Helper()
	nc := rawDial(t, s)
	_, err := nc.Write([]byte(cmd))
	require.NoError(t, err)
	b, err := io.ReadAll(nc)
	require.NoError(t, err)
	return string(b)
}

func TestFourLetterWhitelist(t *testing.T) {
	s := startTestServer(t, func(c *Config) { c.FourLetterWhitelist = []string{"ruok"} })
	require.Equal(t, "imok", fourLetter(t, s, "ruok"))
	require.Equal(t, "mntr is not executed because it is not in the whitelist.\n", fourLetter(t, s, "mntr"))
	require.True(t, strings.HasPrefix(fourLetter(t, s, "srvr"), "Zookeeper version: "), "srvr is always allowed")
}

func TestFourLetterOutputs(t *testing.T) {
	s := startTestServer(t, nil)
	c := connect(t, s)
	_, _, _, err := c.GetW("/zookeeper")
	require.NoError(t, err)
	require.Contains(t, fourLetter(t, s, "mntr"), "zk_server_state\tstandalone\n")
	require.Contains(t, fourLetter(t, s, "mntr"), "zk_watch_count\t1\n")
	require.Equal(t, "1 connections watching 1 paths\nTotal watches:1\n", fourLetter(t, s, "wchs"))
	require.Contains(t, fourLetter(t, s, "wchp"), "/zookeeper\n\t0x")
	require.Contains(t, fourLetter(t, s, "envi"), "zookeeper.version="+Version)
	require.Contains(t, fourLetter(t, s, "conf"), "tickTime=2000\n")
	require.Equal(t, "rw", fourLetter(t, s, "isro"))
	require.Contains(t, fourLetter(t, s, "stat"), "Clients:\n /127.0.0.1:")
	require.Contains(t, fourLetter(t, s, "dump"), "SessionTracker dump:")
}

// A client that has seen a newer zxid than this server is refused without
// an answer, so it moves on to another server (single system image).
func TestConnectRefusesClientAheadOfServer(t *testing.T) {
	s := startTestServer(t, nil)
	nc := rawDial(t, s)
	req := wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16), LastZxidSeen: s.node.LastZxid() + 1}
	_, err := nc.Write(wire.AppendFrame(nil, &req))
	require.NoError(t, err)
	requireClosed(t, nc)

	ok := rawDial(t, s)
	req.LastZxidSeen = s.node.LastZxid()
	handshakeWith(t, ok, req)
}

// A client only a little ahead (it saw an entry this server is about to
// apply, as after a leader change) is held until the server has applied
// it, then served, instead of being sent to try the other servers.
func TestConnectWaitsForTheServerToCatchUp(t *testing.T) {
	s := startTestServer(t, nil)
	handshakeWith(t, rawDial(t, s), wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)})
	next := s.node.LastZxid() + 1 // the epoch's next zxid
	nc := rawDial(t, s)
	req := wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16), LastZxidSeen: next}
	_, err := nc.Write(wire.AppendFrame(nil, &req))
	require.NoError(t, err)
	// The handshake is held: the next write brings the server to next.
	w := rawDial(t, s)
	handshakeWith(t, w, wire.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)})
	handshakeWith(t, nc, req)
}

func handshakeWith(t *testing.T, nc net.Conn, req wire.ConnectRequest) {
	t.Helper()
	_, err := nc.Write(wire.AppendFrame(nil, &req))
	require.NoError(t, err)
	b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
	require.NoError(t, err)
	var resp wire.ConnectResponse
	require.NoError(t, wire.Unmarshal(b, &resp, 0))
	require.NotZero(t, resp.SessionID, "the server grants a session")
}
