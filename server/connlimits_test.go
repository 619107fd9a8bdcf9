package server

import (
	"context"
	"encoding/binary"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// startFakeClockServer starts a server on a fake clock.
func startFakeClockServer(t *testing.T, edit func(*Config), opts ...Option) (*Server, *session.FakeClock) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.ClientPort = 0
	if edit != nil {
		edit(&cfg)
	}
	clock := session.NewFakeClock(time.Unix(1_700_000_000, 0))
	s, err := New(cfg, append(opts, WithClock(clock))...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Start(ctx))
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// withLogTo makes the server log into b.
func withLogTo(b *testlog.Buffer) Option {
	return WithLogger(slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelInfo})))
}

// waitConns waits until the server has n open connections.
func waitConns(t *testing.T, s *Server, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return len(s.connections()) == n }, 10*time.Second, time.Millisecond,
		"want %d open connections", n)
}

// requirePing sends a ping on an established connection and reads its reply.
func requirePing(t *testing.T, nc net.Conn) {
	t.Helper()
	_, err := nc.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: wire.XidPing, Type: wire.OpPing}))
	require.NoError(t, err)
	b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
	require.NoError(t, err)
	var h wire.ReplyHeader
	require.NoError(t, wire.Unmarshal(b, &h, 0))
	require.Equal(t, wire.XidPing, h.Xid)
}

// Sockets that never complete a ConnectRequest are closed after
// sessionlessCnxnTimeout and give their maxClientCnxns slot back
// (zkraft issue 12, defect 1).
func TestSessionlessConnectionsAreClosed(t *testing.T) {
	s, clock := startFakeClockServer(t, func(c *Config) { c.MaxClientCnxns = 3 })
	silent := rawDial(t, s)
	partialLength := rawDial(t, s)
	partialLength.Write([]byte{0, 0})
	partialRequest := rawDial(t, s)
	partialRequest.Write(binary.BigEndian.AppendUint32(nil, 44))
	partialRequest.Write(make([]byte, 10))
	waitConns(t, s, 3)
	refused := rawDial(t, s) // a fourth: over maxClientCnxns
	requireClosed(t, refused)

	clock.Advance(DefaultSessionlessCnxnTimeout - time.Millisecond)
	require.Len(t, s.connections(), 3, "closed before sessionlessCnxnTimeout")
	clock.Advance(time.Millisecond)
	for _, nc := range []net.Conn{silent, partialLength, partialRequest} {
		requireClosed(t, nc) // rawDial's deadline is 10 s: a timeout fails
	}
	// The address's slots are free again: a client gets a session.
	waitConns(t, s, 0)
	c := connect(t, s)
	_, _, err := c.Get("/")
	require.NoError(t, err)
}

// A completed handshake is not cut by the timeout.
func TestHandshakeTimeoutSparesSessions(t *testing.T) {
	s, clock := startFakeClockServer(t, func(c *Config) { c.SessionlessCnxnTimeout = time.Second })
	nc := rawDial(t, s)
	handshake(t, nc)
	clock.Advance(2 * time.Second) // within the session's 10 s, past the handshake bound
	requirePing(t, nc)
}

// maxCnxns bounds the server's connections in all, whatever their
// addresses; a closed connection gives its slot back.
func TestMaxCnxnsBoundsAllConnections(t *testing.T) {
	s, _ := startFakeClockServer(t, func(c *Config) { c.MaxCnxns, c.MaxClientCnxns = 2, 0 })
	first := connect(t, s)
	_, _, err := first.Get("/")
	require.NoError(t, err)
	second := rawDial(t, s)
	waitConns(t, s, 2)
	requireClosed(t, rawDial(t, s)) // a third: over maxCnxns
	second.Close()
	waitConns(t, s, 1)
	c := connect(t, s)
	_, _, err = c.Get("/")
	require.NoError(t, err, "the slot is free again")
}
