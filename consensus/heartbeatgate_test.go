package consensus

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// handlerTransport keeps the heartbeat handler Raft would give it, so a
// test can call it as NetworkTransport's connection goroutines do.
type handlerTransport struct {
	raft.Transport
	heartbeat func(raft.RPC)
	closed    bool
}

func (h *handlerTransport) SetHeartbeatHandler(cb func(raft.RPC)) { h.heartbeat = cb }
func (h *handlerTransport) Close() error                          { h.closed = true; return nil }

// TestCloseWaitsForAHeartbeatBeingHandled: a heartbeat Raft is handling
// on a connection's goroutine (which raft.Shutdown does not wait for)
// holds the transport's Close, so the node's stable store is not closed
// under it (Raft panics when it cannot save the term); a heartbeat after
// Close is refused without reaching Raft. The panic was seen in a loaded
// make test (console's TestFirefox: a lab server killed while its leader's
// heartbeat carried a new term).
func TestCloseWaitsForAHeartbeatBeingHandled(t *testing.T) {
	inner := &handlerTransport{}
	nt := &noticeTransport{Transport: inner, notices: newCommitNotices(inner, func() bool { return false })}
	entered, release := make(chan struct{}), make(chan struct{})
	calls := 0
	nt.SetHeartbeatHandler(func(rpc raft.RPC) {
		calls++
		close(entered)
		<-release
		rpc.Respond(&raft.AppendEntriesResponse{Success: true}, nil)
	})

	first := make(chan raft.RPCResponse, 1)
	go inner.heartbeat(raft.RPC{Command: &raft.AppendEntriesRequest{}, RespChan: first})
	<-entered
	closed := make(chan struct{})
	go func() { nt.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a heartbeat was being handled")
	case <-time.After(50 * time.Millisecond): // a window for a wrong Close to return in; passing it proves nothing alone
	}
	close(release)
	<-closed
	require.True(t, inner.closed)
	require.NoError(t, (<-first).Error)

	later := make(chan raft.RPCResponse, 1)
	inner.heartbeat(raft.RPC{Command: &raft.AppendEntriesRequest{}, RespChan: later})
	require.ErrorIs(t, (<-later).Error, raft.ErrTransportShutdown)
	require.Equal(t, 1, calls, "a heartbeat after Close reached Raft")
}
