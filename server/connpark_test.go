package server

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// withParkAfter makes idle readers park after d instead of parkAfter.
func withParkAfter(d time.Duration) Option { return func(s *Server) { s.parkAfter = d } }

func startParkingServer(t *testing.T) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.ClientPort = 0
	s, err := New(cfg, withParkAfter(10*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Start(ctx))
	t.Cleanup(func() { s.Close() })
	return s
}

// connGoroutines counts the goroutines running a connection's code (a
// reader or a writer) in this process.
func connGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "zkraft/server.(*conn)") {
			count++
		}
	}
	return count
}

func waitNoConnGoroutines(t *testing.T) {
	t.Helper()
	waitUntil(t, "idle connections without goroutines", func() bool { return connGoroutines() == 0 })
}

// TestIdleSessionsHoldNoGoroutine: idle sessions have neither a reader nor
// a writer goroutine on the server, and still get their replies, their
// watch events (written while the session's reader is parked) and a
// server-side close.
func TestIdleSessionsHoldNoGoroutine(t *testing.T) {
	s := startParkingServer(t)
	a, b := connect(t, s), connect(t, s)
	waitNoConnGoroutines(t)

	_, err := a.Create("/p", []byte("1"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	data, _, err := a.Get("/p")
	require.NoError(t, err)
	require.Equal(t, "1", string(data))
	_, _, watch, err := b.GetW("/p")
	require.NoError(t, err)
	waitNoConnGoroutines(t)

	_, err = a.Set("/p", []byte("2"), -1)
	require.NoError(t, err)
	select {
	case ev := <-watch:
		require.Equal(t, zk.EventNodeDataChanged, ev.Type)
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event for an idle session")
	}
	waitNoConnGoroutines(t)

	// A connection the server closes while it is parked goes away.
	conns := s.connections()
	require.Len(t, conns, 2)
	victim := conns[0]
	require.True(t, s.DropConnection(victim.sessionID()))
	waitUntil(t, "the dropped connection forgotten", func() bool {
		for _, c := range s.connections() {
			if c == victim {
				return false
			}
		}
		return true
	})
	waitNoConnGoroutines(t)
	// Close with parked connections returns; TestMain checks that no
	// goroutine is left behind.
	require.NoError(t, s.Close())
}

// TestParkedConnectionServesPipelinedBurst: a burst of reads and writes
// written at once to a parked connection, more than maxOutstanding of
// them, is answered in order.
func TestParkedConnectionServesPipelinedBurst(t *testing.T) {
	s := startParkingServer(t)
	nc := rawDial(t, s)
	handshake(t, nc)
	waitNoConnGoroutines(t)
	var burst []byte
	var want []int32
	for xid := int32(1); xid <= 3*maxOutstanding; xid++ {
		if xid%3 == 0 {
			burst = wire.AppendFrame(burst, &wire.RequestHeader{Xid: xid, Type: wire.OpCreate},
				&wire.CreateRequest{Path: "/s", ACL: wire.OpenACLUnsafe, Flags: wire.FlagPersistentSequential})
		} else {
			burst = appendExists(burst, xid)
		}
		want = append(want, xid)
	}
	_, err := nc.Write(burst)
	require.NoError(t, err)
	require.Equal(t, want, readReplyXids(t, nc, len(want)))
	waitNoConnGoroutines(t)
}
