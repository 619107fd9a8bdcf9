package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// readEvent reads c's next frame, which must be the watch event typ on
// path.
func (c *rawClient) readEvent(t *testing.T, typ wire.EventType, path string) {
	t.Helper()
	require.NoError(t, c.nc.SetReadDeadline(time.Now().Add(10*time.Second)))
	frame, err := wire.ReadFrame(c.br, 1<<20, nil)
	require.NoError(t, err)
	var hdr wire.ReplyHeader
	var ev wire.WatcherEvent
	d := wire.NewDecoder(frame, 0)
	hdr.Decode(d)
	ev.Decode(d)
	require.NoError(t, d.Err())
	require.Equal(t, wire.XidNotification, hdr.Xid, "a watch event comes first")
	require.Equal(t, typ, ev.Type)
	require.Equal(t, path, ev.Path)
}

// TestWatchFanOutReachesEveryConnection: one change fires a watch held by
// many connections, whose events the fan-out workers write. Every
// connection gets its event once, before the reply to a request it sent
// after the change (sent while the fan-out may still be running, so the
// workers hand such connections to writer goroutines), and the workers
// are gone once the fan-out is over.
func TestWatchFanOutReachesEveryConnection(t *testing.T) {
	s := startTestServer(t, func(c *Config) { c.MaxClientCnxns = 0 })
	owner := dialRaw(t, s.Addr())
	defer owner.nc.Close()
	owner.call(t, wire.OpCreate, &wire.CreateRequest{Path: "/w", Data: []byte("0"), ACL: wire.OpenACLUnsafe})
	const conns = 400
	watchers := make([]*rawClient, conns)
	for i := range watchers {
		c := dialRaw(t, s.Addr())
		defer c.nc.Close()
		c.call(t, wire.OpExists, &wire.PathWatchRequest{Path: "/w", Watch: true})
		watchers[i] = c
	}
	set := &wire.SetDataRequest{Path: "/w", Data: []byte("1"), Version: -1}
	for round := 0; round < 3; round++ {
		owner.call(t, wire.OpSetData, set)
		if round == 0 {
			// Read the event first, then set the watch again.
			for _, c := range watchers {
				c.readEvent(t, wire.EventNodeDataChanged, "/w")
				c.call(t, wire.OpExists, &wire.PathWatchRequest{Path: "/w", Watch: true})
			}
			continue
		}
		// Send the next request before reading: the event still goes first.
		for _, c := range watchers {
			c.send(wire.OpExists, &wire.PathWatchRequest{Path: "/w", Watch: true})
			c.flush(t)
		}
		for _, c := range watchers {
			c.readEvent(t, wire.EventNodeDataChanged, "/w")
			c.receive(t)
		}
	}
	require.Eventually(t, func() bool {
		s.fanout.mu.Lock()
		defer s.fanout.mu.Unlock()
		return s.fanout.workers == 0 && s.fanout.head == len(s.fanout.conns)
	}, 10*time.Second, time.Millisecond, "fan-out workers exit once every connection is served")
	s.fanout.mu.Lock()
	defer s.fanout.mu.Unlock()
	require.Positive(t, s.fanout.started, "the events went through the fan-out workers")
}
