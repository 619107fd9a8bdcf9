package integration

import (
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// A session-wide fault armed across a reconnect must not be used up by
// go-zookeeper's setWatches (sent with a positive xid): the watches come
// back, and the fault hits the client's next real request.
func TestFault_SessionFaultSparesSetWatchesOnReconnect(t *testing.T) {
	s := StartServer(t)
	c, events := s.Connect(t)
	other, _ := s.Connect(t)
	sid := c.SessionID()
	_, err := c.Create("/w", []byte("a"), 0, openACL)
	require.NoError(t, err)
	_, _, watch, err := c.GetW("/w")
	require.NoError(t, err)

	// The sync's connection is cut; the second fault covers every request
	// of the session after that, the reconnect's included.
	require.NoError(t, s.InjectFault(server.Fault{Ops: []wire.Op{wire.OpSync}, Session: sid, Drop: server.DropRequest}))
	require.NoError(t, s.InjectFault(server.Fault{Session: sid, Err: wire.CodeBadArguments}))
	_, err = c.Sync("/w")
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	waitReconnected(t, c, events)

	// go-zookeeper re-registers the watch right after the handshake; no
	// request is sent until the server has it (go-zookeeper v1.0.4 reads
	// lastZxid unsynchronised while building setWatches).
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(s.WatchesByPath()["/w"], sid) {
		require.True(t, time.Now().Before(deadline), "the data watch on /w did not come back after the reconnect")
		time.Sleep(5 * time.Millisecond) // poll interval of the condition
	}

	_, _, err = c.Get("/w")
	require.ErrorIs(t, err, zk.ErrBadArguments, "the session-wide fault hits the next real request")
	_, _, err = c.Get("/w")
	require.NoError(t, err, "the fault is used up")

	_, err = other.Set("/w", []byte("b"), -1)
	require.NoError(t, err)
	select {
	case ev := <-watch:
		require.Equal(t, zk.EventNodeDataChanged, ev.Type)
		require.Equal(t, "/w", ev.Path)
	case <-time.After(10 * time.Second):
		t.Fatal("the watch set before the reconnect did not fire")
	}
}

// waitReconnected waits until c has lost its connection and got its
// session back.
func waitReconnected(t *testing.T, c *zk.Conn, events <-chan zk.Event) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	lost := false
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateDisconnected {
				lost = true
			}
			if lost && ev.State == zk.StateHasSession {
				return
			}
		case <-deadline:
			t.Fatalf("no reconnect within 10s (state %v)", c.State())
		}
	}
}

// A fault that names an upkeep opcode does match it, whatever its xid.
func TestFault_NamedUpkeepOpMatches(t *testing.T) {
	s := StartServer(t)
	c, err := connectRaw(s.Addr(), 30000)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, s.InjectFault(server.Fault{Ops: []wire.Op{wire.OpPing}, Err: wire.CodeBadArguments}))
	rep, err := c.CallXid(wire.XidPing, wire.OpPing, nil, nil)
	require.NoError(t, err)
	require.Equal(t, wire.CodeBadArguments, rep.Hdr.Err)
	rep, err = c.CallXid(wire.XidPing, wire.OpPing, nil, nil)
	require.NoError(t, err)
	require.Equal(t, wire.CodeOK, rep.Hdr.Err)
}
