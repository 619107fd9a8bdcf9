package integration

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// dumpGoroutines logs every goroutine's stack when ZKRAFT_DUMP is set, to
// diagnose a wait that timed out.
func dumpGoroutines(t *testing.T) {
	if os.Getenv("ZKRAFT_DUMP") == "" {
		return
	}
	buf := make([]byte, 8<<20)
	t.Logf("goroutines:\n%s", buf[:runtime.Stack(buf, true)])
}

// waitEvent returns the next event from ch or fails after 10s.
func waitEvent(t *testing.T, ch <-chan zk.Event) zk.Event {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(10 * time.Second):
		dumpGoroutines(t)
		t.Fatal("no watch event within 10s")
		return zk.Event{}
	}
}

// waitSessionEvent waits on a session-event channel for state.
func waitState(t *testing.T, ch <-chan zk.Event, state zk.State) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev.State == state {
				return
			}
		case <-deadline:
			dumpGoroutines(t)
			t.Fatalf("state %v not reached within 20s", state)
		}
	}
}

func TestE2E_CreateGetSetDelete(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)

	p, err := c.Create("/a", []byte("one"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Equal(t, "/a", p)

	data, st, err := c.Get("/a")
	require.NoError(t, err)
	require.Equal(t, "one", string(data))
	require.Equal(t, st.Czxid, st.Mzxid)
	require.Equal(t, st.Czxid, st.Pzxid)
	require.Equal(t, st.Ctime, st.Mtime)
	require.Equal(t, int32(0), st.Version)
	require.Equal(t, int32(3), st.DataLength)

	st2, err := c.Set("/a", []byte("two!"), 0)
	require.NoError(t, err)
	require.Equal(t, int32(1), st2.Version)
	require.Greater(t, st2.Mzxid, st.Mzxid)
	require.Equal(t, st.Czxid, st2.Czxid)

	_, err = c.Set("/a", []byte("x"), 0)
	require.ErrorIs(t, err, zk.ErrBadVersion)
	_, err = c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll))
	require.ErrorIs(t, err, zk.ErrNodeExists)
	_, err = c.Create("/missing/child", nil, 0, zk.WorldACL(zk.PermAll))
	require.ErrorIs(t, err, zk.ErrNoNode)

	_, err = c.Create("/a/kid", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.ErrorIs(t, c.Delete("/a", -1), zk.ErrNotEmpty)
	_, pst, err := c.Children("/a")
	require.NoError(t, err)
	require.Equal(t, int32(1), pst.NumChildren)
	require.Equal(t, int32(1), pst.Cversion)
	require.NoError(t, c.Delete("/a/kid", -1))
	_, pst, err = c.Children("/a")
	require.NoError(t, err)
	require.Equal(t, int32(2), pst.Cversion, "served cversion counts deletes too")
	require.NoError(t, c.Delete("/a", 1))
	ok, _, err := c.Exists("/a")
	require.NoError(t, err)
	require.False(t, ok)
	require.ErrorIs(t, c.Delete("/zookeeper", -1), zk.ErrBadArguments)
}

func TestE2E_SequentialAndEphemeral(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	_, err := c.Create("/q", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = c.Create("/q/x", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, c.Delete("/q/x", -1))
	p, err := c.Create("/q/item-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Equal(t, "/q/item-0000000001", p)

	e, err := c.Create("/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, st, err := c.Exists(e)
	require.NoError(t, err)
	require.Equal(t, c.SessionID(), st.EphemeralOwner)
	_, err = c.Create("/eph/kid", nil, 0, zk.WorldACL(zk.PermAll))
	require.ErrorIs(t, err, zk.ErrNoChildrenForEphemerals)
}

func TestE2E_WatchesFireBeforeReply(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	other, _ := s.Connect(t)
	_, err := c.Create("/w", []byte("v"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	_, _, dataW, err := c.GetW("/w")
	require.NoError(t, err)
	_, _, childW, err := c.ChildrenW("/w")
	require.NoError(t, err)
	_, _, existW, err := other.ExistsW("/w/new")
	require.NoError(t, err)

	// The writer's own watch event is delivered before its reply returns.
	_, err = c.Set("/w", []byte("v2"), -1)
	require.NoError(t, err)
	select {
	case ev := <-dataW:
		require.Equal(t, zk.EventNodeDataChanged, ev.Type)
		require.Equal(t, "/w", ev.Path)
	default:
		t.Fatal("data watch event did not arrive before the setData reply")
	}

	_, err = c.Create("/w/new", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	ev := waitEvent(t, childW)
	require.Equal(t, zk.EventNodeChildrenChanged, ev.Type)
	ev = waitEvent(t, existW)
	require.Equal(t, zk.EventNodeCreated, ev.Type)
	require.Equal(t, "/w/new", ev.Path)
}

func TestE2E_CloseSessionDeletesEphemeralsAndFiresWatches(t *testing.T) {
	s := StartServer(t)
	owner, _ := s.Connect(t)
	watcher, _ := s.Connect(t)
	_, err := owner.Create("/lease", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, w, err := watcher.ExistsW("/lease")
	require.NoError(t, err)
	owner.Close()
	ev := waitEvent(t, w)
	require.Equal(t, zk.EventNodeDeleted, ev.Type)
	ok, _, err := watcher.Exists("/lease")
	require.NoError(t, err)
	require.False(t, ok)
}

func TestE2E_ClosingSessionHearsOfItsOwnEphemerals(t *testing.T) {
	s := StartServer(t)
	nodeEvents := make(chan zk.Event, 8)
	record := zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type != zk.EventSession {
			nodeEvents <- ev
		}
	})
	c, _ := s.Connect(t, record)
	_, err := c.Create("/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, _, err = c.GetW("/mine")
	require.NoError(t, err)
	c.Close()
	// The closing session's own watch fires for its own ephemeral, as
	// with ZooKeeper (its watches outlive the reader until the close applies).
	ev := waitEvent(t, nodeEvents)
	require.Equal(t, zk.EventNodeDeleted, ev.Type)
	require.Equal(t, "/mine", ev.Path)
}

func TestE2E_SessionExpiresOnFakeClock(t *testing.T) {
	s := StartServer(t, WithFakeClock())
	owner, ownerEvents := s.Connect(t)
	watcher, _ := s.Connect(t)
	_, err := owner.Create("/expiring", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, w, err := watcher.ExistsW("/expiring")
	require.NoError(t, err)

	// Keep the watcher alive while the owner's session runs out: both are
	// touched by real pings, but the server's clock only moves here.
	for i := 0; i < 30; i++ {
		s.Clock.Advance(2 * time.Second)
		select {
		case ev := <-w:
			require.Equal(t, zk.EventNodeDeleted, ev.Type)
			waitState(t, ownerEvents, zk.StateExpired)
			return
		case <-time.After(50 * time.Millisecond):
		}
		// The watcher must stay alive: touch it with a request.
		_, _, err := watcher.Exists("/")
		if err != nil && !errors.Is(err, zk.ErrConnectionClosed) {
			require.NoError(t, err)
		}
	}
	t.Fatal("ephemeral of the idle session was not deleted after 60s of fake time")
}
