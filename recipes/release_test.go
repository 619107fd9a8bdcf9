package recipes_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// An Unlock whose delete is lost with the connection, with no time left to
// retry, still frees the lock: the node is deleted in the background.
func TestLock_FailedUnlockStillFreesTheLock(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	holder, other := recipes.NewLock(cs[0], "/locks/release"), recipes.NewLock(cs[1], "/locks/release")
	require.NoError(t, holder.Lock(ctx))
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpDelete}, Session: cs[0].SessionID(), Drop: server.DropRequest}))

	done, cancel := context.WithCancel(ctx)
	cancel()
	require.Error(t, holder.Unlock(done), "the delete was lost and ctx had ended")
	eventually(t, func() bool {
		ok, err := other.TryLock(ctx)
		require.NoError(t, err)
		return ok
	}, "the lock to be freed in the background")
	require.NoError(t, other.Unlock(ctx))
}

// A waiter whose client is closed returns instead of retrying forever.
func TestRWLock_WaiterOnClosedClientReturns(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	holderConn, _ := srv.Connect(t)
	writer := recipes.NewRWLock(holderConn, "/locks/closed")
	require.NoError(t, writer.Lock(ctx))

	readerConn, _, err := zk.Connect([]string{srv.Addr()}, 10*time.Second, zk.WithLogger(silentLogger{}))
	require.NoError(t, err)
	_, _, err = readerConn.Exists("/") // the session is up
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- recipes.NewRWLock(readerConn, "/locks/closed").RLock(context.Background()) }()
	eventually(t, func() bool {
		kids, _, _ := holderConn.Children("/locks/closed")
		return len(kids) == 2
	}, "the reader to queue")
	readerConn.Close()
	select {
	case err := <-errc:
		require.Error(t, err)
	case <-ctx.Done():
		t.Fatal("RLock on a closed client did not return")
	}
	require.NoError(t, writer.Unlock(ctx))
}
