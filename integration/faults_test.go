package integration

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

var openACL = zk.WorldACL(zk.PermAll)

func TestFault_ErrorAnswersWithoutRunning(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	require.NoError(t, s.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Count: 2, Err: wire.CodeNodeExists}))

	for i := 0; i < 2; i++ {
		_, err := c.Create("/f", nil, 0, openACL)
		require.ErrorIs(t, err, zk.ErrNodeExists, "attempt %d", i+1)
	}
	ok, _, err := c.Exists("/f") // not a create: not affected
	require.NoError(t, err)
	require.False(t, ok, "a failed create must not have run")
	_, err = c.Create("/f", nil, 0, openACL) // the fault is used up
	require.NoError(t, err)
}

func TestFault_DropRequestLosesTheRequestNotTheSession(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	sid := c.SessionID()
	require.NoError(t, s.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Drop: server.DropRequest}))

	_, err := c.Create("/lost", nil, 0, openACL)
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	// go-zookeeper reconnects on the same session. Wait for it: with one
	// server in its list, a request queued while it starts reconnecting
	// fails with ErrNoServer (its host list "wrapped around" at once).
	require.Eventually(t, func() bool { return c.State() == zk.StateHasSession }, 10*time.Second, 5*time.Millisecond)
	ok, _, err := c.Exists("/lost")
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, sid, c.SessionID())
}

func TestFault_DropReplyRunsTheRequest(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	require.NoError(t, s.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Drop: server.DropReply}))

	_, err := c.Create("/done", []byte("x"), zk.FlagEphemeral, openACL)
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	data, st, err := c.Get("/done")
	require.NoError(t, err, "the create ran although its reply was lost")
	require.Equal(t, []byte("x"), data)
	require.Equal(t, c.SessionID(), st.EphemeralOwner)
}

func TestFault_DelayHoldsTheRequest(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	const d = 150 * time.Millisecond
	require.NoError(t, s.InjectFault(server.Fault{Ops: []wire.Op{wire.OpGetData}, Delay: d}))

	_, err := c.Create("/d", nil, 0, openACL) // not affected
	require.NoError(t, err)
	start := time.Now()
	_, _, err = c.Get("/d")
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), d)
}

func TestFault_SessionFilter(t *testing.T) {
	s := StartServer(t)
	a, _ := s.Connect(t)
	b, _ := s.Connect(t)
	require.NoError(t, s.InjectFault(server.Fault{Session: b.SessionID(), Err: wire.CodeBadArguments}))

	_, err := a.Create("/a", nil, 0, openACL)
	require.NoError(t, err, "another session's fault")
	_, err = b.Create("/b", nil, 0, openACL)
	require.ErrorIs(t, err, zk.ErrBadArguments)
	_, err = b.Create("/b", nil, 0, openACL)
	require.NoError(t, err)
}

func TestFault_ClearAndBadFault(t *testing.T) {
	s := StartServer(t)
	c, _ := s.Connect(t)
	require.ErrorIs(t, s.InjectFault(server.Fault{Err: wire.CodeNoNode, Drop: server.DropReply}), server.ErrBadFault)
	require.NoError(t, s.InjectFault(server.Fault{Count: 100, Err: wire.CodeNoNode}))
	s.ClearFaults()
	_, err := c.Create("/x", nil, 0, openACL)
	require.NoError(t, err)
}
