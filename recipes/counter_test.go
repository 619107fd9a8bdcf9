package recipes_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// TestCounter_ConcurrentAddsExactTotal has many clients add at once: the
// total is exact, and the values Add returned are exactly 1..N, each once
// (every Add saw a distinct state, so none was lost or doubled).
func TestCounter_ConcurrentAddsExactTotal(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const adders, rounds = 10, 20
	results := make(chan int64, adders*rounds)
	var wg sync.WaitGroup
	for _, c := range clients(t, srv, adders) {
		cnt := recipes.NewCounter(c, "/counters/hits", 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				v, err := cnt.Add(ctx, 1)
				if err != nil {
					t.Error(err)
					return
				}
				results <- v
			}
		}()
	}
	wg.Wait()
	close(results)
	var got []int64
	for v := range results {
		got = append(got, v)
	}
	slices.Sort(got)
	want := make([]int64, adders*rounds)
	for i := range want {
		want[i] = int64(i + 1)
	}
	require.Equal(t, want, got)

	reader := clients(t, srv, 1)[0]
	v, err := recipes.NewCounter(reader, "/counters/hits", 0).Get(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(adders*rounds), v)
	kids, _, err := reader.Children("/counters/hits")
	require.NoError(t, err)
	require.Empty(t, kids, "no write marker left behind")
}

func TestCounter_InitialValueAndDecimalEncoding(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	cnt := recipes.NewCounter(c, "/counters/enc", 100)

	v, err := cnt.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(100), v, "a missing node holds the initial value")
	ok, _, err := c.Exists("/counters/enc")
	require.NoError(t, err)
	require.False(t, ok, "Get does not create the node")

	v, err = cnt.Add(ctx, -142)
	require.NoError(t, err)
	require.Equal(t, int64(-42), v)
	data, _, err := c.Get("/counters/enc")
	require.NoError(t, err)
	require.Equal(t, "-42", string(data), "decimal text, as kazoo writes it")

	// A value written by another library (kazoo) is read, and an empty
	// node counts as the initial value.
	_, err = c.Set("/counters/enc", []byte("7"), -1)
	require.NoError(t, err)
	v, err = cnt.Add(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, int64(8), v)
	_, err = c.Create("/counters/empty", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	v, err = recipes.NewCounter(c, "/counters/empty", 5).Add(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, int64(6), v)

	_, err = c.Set("/counters/enc", []byte("not a number"), -1)
	require.NoError(t, err)
	_, err = cnt.Get(ctx)
	require.Error(t, err)
	_, err = cnt.Add(ctx, 1)
	require.Error(t, err)
}

func TestCounter_CompareAndSet(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 8)
	cnt := recipes.NewCounter(cs[0], "/counters/cas", 0)

	ok, err := cnt.CompareAndSet(ctx, 0, 5)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = cnt.CompareAndSet(ctx, 0, 7)
	require.NoError(t, err)
	require.False(t, ok, "the value is 5, not 0")
	v, err := cnt.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(5), v)
	require.NoError(t, cnt.Set(ctx, 10))
	v, err = cnt.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(10), v)

	// Racing CAS from the same expected value: exactly one wins.
	var winners atomic.Int32
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := recipes.NewCounter(c, "/counters/cas", 0).CompareAndSet(ctx, 10, int64(100+i))
			if err != nil {
				t.Error(err)
			}
			if ok {
				winners.Add(1)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int32(1), winners.Load())
	v, err = cnt.Get(ctx)
	require.NoError(t, err)
	require.True(t, v >= 100 && v < 100+int64(len(cs)), "one racer's value: %d", v)
}

// TestCounter_LostReplyDoesNotAddTwice loses the reply to the write of an
// Add that ran, then to one that did not run: both times the value moves
// exactly once.
func TestCounter_LostReplyDoesNotAddTwice(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	cnt := recipes.NewCounter(c, "/counters/lost", 0)
	_, err := cnt.Add(ctx, 1)
	require.NoError(t, err)

	// The write runs, its reply is lost, the client reconnects on the same
	// session; Add finds its marker and does not add again.
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: server.DropReply}))
	v, err := cnt.Add(ctx, 5)
	require.NoError(t, err)
	require.Equal(t, int64(6), v)

	// The connection drops before the write runs: Add writes it again.
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: server.DropRequest}))
	v, err = cnt.Add(ctx, 5)
	require.NoError(t, err)
	require.Equal(t, int64(11), v)

	// The same for a CompareAndSet that ran: it reports its success.
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: server.DropReply}))
	ok, err := cnt.CompareAndSet(ctx, 11, 20)
	require.NoError(t, err)
	require.True(t, ok)

	got, err := cnt.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(20), got)
	kids, _, err := c.Children("/counters/lost")
	require.NoError(t, err)
	require.Empty(t, kids, "no write marker left behind")
}

// TestCounter_LostReplyThenExpiryIsReported loses the reply to a write
// that ran and expires the session before the client reconnects: the
// marker that would tell went with the session, so Add reports
// ErrUnknownOutcome instead of adding again.
func TestCounter_LostReplyThenExpiryIsReported(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	var armed atomic.Bool
	var sid atomic.Int64
	expired := make(chan error, 1)
	c, _ := srv.Connect(t, zk.WithEventCallback(func(ev zk.Event) {
		// Runs on the client's connection loop: the client reconnects only
		// once the session is gone.
		if ev.Type == zk.EventSession && ev.State == zk.StateDisconnected && armed.CompareAndSwap(true, false) {
			expired <- srv.ExpireSession(ctx, sid.Load())
		}
	}))
	cnt := recipes.NewCounter(c, "/counters/expire", 0)
	_, err := cnt.Add(ctx, 1)
	require.NoError(t, err)

	sid.Store(c.SessionID())
	armed.Store(true)
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: server.DropReply}))
	_, err = cnt.Add(ctx, 5)
	require.ErrorIs(t, err, recipes.ErrUnknownOutcome)
	require.NoError(t, <-expired)
	require.NotEqual(t, sid.Load(), c.SessionID(), "a new session")

	v, err := cnt.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(6), v, "the write had run, once")
}
